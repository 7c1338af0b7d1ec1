#include "workloads/ops/op_parser.h"

#include <cmath>
#include <map>
#include <unordered_map>

#include "core/did_you_mean.h"
#include "core/hex_integer.h"
#include "core/param_decl.h"
#include "core/tos.h"

namespace trainvp::ops {

namespace {

enum class field_type { REAL, SIZE, ADDRESS, NODE, TAG, TOS, INPUTS, TIME };

struct field {
    const char* name;
    field_type type;
    bool required;
    const char* description;  // shown when a required field is missing
};

// The kind-specific keys of each op kind, in the order messages list them.
const std::vector<field>& fields_of(op_kind k) {
    static const std::map<op_kind, std::vector<field>> table = {
        {op_kind::COMPUTE,
         {{"flops", field_type::REAL, true, "floating-point operations, e.g. 1.2e9"},
          {"bytes", field_type::SIZE, false, "bytes of memory traffic"},
          {"address", field_type::ADDRESS, false, "host address of the data"}}},
        {op_kind::GPU_COMPUTE,
         {{"flops", field_type::REAL, true, "floating-point operations, e.g. 1.2e9"},
          {"bytes", field_type::SIZE, false, "bytes of accelerator-memory traffic"}}},
        {op_kind::COPY_TO_HOST,
         {{"bytes", field_type::SIZE, true, "bytes to copy"},
          {"address", field_type::ADDRESS, false, "host address of the buffer"}}},
        {op_kind::COPY_TO_GPU,
         {{"bytes", field_type::SIZE, true, "bytes to copy"},
          {"address", field_type::ADDRESS, false, "host address of the buffer"}}},
        {op_kind::SUM,
         {{"bytes", field_type::SIZE, true, "bytes of each fp32 buffer"},
          {"inputs", field_type::INPUTS, false, "buffers summed into one"},
          {"address", field_type::ADDRESS, false, "host address of the buffers"}}},
        {op_kind::UPDATE,
         {{"bytes", field_type::SIZE, true, "bytes of fp32 weights"},
          {"address", field_type::ADDRESS, false, "host address of the weights"}}},
        {op_kind::SEND,
         {{"to", field_type::NODE, true, "destination node id"},
          {"bytes", field_type::SIZE, true, "message payload bytes"},
          {"tag", field_type::TAG, false, "tag the receiver matches"},
          {"tos", field_type::TOS, false, "IP ToS of the message's frames"},
          {"address", field_type::ADDRESS, false, "host address of the payload"}}},
        {op_kind::RECV,
         {{"from", field_type::NODE, true, "source node id"},
          {"bytes", field_type::SIZE, true, "message payload bytes"},
          {"tag", field_type::TAG, false, "tag of the message to match"},
          {"address", field_type::ADDRESS, false, "host address of the buffer"}}},
        {op_kind::DELAY, {{"time", field_type::TIME, true, "how long the op takes, e.g. 10us"}}},
        {op_kind::ALLREDUCE,
         {{"bytes", field_type::SIZE, true, "bytes of fp32 gradients to all-reduce"},
          {"address", field_type::ADDRESS, false, "host address of the gradients"},
          {"tag", field_type::TAG, false, "a label for the request"}}},
    };
    return table.at(k);
}

const std::vector<std::string> k_common_keys = {"op", "name", "after", "unit", "phase"};

param_decl decl(param_kind k, const std::string& lo, const std::string& hi) {
    param_decl d;
    d.kind = k;
    param_builder(d).range(lo, hi);
    return d;
}

class parser {
public:
    parser(const config_node& list, const std::string& key) : m_list(list), m_key(key) {}

    op_list run() {
        if (!m_list.is_seq()) {
            throw input_error(m_list.loc(), m_key,
                              std::string("expected a list of ops, got ") + m_list.kind_name());
        }
        std::vector<op> out;
        out.reserve(m_list.items().size());
        for (std::size_t i = 0; i < m_list.items().size(); ++i) {
            out.push_back(parse_one(m_list.items()[i], i, out));
            if (!out.back().name.empty()) m_named.emplace(out.back().name, i);
        }
        return op_list(std::move(out));
    }

private:
    std::string item_key(std::size_t i) const { return m_key + "[" + std::to_string(i) + "]"; }

    op parse_one(const config_node& item, std::size_t index, const std::vector<op>& earlier) {
        const std::string key = item_key(index);
        if (!item.is_map()) {
            throw input_error(
                item.loc(), key,
                std::string("expected an op (a map with `op:`), got ") + item.kind_name());
        }
        op o;
        o.where = item.loc();
        o.key = key;

        const config_node::entry* kind_entry = item.find_entry("op");
        if (kind_entry == nullptr) {
            throw input_error(item.loc(), key + ".op",
                              "missing the op kind; ops are " + join(kind_names()));
        }
        o.kind = parse_kind(kind_entry->value, key + ".op");

        // Every key must belong to this kind before any value is read, so that a misspelt key
        // is reported as such rather than as a missing required one.
        const std::vector<std::string> allowed = keys_of(o.kind);
        for (const auto& e : item.entries()) {
            bool known = false;
            for (const auto& a : allowed) known = known || a == e.key;
            if (!known) {
                throw input_error(e.key_loc, key + "." + e.key,
                                  std::string("unknown key of a ") + kind_name(o.kind) + " op" +
                                      did_you_mean(e.key, allowed) + "; its keys are " +
                                      join(allowed));
            }
        }

        o.unit = allowed_units(o.kind).front();
        if (const config_node* u = item.find("unit"))
            o.unit = parse_unit(*u, o.kind, key + ".unit");
        if (const config_node* n = item.find("name"))
            o.name = parse_name(*n, key + ".name", earlier);
        if (const config_node* ph = item.find("phase")) o.phase = parse_phase(*ph, key + ".phase");

        for (const field& f : fields_of(o.kind)) {
            const config_node* v = item.find(f.name);
            const std::string fkey = key + "." + f.name;
            if (v == nullptr) {
                if (f.required) {
                    throw input_error(item.loc(), fkey,
                                      std::string("missing required key of a ") +
                                          kind_name(o.kind) + " op (" + f.description + ")");
                }
                continue;
            }
            read_field(f, *v, fkey, o);
        }
        if ((o.kind == op_kind::SUM || o.kind == op_kind::UPDATE || o.kind == op_kind::ALLREDUCE) &&
            o.bytes % 4 != 0) {
            const config_node* v = item.find("bytes");
            throw input_error(v->loc(), key + ".bytes",
                              "'" + v->scalar() + "' is not a whole number of fp32 values (" +
                                  std::to_string(o.bytes) + " bytes is not a multiple of 4)");
        }
        if (const config_node* a = item.find("after")) {
            o.after = parse_after(*a, key + ".after", index, o.name, earlier);
        }
        return o;
    }

    op_kind parse_kind(const config_node& v, const std::string& key) const {
        if (!v.is_scalar()) {
            throw input_error(v.loc(), key,
                              std::string("expected an op kind, got ") + v.kind_name() +
                                  "; ops are " + join(kind_names()));
        }
        const std::vector<std::string> names = kind_names();
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (names[i] == v.scalar()) return static_cast<op_kind>(i);
        }
        throw input_error(v.loc(), key,
                          "unknown op kind '" + v.scalar() + "'" + did_you_mean(v.scalar(), names) +
                              "; ops are " + join(names));
    }

    op_phase parse_phase(const config_node& v, const std::string& key) const {
        const std::vector<std::string> names = phase_names();
        if (v.is_scalar()) {
            for (std::size_t i = 0; i < names.size(); ++i) {
                if (names[i] == v.scalar()) return static_cast<op_phase>(i);
            }
        }
        const std::string what =
            v.is_scalar() ? "unknown phase '" + v.scalar() + "'" + did_you_mean(v.scalar(), names)
                          : std::string("expected a phase, got ") + v.kind_name();
        throw input_error(v.loc(), key, what + "; phases are " + join(names));
    }

    op_unit parse_unit(const config_node& v, op_kind k, const std::string& key) const {
        std::vector<std::string> ok;
        for (op_unit u : allowed_units(k)) ok.push_back(unit_name(u));
        const std::string runs_on =
            std::string("a ") + kind_name(k) + " op runs on " + join(ok, " or ");
        if (!v.is_scalar()) {
            throw input_error(
                v.loc(), key,
                std::string("expected a unit, got ") + v.kind_name() + "; " + runs_on);
        }
        const std::string& t = v.scalar();
        const std::vector<std::string> all = unit_names();
        for (std::size_t i = 0; i < all.size(); ++i) {
            if (all[i] != t) continue;
            for (op_unit u : allowed_units(k)) {
                if (u == static_cast<op_unit>(i)) return u;
            }
            throw input_error(v.loc(), key, "'" + t + "' is not a unit for this op; " + runs_on);
        }
        throw input_error(v.loc(), key,
                          "unknown unit '" + t + "'" + did_you_mean(t, all) + "; " + runs_on);
    }

    std::string parse_name(const config_node& v, const std::string& key,
                           const std::vector<op>& earlier) const {
        if (!v.is_scalar() || v.scalar().empty()) {
            throw input_error(v.loc(), key, std::string("expected a name, got ") + v.kind_name());
        }
        // Names are looked up in m_named: generated lists have thousands of ops per node.
        const auto it = m_named.find(v.scalar());
        if (it != m_named.end()) {
            const std::size_t i = it->second;
            throw input_error(v.loc(), key,
                              "duplicate op name '" + v.scalar() + "' (op [" + std::to_string(i) +
                                  "] at " + earlier[i].where.str() + " has it)");
        }
        return v.scalar();
    }

    void read_field(const field& f, const config_node& v, const std::string& key, op& o) const {
        switch (f.type) {
            case field_type::REAL: {
                static const param_decl d = decl(param_kind::REAL, "0", "1e24");
                o.flops = param_parse::to_real(v, d, key);
                break;
            }
            case field_type::SIZE: {
                static const param_decl d = decl(param_kind::SIZE, "0B", "16TiB");
                o.bytes = param_parse::to_size(v, d, key).bytes;
                break;
            }
            case field_type::ADDRESS: {
                static const param_decl d = decl(param_kind::SIZE, "0B", "16TiB");
                std::uint64_t hex = 0;
                if (v.is_scalar() && parse_hex_integer(v.scalar(), hex)) {
                    o.address = hex;
                } else {
                    o.address = param_parse::to_size(v, d, key).bytes;
                }
                break;
            }
            case field_type::NODE: {
                static const param_decl d = decl(param_kind::INT, "0", "2^20");
                o.peer = static_cast<std::uint32_t>(param_parse::to_int(v, d, key));
                break;
            }
            case field_type::TAG: {
                static const param_decl d = decl(param_kind::INT, "0", "4294967295");
                o.tag = static_cast<std::uint32_t>(param_parse::to_int(v, d, key));
                break;
            }
            case field_type::TOS:
                o.tos = parse_tos(v, key);
                break;
            case field_type::INPUTS: {
                static const param_decl d = decl(param_kind::INT, "2", "1024");
                o.inputs = static_cast<std::uint32_t>(param_parse::to_int(v, d, key));
                break;
            }
            case field_type::TIME: {
                static const param_decl d = decl(param_kind::TIME, "0s", "1e6s");
                o.delay_ps = param_parse::to_time(v, d, key).ps;
                break;
            }
        }
    }

    // The index of the op named `name` among the items after `index`, or npos.
    std::size_t later_named(const std::string& name, std::size_t index) const {
        for (std::size_t j = index + 1; j < m_list.items().size(); ++j) {
            const config_node& it = m_list.items()[j];
            if (!it.is_map()) continue;
            const config_node* n = it.find("name");
            if (n != nullptr && n->is_scalar() && n->scalar() == name) return j;
        }
        return op_list::npos;
    }

    std::size_t resolve(const config_node& v, const std::string& key, std::size_t index,
                        const std::string& own, const std::vector<op>& earlier) const {
        if (!v.is_scalar()) {
            throw input_error(
                v.loc(), key,
                std::string("expected the name of an earlier op, got ") + v.kind_name());
        }
        const std::string& name = v.scalar();
        const auto it = m_named.find(name);
        if (it != m_named.end()) return it->second;
        // Not found: the names for the did-you-mean.
        std::vector<std::string> names;
        for (const op& e : earlier) {
            if (!e.name.empty()) names.push_back(e.name);
        }
        if (!own.empty() && own == name) {
            throw input_error(v.loc(), key, "op '" + name + "' cannot wait for itself");
        }
        const std::size_t later = later_named(name, index);
        if (later != op_list::npos) {
            throw input_error(v.loc(), key,
                              "op '" + name + "' is op [" + std::to_string(later) +
                                  "], after this one; an op may only wait for ops listed "
                                  "before it");
        }
        throw input_error(v.loc(), key,
                          "no op named '" + name + "' before this one" + did_you_mean(name, names));
    }

    std::vector<std::size_t> parse_after(const config_node& v, const std::string& key,
                                         std::size_t index, const std::string& own,
                                         const std::vector<op>& earlier) const {
        std::vector<std::size_t> out;
        if (v.is_scalar()) {
            out.push_back(resolve(v, key, index, own, earlier));
        } else if (v.is_seq()) {
            for (std::size_t i = 0; i < v.items().size(); ++i) {
                const std::size_t d =
                    resolve(v.items()[i], key + "[" + std::to_string(i) + "]", index, own, earlier);
                bool dup = false;
                for (std::size_t x : out) dup = dup || x == d;
                if (!dup) out.push_back(d);
            }
        } else {
            throw input_error(
                v.loc(), key,
                std::string("expected an op name or a list of them, got ") + v.kind_name());
        }
        return out;
    }

    const config_node& m_list;
    std::string m_key;
    std::unordered_map<std::string, std::size_t> m_named;  // name -> index of the ops so far
};

}  // namespace

std::vector<std::string> keys_of(op_kind k) {
    std::vector<std::string> keys = k_common_keys;
    for (const field& f : fields_of(k)) keys.push_back(f.name);
    return keys;
}

op_list parse_ops(const config_node& list, const std::string& key) {
    return parser(list, key).run();
}

}  // namespace trainvp::ops
