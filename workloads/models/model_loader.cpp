#include "workloads/models/model_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/config_node.h"
#include "core/did_you_mean.h"
#include "core/input_file.h"
#include "core/param_decl.h"
#include "core/units.h"
#include "workloads/models/expression.h"
#include "workloads/models/layer_math.h"

#ifndef TRAINVP_SOURCE_DIR
#error "TRAINVP_SOURCE_DIR must be defined (workloads/models/CMakeLists.txt sets it)"
#endif

namespace trainvp::models {

namespace {

std::string join_key(const std::string& prefix, const std::string& key) {
    return prefix.empty() ? key : prefix + "." + key;
}

std::string index_key(const std::string& prefix, std::size_t i) {
    return prefix + "[" + std::to_string(i) + "]";
}

// Layer names become parts of dotted instance paths, so dots (and spaces) would make them
// ambiguous.
bool valid_layer_name(const std::string& s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
}

// Booleans and choices are read by the rules every config value follows (param_decl's), so a
// model file accepts exactly the spellings a platform file does.
param_decl value_decl(param_kind kind, std::vector<std::string> choices = {}) {
    param_decl d;
    d.kind = kind;
    d.choices = std::move(choices);
    return d;
}

struct key_rules {
    std::vector<std::string> allowed;
    std::vector<std::string> required;
};

// Keys every layer may have, then those of its kind.  `inputs` is required where a layer
// combines several tensors, and absent for embeddings, which read the data loader's indices.
key_rules layer_keys(layer_kind kind, const std::string& written) {
    const std::vector<std::string> common = {"name", "kind", "inputs"};
    key_rules r{common, {"kind"}};
    auto extra = [&r](std::vector<std::string> allowed, std::vector<std::string> required) {
        r.allowed.insert(r.allowed.end(), allowed.begin(), allowed.end());
        r.required.insert(r.required.end(), required.begin(), required.end());
    };
    switch (kind) {
        case layer_kind::CONV:
            extra({"in_channels", "out_channels", "kernel", "stride", "padding", "groups", "bias"},
                  {"out_channels", "kernel", "bias"});
            break;
        case layer_kind::DECONV:
            extra({"in_channels", "out_channels", "kernel", "stride", "padding", "output_padding",
                   "bias"},
                  {"out_channels", "kernel", "bias"});
            break;
        case layer_kind::RESHAPE:
            extra({"channels", "height", "width"}, {"channels", "height", "width"});
            break;
        case layer_kind::FC:
            extra({"in", "out", "bias"}, {"out", "bias"});
            break;
        case layer_kind::POOL:
            extra({"op", "kernel", "stride", "padding"}, {"op", "kernel", "stride"});
            break;
        case layer_kind::ACTIVATION:
            if (written != "relu") extra({"function"}, {"function"});
            break;
        case layer_kind::BATCHNORM:
            extra({"channels"}, {});
            break;
        case layer_kind::LRN:
            extra({"size"}, {"size"});
            break;
        case layer_kind::DROPOUT:
            extra({"rate"}, {"rate"});
            break;
        case layer_kind::EMBEDDING:
            r.allowed = {"name", "kind", "rows", "dim", "lookups", "pooling", "tables"};
            extra({}, {"rows", "dim", "lookups", "pooling"});
            break;
        case layer_kind::ATTENTION:
            extra({"heads", "bias", "d_model", "seq_len"}, {"heads", "bias"});
            break;
        case layer_kind::ADD:
        case layer_kind::CONCAT:
        case layer_kind::INTERACTION:
            extra({}, {"inputs"});
            break;
        case layer_kind::GENERIC:
            extra({"op", "output", "params", "forward_flops", "backward_input_flops",
                   "backward_weight_flops", "note"},
                  {"op", "output"});
            break;
        case layer_kind::LAYERNORM:
        case layer_kind::SOFTMAX:
        case layer_kind::FLATTEN:
            break;
    }
    return r;
}

struct scope {
    std::map<std::string, std::int64_t> params;
    std::string prefix;  // "" at top level, "conv3.2." inside the second repetition of conv3
    std::string input;   // full name of the tensor the scope starts from ("input" at top level)
    std::string last;    // full name of the latest tensor: the default input of the next layer
    std::map<std::string, std::string> names;  // local layer name -> full tensor name
};

struct block_def {
    source_loc key_loc;                   // for "never used"
    const config_node* layers = nullptr;  // in the document, which outlives the loader
    std::string key;                      // "blocks.bottleneck"
    std::vector<std::string> params;
    bool used = false;
};

class model_loader {
public:
    model_loader(std::string file, const model_options& opts)
        : m_file(std::move(file)), m_opts(opts) {}

    model load(const config_node& root);

private:
    [[noreturn]] void fail(const source_loc& at, const std::string& key,
                           const std::string& what) const {
        std::string msg = what;
        if (!m_instances.empty()) msg += " (while expanding " + m_instances.back() + ")";
        throw input_error(at, key, msg);
    }
    [[noreturn]] void fail(const config_node& at, const std::string& key,
                           const std::string& what) const {
        fail(at.loc(), key, what);
    }
    // An error of the shared value rules, with the block use being expanded added.
    [[noreturn]] void fail(const input_error& e) const { fail(e.where(), e.key(), e.reason()); }

    void check_keys(const config_node& map, const std::string& prefix, const key_rules& rules,
                    const std::string& context) const;
    std::int64_t read_int(const config_node& n, const std::string& key, const scope& sc) const;
    std::int64_t read_positive(const config_node& n, const std::string& key, const scope& sc) const;
    std::int64_t read_non_negative(const config_node& n, const std::string& key,
                                   const scope& sc) const;
    std::pair<std::int64_t, std::int64_t> read_pair(const config_node& n, const std::string& key,
                                                    const scope& sc, bool allow_zero) const;
    bool read_bool(const config_node& n, const std::string& key) const;
    std::string read_string(const config_node& n, const std::string& key) const;
    std::string read_choice(const config_node& n, const std::string& key,
                            const std::vector<std::string>& choices) const;
    double read_rate(const config_node& n, const std::string& key) const;

    void read_parameters(const config_node* n);
    tensor_shape read_shape(const config_node& n, const std::string& key, const scope& sc) const;
    void read_blocks(const config_node* n);

    void expand(const config_node& list, const std::string& key, scope& sc);
    void expand_layer(const config_node& e, const std::string& key, scope& sc, std::size_t index);
    void expand_call(const config_node& e, const std::string& key, scope& sc);
    std::string declare_name(const config_node& e, const std::string& key, const scope& sc,
                             const std::string& fallback) const;
    std::vector<std::string> resolve_inputs(const config_node& e, const std::string& key,
                                            const scope& sc) const;
    layer_spec read_spec(layer_kind kind, const std::string& written, const config_node& e,
                         const std::string& key, const scope& sc) const;

    std::string m_file;
    model_options m_opts;
    std::map<std::string, std::int64_t> m_params;
    std::map<std::string, tensor_shape> m_tensors;  // every produced tensor by full name
    std::map<std::string, block_def> m_blocks;
    std::vector<std::string> m_block_order;
    std::vector<std::string> m_call_stack;  // blocks being expanded, to catch recursion
    std::vector<std::string> m_instances;   // their instance names, for messages
    std::vector<layer_info> m_layers;
};

// Repeated keys never reach here: the reader rejects them (key_names::FULL_PATH).
void model_loader::check_keys(const config_node& map, const std::string& prefix,
                              const key_rules& rules, const std::string& context) const {
    for (const auto& entry : map.entries()) {
        const std::string& name = entry.key;
        if (std::find(rules.allowed.begin(), rules.allowed.end(), name) == rules.allowed.end()) {
            const std::string hint = did_you_mean(name, rules.allowed);
            fail(entry.key_loc, join_key(prefix, name),
                 "unknown key '" + name + "' " + context +
                     (hint.empty() ? " (allowed: " + join(rules.allowed) + ")" : hint));
        }
    }
    for (const auto& r : rules.required) {
        if (!map.find(r))
            fail(map, join_key(prefix, r), "missing required key '" + r + "' " + context);
    }
}

std::int64_t model_loader::read_int(const config_node& n, const std::string& key,
                                    const scope& sc) const {
    if (!n.is_scalar()) fail(n, key, "expected an integer, got " + std::string(n.kind_name()));
    try {
        return expression::evaluate(n.scalar(), sc.params);
    } catch (const expression_error& e) {
        fail(n, key, e.what());
    }
}

std::int64_t model_loader::read_positive(const config_node& n, const std::string& key,
                                         const scope& sc) const {
    const std::int64_t v = read_int(n, key, sc);
    if (v <= 0) fail(n, key, "must be positive, got " + std::to_string(v));
    return v;
}

std::int64_t model_loader::read_non_negative(const config_node& n, const std::string& key,
                                             const scope& sc) const {
    const std::int64_t v = read_int(n, key, sc);
    if (v < 0) fail(n, key, "must not be negative, got " + std::to_string(v));
    return v;
}

std::pair<std::int64_t, std::int64_t> model_loader::read_pair(const config_node& n,
                                                              const std::string& key,
                                                              const scope& sc,
                                                              bool allow_zero) const {
    auto one = [&](const config_node& v, const std::string& k) {
        return allow_zero ? read_non_negative(v, k, sc) : read_positive(v, k, sc);
    };
    if (n.is_scalar()) {
        const std::int64_t v = one(n, key);
        return {v, v};
    }
    if (n.is_seq() && n.items().size() == 2)
        return {one(n.items()[0], key + "[0]"), one(n.items()[1], key + "[1]")};
    fail(n, key,
         "expected an integer or a list of two integers [height, width], got " +
             (n.is_seq() ? "a list of " + std::to_string(n.items().size())
                         : std::string(n.kind_name())));
}

bool model_loader::read_bool(const config_node& n, const std::string& key) const {
    static const param_decl decl = value_decl(param_kind::BOOL);
    try {
        return param_parse::to_bool(n, decl, key);
    } catch (const input_error& e) {
        fail(e);
    }
}

std::string model_loader::read_string(const config_node& n, const std::string& key) const {
    if (!n.is_scalar() || n.scalar().empty()) {
        fail(n, key, "expected a name, got " + std::string(n.kind_name()));
    }
    return n.scalar();
}

std::string model_loader::read_choice(const config_node& n, const std::string& key,
                                      const std::vector<std::string>& choices) const {
    try {
        return choices[param_parse::to_choice(n, value_decl(param_kind::ENUM, choices), key)];
    } catch (const input_error& e) {
        fail(e);
    }
}

// A probability is a number as configs write them (0.5, 2^-3, 50%) in [0, 1).
double model_loader::read_rate(const config_node& n, const std::string& key) const {
    if (n.is_scalar()) {
        const auto v = units::parse_number(n.scalar());
        if (v && *v >= 0.0 && *v < 1.0) return *v;
    }
    fail(n, key,
         "expected a probability in [0, 1), got " +
             (n.is_scalar() ? "'" + n.scalar() + "'" : std::string(n.kind_name())));
}

void model_loader::read_parameters(const config_node* n) {
    if (!n) return;
    if (!n->is_map())
        fail(*n, "parameters",
             "expected a map of name: default, got " + std::string(n->kind_name()));
    scope sc;  // defaults may use the parameters declared before them
    for (const auto& entry : n->entries()) {
        const std::string& name = entry.key;
        const std::string key = join_key("parameters", name);
        if (!expression::is_identifier(name)) {
            fail(entry.key_loc, key,
                 "a parameter name is a letter or '_' followed by letters, digits or '_'");
        }
        // A default naming itself or a parameter declared after it: say so, not "unknown".
        if (entry.value.is_scalar()) {
            const std::string& text = entry.value.scalar();
            for (std::size_t i = 0; i < text.size();) {
                const auto is_word = [&](std::size_t j) {
                    return std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_';
                };
                if (!is_word(i)) {
                    ++i;
                    continue;
                }
                std::size_t j = i;
                while (j < text.size() && is_word(j)) ++j;
                const std::string word = text.substr(i, j - i);
                i = j;
                if (!expression::is_identifier(word) || sc.params.count(word) != 0) continue;
                if (word == name || n->find(word) != nullptr) {
                    fail(entry.value, key,
                         "'" + text + "' uses " +
                             (word == name ? "the parameter itself"
                                           : "parameter '" + word + "', declared after it") +
                             "; a default may use only the parameters declared before it");
                }
            }
        }
        // The default is checked even when overridden: a broken file stays broken.
        sc.params[name] = read_int(entry.value, key, sc);
        auto over = m_opts.parameters.find(name);
        if (over != m_opts.parameters.end()) sc.params[name] = over->second;
    }
    for (const auto& [name, value] : m_opts.parameters) {
        if (sc.params.count(name) == 0) {
            std::vector<std::string> declared;
            for (const auto& [k, v] : sc.params) declared.push_back(k);
            const std::string hint = did_you_mean(name, declared);
            throw input_error(
                m_opts.origin, join_key(m_opts.parameters_key, name),
                "the model file " + std::filesystem::path(m_file).filename().string() +
                    " declares no parameter '" + name + "'" +
                    (hint.empty() ? (declared.empty() ? std::string(" (it declares none)")
                                                      : " (declared: " + join(declared) + ")")
                                  : hint));
        }
    }
    m_params = sc.params;
}

tensor_shape model_loader::read_shape(const config_node& n, const std::string& key,
                                      const scope& sc) const {
    const std::string forms =
        "an input is {channels, height, width}, {features}, {tokens, features} or {indices}";
    if (!n.is_map()) fail(n, key, forms + ", got " + n.kind_name());
    check_keys(n, key, {{"channels", "height", "width", "features", "tokens", "indices"}, {}},
               "in an input shape");
    auto has = [&n](const char* k) { return n.find(k) != nullptr; };
    auto get = [&](const char* k) { return read_positive(*n.find(k), join_key(key, k), sc); };
    const std::size_t keys = n.entries().size();
    if (has("channels") || has("height") || has("width")) {
        if (keys == 3 && has("channels") && has("height") && has("width")) {
            return tensor_shape::chw(get("channels"), get("height"), get("width"));
        }
    } else if (has("tokens")) {
        if (keys == 2 && has("features"))
            return tensor_shape::tokens(get("tokens"), get("features"));
    } else if (has("features")) {
        if (keys == 1) return tensor_shape::features(get("features"));
    } else if (has("indices")) {
        if (keys == 1) return tensor_shape::indices(get("indices"));
    }
    fail(n, key, forms);
}

void model_loader::read_blocks(const config_node* n) {
    if (!n) return;
    if (!n->is_map())
        fail(*n, "blocks",
             "expected a map of block name: definition, got " + std::string(n->kind_name()));
    for (const auto& entry : n->entries()) {
        const std::string& name = entry.key;
        const config_node& def = entry.value;
        const std::string key = join_key("blocks", name);
        if (!valid_layer_name(name))
            fail(entry.key_loc, key, "a block name is letters, digits, '_' or '-'");
        if (!def.is_map())
            fail(def, key,
                 "expected a map with keys parameters and layers, got " +
                     std::string(def.kind_name()));
        check_keys(def, key, {{"parameters", "layers"}, {"layers"}}, "in a block definition");
        block_def b;
        b.key_loc = entry.key_loc;
        b.layers = def.find("layers");
        b.key = key;
        if (const config_node* p = def.find("parameters")) {
            const std::string pkey = join_key(key, "parameters");
            if (!p->is_seq())
                fail(*p, pkey,
                     "expected a list of parameter names, got " + std::string(p->kind_name()));
            for (std::size_t i = 0; i < p->items().size(); ++i) {
                const config_node& item = p->items()[i];
                const std::string pname = item.is_scalar() ? item.scalar() : std::string();
                const std::string ik = index_key(pkey, i);
                if (!expression::is_identifier(pname)) {
                    fail(item, ik,
                         "a parameter name is a letter or '_' followed by letters, digits or '_'");
                }
                // A block argument silently hiding a model parameter of the same name would
                // make overrides of that parameter not apply inside the block.
                if (m_params.count(pname)) {
                    fail(item, ik,
                         "'" + pname + "' is already a model parameter; pick another name");
                }
                if (std::find(b.params.begin(), b.params.end(), pname) != b.params.end()) {
                    fail(item, ik, "duplicate parameter '" + pname + "'");
                }
                b.params.push_back(pname);
            }
        }
        if (!b.layers->is_seq() || b.layers->items().empty()) {
            fail(*b.layers, join_key(key, "layers"), "a block needs a list of at least one layer");
        }
        m_blocks[name] = b;
        m_block_order.push_back(name);
    }
}

std::string model_loader::declare_name(const config_node& e, const std::string& key,
                                       const scope& sc, const std::string& fallback) const {
    std::string name = fallback;
    const config_node* n = e.find("name");
    if (n) {
        name = read_string(*n, join_key(key, "name"));
        if (!valid_layer_name(name)) {
            fail(*n, join_key(key, "name"),
                 "a layer name is letters, digits, '_' or '-', got '" + name + "'");
        }
        if (name == "input") {
            fail(*n, join_key(key, "name"),
                 "'input' is reserved for the model's (or block's) input");
        }
    }
    if (sc.names.count(name)) {
        fail(n ? *n : e, join_key(key, "name"), "layer name '" + name + "' is already used");
    }
    return name;
}

std::vector<std::string> model_loader::resolve_inputs(const config_node& e, const std::string& key,
                                                      const scope& sc) const {
    const config_node* n = e.find("inputs");
    if (!n) return {sc.last};
    const std::string ikey = join_key(key, "inputs");
    std::vector<const config_node*> items;
    if (n->is_scalar()) {
        items.push_back(n);
    } else if (n->is_seq()) {
        for (const auto& item : n->items()) items.push_back(&item);
    } else {
        fail(*n, ikey,
             "expected a layer name or a list of layer names, got " + std::string(n->kind_name()));
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string k = n->is_scalar() ? ikey : index_key(ikey, i);
        const std::string ref = read_string(*items[i], k);
        if (ref == "input") {
            out.push_back(sc.input);
            continue;
        }
        auto it = sc.names.find(ref);
        if (it == sc.names.end()) {
            std::vector<std::string> known = {"input"};
            for (const auto& [local, full] : sc.names) known.push_back(local);
            fail(*items[i], k,
                 "no earlier layer named '" + ref + "' in this " +
                     (m_instances.empty() ? "model" : "block") + did_you_mean(ref, known));
        }
        out.push_back(it->second);
    }
    return out;
}

layer_spec model_loader::read_spec(layer_kind kind, const std::string& written,
                                   const config_node& e, const std::string& key,
                                   const scope& sc) const {
    layer_spec s;
    auto k = [&key](const char* name) { return join_key(key, name); };
    // Required keys are present (check_keys has run); optional ones are looked up with find.
    auto at = [&e](const char* name) -> const config_node& { return *e.find(name); };
    auto pos = [&](const char* name) { return read_positive(at(name), k(name), sc); };
    auto opt_pos = [&](const char* name) -> std::optional<std::int64_t> {
        if (!e.find(name)) return std::nullopt;
        return pos(name);
    };
    switch (kind) {
        case layer_kind::CONV:
        case layer_kind::DECONV:
        case layer_kind::POOL: {
            std::tie(s.kernel_h, s.kernel_w) = read_pair(at("kernel"), k("kernel"), sc, false);
            if (e.find("stride"))
                std::tie(s.stride_h, s.stride_w) = read_pair(at("stride"), k("stride"), sc, false);
            if (e.find("padding"))
                std::tie(s.pad_h, s.pad_w) = read_pair(at("padding"), k("padding"), sc, true);
            if (e.find("output_padding"))
                std::tie(s.output_pad_h, s.output_pad_w) =
                    read_pair(at("output_padding"), k("output_padding"), sc, true);
            if (kind == layer_kind::POOL) {
                s.pool = read_choice(at("op"), k("op"), {"max", "avg"}) == "max" ? pool_op::MAX
                                                                                 : pool_op::AVG;
                break;
            }
            s.out_channels = pos("out_channels");
            s.in_channels_check = opt_pos("in_channels");
            if (e.find("groups")) s.groups = pos("groups");
            s.bias = read_bool(at("bias"), k("bias"));
            break;
        }
        case layer_kind::FC:
            s.out_features = pos("out");
            s.in_features_check = opt_pos("in");
            s.bias = read_bool(at("bias"), k("bias"));
            break;
        case layer_kind::ACTIVATION:
            if (written != "relu") {
                const std::string f =
                    read_choice(at("function"), k("function"), {"relu", "sigmoid", "tanh"});
                s.function = f == "relu"      ? activation_fn::RELU
                             : f == "sigmoid" ? activation_fn::SIGMOID
                                              : activation_fn::TANH;
            }
            break;
        case layer_kind::BATCHNORM:
            s.channels_check = opt_pos("channels");
            break;
        case layer_kind::LRN:
            s.lrn_size = pos("size");
            break;
        case layer_kind::RESHAPE:
            s.reshape_c = pos("channels");
            s.reshape_h = pos("height");
            s.reshape_w = pos("width");
            break;
        case layer_kind::DROPOUT:
            s.dropout_rate = read_rate(at("rate"), k("rate"));
            break;
        case layer_kind::EMBEDDING:
            s.rows = pos("rows");
            s.dim = pos("dim");
            s.lookups = pos("lookups");
            if (e.find("tables")) s.tables = pos("tables");
            s.pooling = read_choice(at("pooling"), k("pooling"), {"sum", "none"}) == "sum"
                            ? embedding_pooling::SUM
                            : embedding_pooling::NONE;
            break;
        case layer_kind::ATTENTION:
            s.heads = pos("heads");
            s.bias = read_bool(at("bias"), k("bias"));
            s.d_model_check = opt_pos("d_model");
            s.seq_len_check = opt_pos("seq_len");
            break;
        case layer_kind::GENERIC: {
            auto count = [&](const char* name) -> std::int64_t {
                return e.find(name) ? read_non_negative(at(name), k(name), sc) : 0;
            };
            s.op = read_string(at("op"), k("op"));
            if (e.find("note")) s.note = read_string(at("note"), k("note"));
            s.output = read_shape(at("output"), k("output"), sc);
            if (s.output.layout == tensor_layout::INDICES) {
                fail(at("output"), k("output"),
                     "a generic layer outputs values: {channels, height, width}, {features} or "
                     "{tokens, features}");
            }
            s.params = count("params");
            s.forward_flops = count("forward_flops");
            s.backward_input_flops = count("backward_input_flops");
            s.backward_weight_flops = count("backward_weight_flops");
            break;
        }
        default:
            break;
    }
    return s;
}

void model_loader::expand(const config_node& list, const std::string& key, scope& sc) {
    if (!list.is_seq())
        fail(list, key, "expected a list of layers, got " + std::string(list.kind_name()));
    for (std::size_t i = 0; i < list.items().size(); ++i) {
        const config_node& e = list.items()[i];
        const std::string ek = index_key(key, i);
        if (!e.is_map())
            fail(e, ek, "expected a map describing one layer, got " + std::string(e.kind_name()));
        if (e.find("block")) {
            expand_call(e, ek, sc);
        } else {
            expand_layer(e, ek, sc, i);
        }
    }
}

void model_loader::expand_layer(const config_node& e, const std::string& key, scope& sc,
                                std::size_t index) {
    const config_node* kn = e.find("kind");
    if (!kn)
        fail(e, join_key(key, "kind"), "missing required key 'kind' (or 'block' to use a block)");
    const std::string written = read_string(*kn, join_key(key, "kind"));
    layer_kind kind;
    if (!parse_layer_kind(written, kind)) {
        const std::string hint = did_you_mean(written, layer_kind_names());
        fail(*kn, join_key(key, "kind"),
             "unknown layer kind '" + written + "'" +
                 (hint.empty() ? " (known: " + join(layer_kind_names()) + ")" : hint));
    }
    check_keys(e, key, layer_keys(kind, written), "for a layer of kind " + written);

    // Unnamed layers get their kind and position, so that reports can still tell them apart.
    const std::string local = declare_name(e, key, sc, written + "_" + std::to_string(index + 1));
    layer_info info;
    info.name = sc.prefix + local;
    info.kind = kind;
    info.spec = read_spec(kind, written, e, key, sc);
    if (kind != layer_kind::EMBEDDING) info.inputs = resolve_inputs(e, key, sc);
    for (const auto& in : info.inputs) info.input_shapes.push_back(m_tensors.at(in));
    info.where = e.loc();
    try {
        layer_math::derive(info, m_opts.batch, m_opts.bytes_per_value);
    } catch (const layer_error& err) {
        // The error names the layer key it is about; point at that key's value if it is
        // written, else at the layer.
        const config_node* at = err.key().empty() ? &e : e.find(err.key());
        std::string msg = err.what();
        if (!sc.prefix.empty()) msg = "layer " + info.name + ": " + msg;
        fail(at ? *at : e, at && !err.key().empty() ? join_key(key, err.key()) : key, msg);
    }
    m_tensors[info.name] = info.output_shape;
    sc.names[local] = info.name;
    sc.last = info.name;
    m_layers.push_back(std::move(info));
}

void model_loader::expand_call(const config_node& e, const std::string& key, scope& sc) {
    if (const config_node* kind = e.find("kind"))
        fail(*kind, join_key(key, "kind"),
             "an entry has either 'kind' (a layer) or 'block' (a block), not both");
    check_keys(e, key, {{"name", "block", "args", "repeat", "inputs"}, {"name", "block"}},
               "for a block use");
    const std::string bkey = join_key(key, "block");
    const config_node& block = *e.find("block");
    const std::string bname = read_string(block, bkey);
    auto bit = m_blocks.find(bname);
    if (bit == m_blocks.end()) {
        const std::string hint = did_you_mean(bname, m_block_order);
        fail(block, bkey,
             "no block named '" + bname + "'" +
                 (hint.empty()
                      ? (m_block_order.empty() ? std::string(" (the file defines no blocks)")
                                               : " (defined: " + join(m_block_order) + ")")
                      : hint));
    }
    block_def& def = bit->second;
    if (std::find(m_call_stack.begin(), m_call_stack.end(), bname) != m_call_stack.end()) {
        fail(block, bkey, "block '" + bname + "' uses itself");
    }
    def.used = true;
    const std::string local = declare_name(e, key, sc, "");

    // Arguments are evaluated where the block is used, with the caller's parameters.
    std::map<std::string, std::int64_t> args;
    const std::string akey = join_key(key, "args");
    const config_node* a = e.find("args");
    if (a) {
        if (!a->is_map())
            fail(*a, akey,
                 "expected a map of parameter: value, got " + std::string(a->kind_name()));
        check_keys(*a, akey, {def.params, {}}, "for block " + bname);
        for (const auto& entry : a->entries()) {
            args[entry.key] = read_int(entry.value, join_key(akey, entry.key), sc);
        }
    }
    for (const auto& p : def.params) {
        if (!args.count(p)) {
            fail(a ? *a : e, join_key(akey, p), "missing argument '" + p + "' for block " + bname);
        }
    }
    const config_node* rep = e.find("repeat");
    const std::int64_t repeat = rep ? read_non_negative(*rep, join_key(key, "repeat"), sc) : 1;
    std::vector<std::string> inputs = resolve_inputs(e, key, sc);
    if (inputs.size() != 1) {
        fail(*e.find("inputs"), join_key(key, "inputs"),
             "a block takes one input, got " + std::to_string(inputs.size()));
    }

    std::string current = inputs[0];
    m_call_stack.push_back(bname);
    for (std::int64_t r = 1; r <= repeat; ++r) {
        scope inner;
        inner.params = m_params;
        for (const auto& [p, v] : args) inner.params[p] = v;
        const std::string instance =
            sc.prefix + local + (repeat > 1 ? "." + std::to_string(r) : "");
        inner.prefix = instance + ".";
        inner.input = current;
        inner.last = current;
        m_instances.push_back(instance);
        expand(*def.layers, join_key(def.key, "layers"), inner);
        m_instances.pop_back();
        current = inner.last;
    }
    m_call_stack.pop_back();
    // The use's name stands for the output of its last repetition (its input if repeated 0
    // times), so a shortcut can refer to a whole block.
    sc.names[local] = current;
    sc.last = current;
}

model model_loader::load(const config_node& root) {
    if (m_opts.batch <= 0) {
        throw input_error(
            m_opts.origin, "batch",
            "must be a positive number of samples, got " + std::to_string(m_opts.batch));
    }
    if (m_opts.bytes_per_value <= 0) {
        throw input_error(m_opts.origin, "bytes_per_value",
                          "must be positive, got " + std::to_string(m_opts.bytes_per_value));
    }
    if (!root.is_map()) {
        fail(root, "",
             "a model file is a map with keys name, source, input and layers, got " +
                 std::string(root.kind_name()));
    }
    // A platform config named where a model file belongs (`model: configs/examples/x.yaml`).
    for (const char* k : {"components", "connections", "include", "templates", "workload"}) {
        if (const config_node::entry* e = root.find_entry(k)) {
            fail(e->key_loc, k,
                 std::string("this is a platform config (it has `") + k +
                     ":`), not a model file: a model file has name, source, input and layers "
                     "(workloads/models/zoo/*.yaml)");
        }
    }
    check_keys(root, "",
               {{"name", "source", "description", "parameters", "input", "blocks", "layers"},
                {"name", "source", "input", "layers"}},
               "in a model file");
    const std::string name = read_string(*root.find("name"), "name");
    const std::string source = read_string(*root.find("source"), "source");
    if (const config_node* d = root.find("description")) read_string(*d, "description");
    read_parameters(root.find("parameters"));
    read_blocks(root.find("blocks"));

    scope top;
    top.params = m_params;
    top.input = "input";
    top.last = "input";
    const tensor_shape input = read_shape(*root.find("input"), "input", top);
    m_tensors["input"] = input;
    const config_node& layers = *root.find("layers");
    expand(layers, "layers", top);
    if (m_layers.empty()) fail(layers, "layers", "a model needs at least one layer");
    for (const auto& b : m_block_order) {
        if (!m_blocks[b].used)
            fail(m_blocks[b].key_loc, m_blocks[b].key, "block '" + b + "' is never used");
    }
    return model(name, source, m_file, m_opts.batch, m_opts.bytes_per_value, m_params, input,
                 std::move(m_layers));
}

// Path of zoo model NAME.  The error names the zoo, not its folder, so that it reads the same
// in a build tree and an installation (and in tests/configs/bad/*.expected).
std::string zoo_model_path(const std::string& name, const std::string& dir_override,
                           const source_loc& where, const std::string& key) {
    namespace fs = std::filesystem;
    const fs::path p = fs::path(zoo_dir(dir_override)) / (name + ".yaml");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
    const std::vector<std::string> names = zoo_model_names(dir_override);
    const std::string zoo = dir_override.empty() ? "the zoo" : "the zoo at " + dir_override;
    throw input_error(where, key,
                      "no model '" + name + "' in " + zoo + did_you_mean(name, names) +
                          (names.empty() ? "; it is empty" : "; the zoo has " + join(names)));
}

// A config names a model file, rather than a zoo model, by a path.
bool is_model_path(const std::string& name_or_path) {
    const std::string ext = ".yaml";
    return name_or_path.find('/') != std::string::npos ||
           (name_or_path.size() > ext.size() &&
            name_or_path.compare(name_or_path.size() - ext.size(), ext.size(), ext) == 0);
}

}  // namespace

model parse_model(const std::string& yaml_text, const std::string& file_label,
                  const model_options& opts) {
    // Model files report every key by its full path, also a repeated one.
    const config_node root =
        config_node::parse(yaml_text, file_label, config_node::key_names::FULL_PATH);
    if (root.is_nil()) throw input_error(source_loc{file_label}, "", "the model file is empty");
    return model_loader(file_label, opts).load(root);
}

model load_model(const std::string& path, const model_options& opts) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(path, ec)) throw input_error(source_loc{path}, "", "cannot open model file");
    return parse_model(input_file::read(path, "model file"), path, opts);
}

model load_zoo_model(const std::string& name_or_path, const model_options& opts,
                     const source_loc& where, const std::string& key) {
    namespace fs = std::filesystem;
    if (!is_model_path(name_or_path)) {
        return load_model(zoo_model_path(name_or_path, "", where, key), opts);
    }
    // As `include:` does: relative to the file that names it.
    fs::path p(name_or_path);
    std::error_code ec;
    if (p.is_relative() && fs::is_regular_file(where.file, ec)) {
        p = fs::path(where.file).parent_path() / p;
    }
    // Read here, so that a FIFO or a device named by the config is refused at its key.
    const std::string text = input_file::read(p.string(), "model file", where, key);
    return parse_model(text, p.string(), opts);
}

std::string zoo_dir(const std::string& dir_override) {
    if (!dir_override.empty()) return dir_override;
    // An installed trainvp (cmake --install) has its zoo at <prefix>/share/trainvp/zoo, beside
    // <prefix>/lib/libtrainvp_models.so; a build tree uses the source tree's.
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&load_model), &info) != 0 && info.dli_fname != nullptr) {
        namespace fs = std::filesystem;
        const fs::path installed =
            fs::path(info.dli_fname).parent_path().parent_path() / "share/trainvp/zoo";
        std::error_code ec;
        if (fs::is_directory(installed, ec)) return installed.string();
    }
    return std::string(TRAINVP_SOURCE_DIR) + "/workloads/models/zoo";
}

std::vector<std::string> zoo_model_names(const std::string& dir_override) {
    namespace fs = std::filesystem;
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(zoo_dir(dir_override), ec)) {
        if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string find_zoo_model(const std::string& name, const std::string& dir_override) {
    return zoo_model_path(name, dir_override, source_loc{}, "model");
}

}  // namespace trainvp::models
