// Writes Chakra traces in memory for the tests: GlobalMetadata then Node messages, each
// prefixed by its varint32 length (trace_reader.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "workloads/chakra/et_def.pb.h"

namespace trainvp::test {

inline void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<std::uint8_t>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<std::uint8_t>(v));
}

class trace_builder {
public:
    trace_builder& group(const std::string& name, std::initializer_list<std::int64_t> ranks) {
        auto* a = m_meta.add_attr();
        a->set_name("pg_ranks." + name);
        for (auto r : ranks) a->mutable_int64_list()->add_values(r);
        return *this;
    }
    trainvp_chakra::Node& node(std::uint64_t id, trainvp_chakra::NodeType type,
                               std::initializer_list<std::uint64_t> deps = {}) {
        auto& n = m_nodes.emplace_back();
        n.set_id(id);
        n.set_type(type);
        for (auto d : deps) n.add_data_deps(d);
        return n;
    }
    static void attr_i64(trainvp_chakra::Node& n, const std::string& name, std::int64_t v) {
        auto* a = n.add_attr();
        a->set_name(name);
        a->set_int64_val(v);
    }
    static void attr_i32(trainvp_chakra::Node& n, const std::string& name, std::int32_t v) {
        auto* a = n.add_attr();
        a->set_name(name);
        a->set_int32_val(v);
    }
    static void attr_str(trainvp_chakra::Node& n, const std::string& name, const std::string& v) {
        auto* a = n.add_attr();
        a->set_name(name);
        a->set_string_val(v);
    }
    trainvp_chakra::Node& comp(std::uint64_t id, std::int64_t flops,
                               std::initializer_list<std::uint64_t> deps = {}) {
        auto& n = node(id, trainvp_chakra::COMP_NODE, deps);
        attr_i64(n, "num_ops", flops);
        auto* c = n.add_attr();
        c->set_name("is_cpu_op");
        c->set_bool_val(true);
        return n;
    }
    trainvp_chakra::Node& coll(std::uint64_t id, trainvp_chakra::CollectiveCommType t,
                               std::int64_t bytes, std::initializer_list<std::uint64_t> deps = {},
                               const std::string& pg = "") {
        auto& n = node(id, trainvp_chakra::COMM_COLL_NODE, deps);
        attr_i64(n, "comm_type", t);
        attr_i64(n, "comm_size", bytes);
        if (!pg.empty()) attr_str(n, "pg_name", pg);
        return n;
    }
    std::vector<std::uint8_t> bytes() const {
        std::vector<std::uint8_t> out;
        auto put = [&](const google::protobuf::Message& m) {
            const std::string s = m.SerializeAsString();
            put_varint(out, s.size());
            out.insert(out.end(), s.begin(), s.end());
        };
        put(m_meta);
        for (const auto& n : m_nodes) put(n);
        return out;
    }

private:
    trainvp_chakra::GlobalMetadata m_meta;
    std::vector<trainvp_chakra::Node> m_nodes;
};

}  // namespace trainvp::test
