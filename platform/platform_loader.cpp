#include "platform/platform_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "core/did_you_mean.h"
#include "core/units.h"
#include "platform/memory_estimate.h"
#include "platform/network_generator.h"

namespace trainvp {

namespace {

const std::vector<std::string> k_sections{"description", "plugins",     "simulation", "templates",
                                          "components",  "connections", "workload"};
const std::vector<std::string> k_template_keys{"description", "components", "connections"};
// Keys of a component body that are not params (leaf) or child overrides (group).
const std::vector<std::string> k_reserved{"type",       "template",    "count",   "override",
                                          "components", "connections", "generate"};

bool is_reserved(const std::string& k) {
    return std::find(k_reserved.begin(), k_reserved.end(), k) != k_reserved.end();
}

// A component name: an identifier, optionally with one array index ("node[3]", as written
// by resolved configs).
bool valid_name(const std::string& n) {
    std::size_t i = 0;
    if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) {
        return false;
    }
    while (i < n.size() && (std::isalnum(static_cast<unsigned char>(n[i])) || n[i] == '_')) ++i;
    if (i == n.size()) return true;
    if (n[i] != '[' || n.back() != ']' || i + 2 >= n.size()) return false;
    for (std::size_t j = i + 1; j + 1 < n.size(); ++j) {
        if (!std::isdigit(static_cast<unsigned char>(n[j]))) return false;
    }
    return true;
}

void expect_map(const config_node& n, const std::string& key) {
    if (!n.is_map()) {
        throw input_error(n.loc(), key, std::string("expected a map, got ") + n.kind_name());
    }
}

// A platform that would not fit in memory is refused before it is expanded or built
// (memory_estimate.h), at the count that makes it so.
void check_memory(const config_node& components, const config_node& templates,
                  const sim_settings& settings) {
    const memory_estimate est(components, templates);
    const bool machine = settings.memory_limit.bytes == 0;
    const std::uint64_t limit =
        machine ? memory_estimate::available_memory() : settings.memory_limit.bytes;
    if (limit == 0 || est.bytes() <= limit) return;
    const double b = static_cast<double>(est.bytes());
    throw input_error(
        est.largest_loc(), est.largest(),
        "the platform would need about " + units::format_size(b) + " (" +
            std::to_string(est.blocks()) + " blocks x ~" +
            std::to_string(memory_estimate::k_bytes_per_block / 1024) +
            " KiB), more than simulation.memory_limit (" +
            units::format_size(static_cast<double>(limit)) +
            (machine ? ": the machine's available memory" : "") + "); reduce " + est.largest() +
            (est.largest_count() > 1 ? " (" + std::to_string(est.largest_count()) + ")" : "") +
            ", or raise simulation.memory_limit if the machine has the memory");
}

void check_keys(const config_node& n, const std::string& key,
                const std::vector<std::string>& allowed, const std::string& what) {
    for (const auto& e : n.entries()) {
        if (std::find(allowed.begin(), allowed.end(), e.key) == allowed.end()) {
            throw input_error(e.key_loc, key.empty() ? e.key : key + "." + e.key,
                              "unknown " + what + did_you_mean(e.key, allowed) +
                                  "; expected one of " + join(allowed, ", "));
        }
    }
}

// Parses an override index spec: "3", "0..5" (inclusive), "1,3,7".
std::set<std::size_t> parse_indices(const std::string& spec, std::size_t count,
                                    const source_loc& loc, const std::string& key) {
    std::set<std::size_t> out;
    std::size_t start = 0;
    auto number = [&](const std::string& s) -> std::size_t {
        if (s.empty() || !std::all_of(s.begin(), s.end(),
                                      [](char c) { return std::isdigit((unsigned char)c); })) {
            throw input_error(loc, key, "bad index '" + spec + "'; expected e.g. 2, 0..3 or 1,3,5");
        }
        // Too many digits for any array (and for stoul): out of range, not a crash.
        const std::size_t v = s.size() > 9 ? count : std::stoul(s);
        if (v >= count) {
            throw input_error(loc, key,
                              "index " + s + " is out of range: the array has " +
                                  std::to_string(count) + " elements (0.." +
                                  std::to_string(count - 1) + ")");
        }
        return v;
    };
    while (start <= spec.size()) {
        std::size_t comma = spec.find(',', start);
        std::string part =
            spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        part.erase(std::remove(part.begin(), part.end(), ' '), part.end());
        std::size_t dots = part.find("..");
        if (dots != std::string::npos) {
            std::size_t a = number(part.substr(0, dots));
            std::size_t b = number(part.substr(dots + 2));
            if (b < a) throw input_error(loc, key, "empty range '" + part + "'");
            for (std::size_t i = a; i <= b; ++i) out.insert(i);
        } else {
            out.insert(number(part));
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

class expander {
public:
    expander(const registry& reg, const config_node& templates, platform_desc& out)
        : m_registry(reg), m_templates(templates), m_out(out) {}

    // Expands component `name` (declared at `key`) under group path `prefix`.
    void component(const std::string& prefix, const std::string& name, const config_node& body,
                   const source_loc& name_loc) {
        const std::string path = prefix.empty() ? name : prefix + "." + name;
        if (!valid_name(name)) {
            throw input_error(name_loc, path,
                              "bad component name; use letters, digits and _ (an array is "
                              "declared with count:, not in the name)");
        }
        expect_map(body, path);
        const config_node* count = body.find("count");
        if (count == nullptr) {
            single(path, body, name_loc);
            return;
        }
        param_decl count_decl;
        count_decl.kind = param_kind::INT;
        count_decl.min = 1;
        count_decl.max = 1 << 20;
        count_decl.range_text = "[1, 1048576]";
        const auto n =
            static_cast<std::size_t>(param_parse::to_int(*count, count_decl, path + ".count"));
        config_node base = body;
        base.erase("count");
        base.erase("override");
        std::vector<config_node> per(n, base);
        if (const config_node* ov = body.find("override")) {
            expect_map(*ov, path + ".override");
            for (const auto& e : ov->entries()) {
                const std::string okey = path + ".override." + e.key;
                expect_map(e.value, okey);
                for (std::size_t i : parse_indices(e.key, n, e.key_loc, okey)) {
                    per[i].merge_from(e.value);
                }
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            m_indices.push_back(i);
            single(path + "[" + std::to_string(i) + "]", per[i], name_loc);
            m_indices.pop_back();
        }
    }

private:
    void single(const std::string& path, const config_node& body, const source_loc& loc) {
        if (const config_node* ov = body.find("override")) {
            throw input_error(ov->loc(), path + ".override",
                              "override: needs count: (it picks elements of an array)");
        }
        const config_node* type = body.find("type");
        const config_node* tmpl = body.find("template");
        const config_node* comps = body.find("components");
        const config_node* gen = body.find("generate");
        const int kinds =
            (type != nullptr) + (tmpl != nullptr) + (comps != nullptr) + (gen != nullptr);
        if (kinds != 1) {
            throw input_error(loc, path,
                              kinds == 0 ? "a component needs type: (an IP block), template:, "
                                           "components: (a group) or generate: (a network)"
                                         : "give only one of type:, template:, components: and "
                                           "generate:");
        }
        if (gen) {
            // A network of switches and links (platform/network_generator.h), expanded as a
            // group; its links to the endpoints are connections of the enclosing group.
            const std::size_t dot = path.rfind('.');
            const std::string parent = dot == std::string::npos ? "" : path.substr(0, dot);
            const std::string name = dot == std::string::npos ? path : path.substr(dot + 1);
            generated_network net = generate_network(name, path, body);
            group(path, net.group, nullptr, loc);
            for (const auto& c : net.outer) add_connection(parent, c);
            return;
        }
        if (type) {
            leaf(path, *type, body);
        } else {
            group(path, body, tmpl, loc);
        }
    }

    void leaf(const std::string& path, const config_node& type, const config_node& body) {
        if (!type.is_scalar())
            throw input_error(type.loc(), path + ".type", "expected a type name");
        const type_info* t = m_registry.find(type.scalar());
        if (t == nullptr) {
            throw input_error(type.loc(), path + ".type",
                              "unknown IP type '" + type.scalar() + "'" +
                                  did_you_mean(type.scalar(), m_registry.names()) +
                                  " (trainvp describe lists the types)");
        }
        instance_desc inst;
        inst.path = path;
        inst.type = t->name;
        inst.loc = type.loc();
        std::vector<std::string> names;
        for (const auto& p : t->params) names.push_back(p.name);
        for (const auto& e : body.entries()) {
            if (e.key == "type") continue;
            if (e.key == "connections" || e.key == "template" || e.key == "components") {
                throw input_error(e.key_loc, path + "." + e.key,
                                  "'" + e.key + "' belongs to a group, not to an IP block");
            }
            if (t->find_param(e.key) == nullptr) {
                throw input_error(e.key_loc, path + "." + e.key,
                                  "unknown param of type '" + t->name + "'" +
                                      did_you_mean(e.key, names) +
                                      (names.empty() ? "; it has no params"
                                                     : "; its params are " + join(names, ", ")));
            }
            config_node value = e.value;
            substitute_index(value, path + "." + e.key);
            inst.params.push_back(param_value{e.key, value});
        }
        m_out.instances.push_back(std::move(inst));
    }

    // "${index}" in a param value is the index of the innermost enclosing array, so that
    // `node_id: ${index}` in a template gives each element of `node: {count: 4}` its own id.
    void substitute_index(config_node& v, const std::string& key) const {
        static const std::string k_token = "${index}";
        if (v.is_seq()) {
            for (auto& item : v.items()) substitute_index(item, key);
            return;
        }
        if (!v.is_scalar() || v.scalar().find(k_token) == std::string::npos) return;
        if (m_indices.empty()) {
            throw input_error(v.loc(), key,
                              "${index} is only defined inside an array (a component with "
                              "count:)");
        }
        std::string text = v.scalar();
        for (std::size_t p = text.find(k_token); p != std::string::npos;
             p = text.find(k_token, p)) {
            text.replace(p, k_token.size(), std::to_string(m_indices.back()));
        }
        v = config_node::scalar_node(text, v.loc());
    }

    void group(const std::string& path, const config_node& body, const config_node* tmpl,
               const source_loc& loc) {
        config_node children = config_node::map_node(loc);
        std::vector<config_node> connections;
        if (tmpl) {
            if (!tmpl->is_scalar()) {
                throw input_error(tmpl->loc(), path + ".template", "expected a template name");
            }
            const std::string& tname = tmpl->scalar();
            const config_node* t = m_templates.find(tname);
            if (t == nullptr) {
                throw input_error(
                    tmpl->loc(), path + ".template",
                    "unknown template '" + tname + "'" + did_you_mean(tname, m_templates.keys()));
            }
            if (std::find(m_stack.begin(), m_stack.end(), tname) != m_stack.end()) {
                throw input_error(tmpl->loc(), path + ".template",
                                  "template '" + tname + "' contains itself (" +
                                      join(m_stack, " -> ") + " -> " + tname + ")");
            }
            m_stack.push_back(tname);
            if (const config_node* c = t->find("components")) children = *c;
            if (const config_node* c = t->find("connections")) connections = c->items();
        }
        if (const config_node* c = body.find("components")) {
            expect_map(*c, path + ".components");
            children.merge_from(*c);
        }
        if (const config_node* c = body.find("connections")) {
            if (!c->is_seq()) {
                throw input_error(c->loc(), path + ".connections", "expected a list of A -> B");
            }
            for (const auto& i : c->items()) connections.push_back(i);
        }
        // Other keys override children: `mem: {latency: 200ns}`.
        for (const auto& e : body.entries()) {
            if (is_reserved(e.key)) continue;
            config_node* child = children.find(e.key);
            if (child == nullptr) {
                throw input_error(e.key_loc, path + "." + e.key,
                                  "no component '" + e.key + "' in this group" +
                                      did_you_mean(e.key, children.keys()) + "; it has " +
                                      join(children.keys(), ", "));
            }
            expect_map(e.value, path + "." + e.key);
            child->merge_from(e.value);
        }
        m_out.groups.push_back(group_desc{path, loc});
        for (const auto& e : children.entries()) component(path, e.key, e.value, e.key_loc);
        for (const auto& c : connections) add_connection(path, c);
        if (tmpl) m_stack.pop_back();
    }

public:
    void add_connection(const std::string& prefix, const config_node& line) {
        const std::string where = prefix.empty() ? "connections" : prefix + ".connections";
        if (!line.is_scalar()) {
            throw input_error(
                line.loc(), where,
                "a connection is written 'a.out -> b.in', got " + std::string(line.kind_name()));
        }
        const std::string& text = line.scalar();
        std::size_t arrow = text.find("->");
        if (arrow == std::string::npos || text.find("->", arrow + 2) != std::string::npos) {
            throw input_error(line.loc(), where,
                              "'" + text + "': a connection is written 'a.out -> b.in'");
        }
        auto side = [&](std::string s) {
            s.erase(std::remove_if(s.begin(), s.end(),
                                   [](char c) { return std::isspace((unsigned char)c); }),
                    s.end());
            if (s.empty() || s.find('.') == std::string::npos) {
                throw input_error(line.loc(), where,
                                  "'" + text + "': each side names a socket as block.socket");
            }
            return prefix.empty() ? s : prefix + "." + s;
        };
        m_pending.push_back(connection_desc{side(text.substr(0, arrow)),
                                            side(text.substr(arrow + 2)), line.loc(), text});
    }

    // Expands `[*]` over the first instance array named on the line; runs once every
    // instance is known.
    void finish_connections() {
        std::set<std::string> known;
        for (const auto& g : m_out.groups) known.insert(g.path);
        for (const auto& i : m_out.instances) known.insert(i.path);
        for (const auto& c : m_pending) {
            const std::string both = c.from + " " + c.to;
            std::size_t star = both.find("[*]");
            if (star == std::string::npos) {
                m_out.connections.push_back(c);
                continue;
            }
            std::size_t n = 0;
            bool found = false;
            for (std::size_t pos = star; pos != std::string::npos;
                 pos = both.find("[*]", pos + 3)) {
                std::size_t begin = both.rfind(' ', pos);
                begin = begin == std::string::npos ? 0 : begin + 1;
                const std::string array = both.substr(begin, pos - begin);
                while (known.count(array + "[" + std::to_string(n) + "]")) ++n;
                if (n > 0) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                throw input_error(c.loc, "connections",
                                  "'" + c.text +
                                      "': [*] must follow an array of blocks "
                                      "declared with count:");
            }
            for (std::size_t i = 0; i < n; ++i) {
                connection_desc e = c;
                const std::string idx = "[" + std::to_string(i) + "]";
                for (std::string* s : {&e.from, &e.to}) {
                    for (std::size_t p = s->find("[*]"); p != std::string::npos;
                         p = s->find("[*]", p)) {
                        s->replace(p, 3, idx);
                    }
                }
                m_out.connections.push_back(e);
            }
        }
    }

private:
    const registry& m_registry;
    const config_node& m_templates;
    platform_desc& m_out;
    std::vector<std::string> m_stack;
    std::vector<std::size_t> m_indices;  // enclosing array indices, innermost last
    std::vector<connection_desc> m_pending;
};

}  // namespace

bool path_matches(const std::string& pattern, const std::string& path) {
    std::size_t i = 0, j = 0;
    while (i < pattern.size() && j < path.size()) {
        if (pattern.compare(i, 3, "[*]") == 0 && path[j] == '[') {
            std::size_t close = path.find(']', j);
            if (close == std::string::npos) return false;
            i += 3;
            j = close + 1;
        } else if (pattern[i] == path[j]) {
            ++i;
            ++j;
        } else {
            return false;
        }
    }
    return i == pattern.size() && j == path.size();
}

namespace {

// The block pattern of "BLOCK.PARAM" or, for a key inside a param's sub-map, of
// "BLOCK.PARAM.KEY..." (`noc.router.vcs`): the longest prefix before a dot that names a block,
// else the part before the last dot (for the error).
std::size_t block_end(const platform_desc& desc, const std::string& lhs) {
    const std::size_t last = lhs.rfind('.');
    for (std::size_t dot = last; dot != std::string::npos && dot > 0;
         dot = lhs.rfind('.', dot - 1)) {
        const std::string pattern = lhs.substr(0, dot);
        for (const auto& inst : desc.instances) {
            if (path_matches(pattern, inst.path)) return dot;
        }
    }
    return last;
}

void apply_instance_set(platform_desc& desc, const std::string& assignment, const registry& reg) {
    const std::size_t eq = assignment.find('=');
    const std::string lhs = assignment.substr(0, eq);
    const source_loc loc{"--set " + lhs, 0, 0};
    if (lhs.rfind('.') == std::string::npos) {
        throw input_error(loc, lhs,
                          "expected BLOCK.PARAM=VALUE or SECTION.KEY=VALUE (sections: " +
                              join(platform_loader::sections(), ", ") + ")" +
                              did_you_mean(lhs, platform_loader::sections()));
    }
    const std::size_t dot = block_end(desc, lhs);
    const std::string pattern = lhs.substr(0, dot);
    const std::string rest = lhs.substr(dot + 1);
    // A key inside a sub-map: PARAM is what precedes the first '.' or '[' of the rest.
    const std::size_t sub = rest.find_first_of(".[");
    const std::string param = rest.substr(0, sub);
    config_node value = config_node::parse(assignment.substr(eq + 1), "--set " + lhs);
    if (!value.is_seq() && !value.is_map()) {
        value = config_node::scalar_node(assignment.substr(eq + 1), loc);
    }
    bool any = false;
    std::vector<std::string> paths;
    for (auto& inst : desc.instances) {
        paths.push_back(inst.path);
        if (!path_matches(pattern, inst.path)) continue;
        any = true;
        const type_info* t = reg.find(inst.type);
        const param_decl* decl = t->find_param(param);
        if (decl == nullptr) {
            std::vector<std::string> names;
            for (const auto& p : t->params) names.push_back(p.name);
            throw input_error(
                loc, inst.path + "." + param,
                "unknown param of type '" + t->name + "'" + did_you_mean(param, names));
        }
        param_value* current = nullptr;
        for (auto& p : inst.params) {
            if (p.name == param) current = &p;
        }
        config_node set_to = value;
        if (sub != std::string::npos) {
            if (decl->kind != param_kind::GROUP && decl->kind != param_kind::GROUP_LIST) {
                throw input_error(loc, inst.path + "." + rest,
                                  "'" + param + "' is not a map of keys");
            }
            // Set the key inside the configured sub-map (the path syntax of the sections).
            config_node holder = config_node::map_node(loc);
            if (current != nullptr) holder.set(param, current->value, loc);
            holder.apply_set(rest + "=" + assignment.substr(eq + 1));
            set_to = *holder.find(param);
        }
        if (current != nullptr) {
            current->value = set_to;
        } else {
            inst.params.push_back(param_value{param, set_to});
        }
    }
    if (!any) {
        throw input_error(
            loc, lhs, "no block '" + pattern + "' in the platform" + did_you_mean(pattern, paths));
    }
}

}  // namespace

const std::vector<std::string>& platform_loader::sections() { return k_sections; }

platform_desc platform_loader::load(const std::string& path,
                                    const std::vector<std::string>& sets) const {
    return load_document(config_node::load_file(path), path, sets);
}

platform_desc platform_loader::load_document(config_node doc, const std::string& name,
                                             const std::vector<std::string>& sets) const {
    std::vector<std::string> instance_sets;
    for (const auto& s : sets) {
        const std::size_t eq = s.find('=');
        if (eq == std::string::npos || eq == 0) {
            throw input_error(source_loc{"--set", 0, 0}, s, "expected --set path=value");
        }
        const std::string first = s.substr(0, s.find_first_of(".[="));
        if (first == "plugins") {
            throw input_error(source_loc{"--set", 0, 0}, s,
                              "plugins are loaded before --set applies; use --plugin PATH");
        }
        if (std::find(k_sections.begin(), k_sections.end(), first) != k_sections.end()) {
            doc.apply_set(s);
        } else {
            instance_sets.push_back(s);
        }
    }

    platform_desc desc;
    desc.config_path = name;
    if (doc.is_nil()) doc = config_node::map_node(source_loc{name, 1, 1});
    expect_map(doc, "");
    check_keys(doc, "", k_sections, "section");

    if (const config_node* d = doc.find("description")) {
        if (!d->is_scalar()) throw input_error(d->loc(), "description", "expected text");
        desc.description = d->scalar();
    }

    // simulation: declared settings, checked like any IP's params.
    {
        std::vector<param_value> values;
        std::vector<std::string> names;
        for (const auto& p : sim_settings::decls()) names.push_back(p.name);
        if (const config_node* s = doc.find("simulation")) {
            expect_map(*s, "simulation");
            desc.settings_node = *s;
            for (const auto& e : s->entries()) {
                if (std::find(names.begin(), names.end(), e.key) == names.end()) {
                    throw input_error(e.key_loc, "simulation." + e.key,
                                      "unknown setting" + did_you_mean(e.key, names) +
                                          "; settings are " + join(names, ", "));
                }
                values.push_back(param_value{e.key, e.value});
            }
        }
        params p("simulation", values);
        p.set_where(doc.loc());
        p.apply(desc.settings, sim_settings::decls());
        // Statistics reset at or after the end would leave none.
        const sim_settings& st = desc.settings;
        if (st.max_time.ps > 0 && st.warmup.ps >= st.max_time.ps) {
            const config_node* w = desc.settings_node.find("warmup");
            throw input_error(w != nullptr ? w->loc() : doc.loc(), "simulation.warmup",
                              "the warm-up (" + w->scalar() +
                                  ") must end before simulation.max_time (" +
                                  desc.settings_node.find("max_time")->scalar() +
                                  "): statistics would be reset after the run has ended");
        }
    }

    config_node templates = config_node::map_node(doc.loc());
    if (const config_node* t = doc.find("templates")) {
        expect_map(*t, "templates");
        for (const auto& e : t->entries()) {
            const std::string key = "templates." + e.key;
            expect_map(e.value, key);
            check_keys(e.value, key, k_template_keys, "template key");
        }
        templates = *t;
    }

    expander ex(m_registry, templates, desc);
    if (const config_node* c = doc.find("components")) {
        expect_map(*c, "components");
        check_memory(*c, templates, desc.settings);
        for (const auto& e : c->entries()) ex.component("", e.key, e.value, e.key_loc);
    }
    if (const config_node* c = doc.find("connections")) {
        if (!c->is_seq()) throw input_error(c->loc(), "connections", "expected a list of A -> B");
        for (const auto& line : c->items()) ex.add_connection("", line);
    }
    ex.finish_connections();

    // Duplicate paths can arise from a key like node[0] beside an array node.
    std::map<std::string, source_loc> seen;
    for (const auto& i : desc.instances) {
        auto [it, fresh] = seen.emplace(i.path, i.loc);
        if (!fresh) {
            throw input_error(i.loc, i.path,
                              "block declared twice (first at " + it->second.str() + ")");
        }
    }

    for (const auto& s : instance_sets) apply_instance_set(desc, s, m_registry);

    if (const config_node* w = doc.find("workload")) desc.workload = *w;
    return desc;
}

std::string resolved_yaml(const platform_desc& desc, const registry& reg) {
    // A nested document: groups become inline `components:` maps, in the order their first
    // block appears.  The tree is indexed by path and streamed to the emitter: building it as
    // one map node searched by key (yaml-cpp's and config_node's maps are lists) cost
    // O(blocks^2), 16 s of a 16,384-endpoint run's outputs.
    struct entry {
        std::string key;
        int group = -1;                       // a group's index, or
        const instance_desc* inst = nullptr;  // a block
    };
    std::vector<std::vector<entry>> groups(1);  // 0: the top level
    std::unordered_map<std::string, int> group_at;
    for (const auto& i : desc.instances) {
        int cur = 0;
        std::size_t start = 0;
        for (std::size_t dot = i.path.find('.'); dot != std::string::npos;
             dot = i.path.find('.', start)) {
            const auto [it, fresh] =
                group_at.try_emplace(i.path.substr(0, dot), static_cast<int>(groups.size()));
            if (fresh) {
                groups[static_cast<std::size_t>(cur)].push_back(
                    {i.path.substr(start, dot - start), it->second, nullptr});
                groups.emplace_back();
            }
            cur = it->second;
            start = dot + 1;
        }
        groups[static_cast<std::size_t>(cur)].push_back({i.path.substr(start), -1, &i});
    }

    YAML::Emitter out;
    out << YAML::Comment("Fully expanded by trainvp from " + desc.config_path +
                         "; run it as is to reproduce the run.");
    out << YAML::BeginMap;
    if (!desc.description.empty()) {
        out << YAML::Key << "description" << YAML::Value << desc.description;
    }
    const source_loc none;
    out << YAML::Key << "simulation" << YAML::Value << YAML::BeginMap;
    for (const auto& d : sim_settings::decls()) {
        const config_node* given = desc.settings_node.find(d.name);
        out << YAML::Key << d.name << YAML::Value;
        (given ? *given : config_node::scalar_node(d.default_text, none)).emit(out);
    }
    out << YAML::EndMap;
    auto block = [&](const instance_desc& i) {
        out << YAML::BeginMap << YAML::Key << "type" << YAML::Value << i.type;
        for (const auto& d : reg.find(i.type)->params) {
            const config_node* given = nullptr;
            for (const auto& p : i.params) {
                if (p.name == d.name) given = &p.value;
            }
            if (given) {
                out << YAML::Key << d.name << YAML::Value;
                given->emit(out);
            } else if (!d.required) {
                out << YAML::Key << d.name << YAML::Value;
                default_value(d).emit(out);
            }
        }
        out << YAML::EndMap;
    };
    std::function<void(int)> group = [&](int g) {
        out << YAML::BeginMap;
        for (const entry& e : groups[static_cast<std::size_t>(g)]) {
            out << YAML::Key << e.key << YAML::Value;
            if (e.inst != nullptr) {
                block(*e.inst);
            } else {
                out << YAML::BeginMap << YAML::Key << "components" << YAML::Value;
                group(e.group);
                out << YAML::EndMap;
            }
        }
        out << YAML::EndMap;
    };
    out << YAML::Key << "components" << YAML::Value;
    group(0);
    if (!desc.connections.empty()) {
        out << YAML::Key << "connections" << YAML::Value << YAML::BeginSeq;
        for (const auto& c : desc.connections) out << (c.from + " -> " + c.to);
        out << YAML::EndSeq;
    }
    if (!desc.workload.is_nil()) {
        out << YAML::Key << "workload" << YAML::Value;
        desc.workload.emit(out);
    }
    if (!desc.plugins.empty()) {
        out << YAML::Key << "plugins" << YAML::Value << YAML::BeginSeq;
        for (const auto& p : desc.plugins) out << p;
        out << YAML::EndSeq;
    }
    out << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
}

}  // namespace trainvp
