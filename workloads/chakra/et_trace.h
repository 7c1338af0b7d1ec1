// One rank's Chakra execution trace as trainvp reads it (trace_reader.h): the nodes with the
// attributes trainvp maps onto ops, checked and in an order where every node follows the nodes
// it depends on.  Pure C++ (no SystemC, no protobuf in this header).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trainvp::chakra {

// Chakra's NodeType values (schema/protobuf/et_def.proto).
enum class node_type : std::uint8_t {
    METADATA = 1,
    MEM_LOAD = 2,
    MEM_STORE = 3,
    COMP = 4,
    COMM_SEND = 5,
    COMM_RECV = 6,
    COMM_COLL = 7,
};

// Chakra's CollectiveCommType values that trainvp runs (a schedule of the collective registry
// leaves this result); GATHER, SCATTER, REDUCE_SCATTER_BLOCK and BARRIER are refused.
enum class coll_type : std::uint8_t {
    ALL_REDUCE = 0,
    REDUCE = 1,
    ALL_GATHER = 2,
    BROADCAST = 5,
    ALL_TO_ALL = 6,
    REDUCE_SCATTER = 7,
};

// "COMP_NODE", "COMM_COLL_NODE", ... and "ALL_REDUCE", ... as the schema spells them.
const char* type_name(node_type t);
const char* coll_name(coll_type t);

struct et_node {
    std::uint64_t id = 0;
    std::string name;
    node_type type = node_type::COMP;
    std::vector<std::uint64_t> ctrl_deps;
    std::vector<std::uint64_t> data_deps;
    std::uint64_t duration_micros = 0;  // 0: not given
    std::uint64_t offset = 0;           // byte offset of its message in the file (for messages)

    // Attributes, those trainvp reads (et_feeder_node.cpp's names), when present.
    bool is_cpu_op = false;
    std::optional<std::uint64_t> num_ops;      // COMP: FLOPs
    std::optional<std::uint64_t> tensor_size;  // COMP, MEM_*: bytes
    std::optional<coll_type> comm_type;        // COMM_COLL
    std::optional<std::uint64_t> comm_size;    // COMM_*: bytes
    std::optional<std::uint32_t> comm_src;     // COMM_RECV: the sending rank
    std::optional<std::uint32_t> comm_dst;     // COMM_SEND: the receiving rank
    std::uint32_t comm_tag = 0;                // COMM_SEND/RECV: matching tag
    std::string pg_name;                       // COMM_COLL: the process group ("": every rank)
    std::uint32_t root = 0;                    // BROADCAST, REDUCE: root (a group rank)

    // "node 12 (fc1_fwd)" or "node 12".
    std::string label() const;
};

struct et_trace {
    std::string file;     // as named in messages
    int rank = 0;         // the rank this file is (PREFIX.<rank>.et)
    std::string version;  // GlobalMetadata.version
    // Process groups from the GlobalMetadata (attributes `pg_ranks.<pg_name>`, an int64_list of
    // world ranks): trainvp's convention, since Chakra's schema has no field for them.
    std::map<std::string, std::vector<int>> groups;
    // The nodes in an order where each follows its dependencies (Kahn's algorithm, ties by
    // position in the file).
    std::vector<et_node> nodes;
};

}  // namespace trainvp::chakra
