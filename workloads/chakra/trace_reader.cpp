#include "workloads/chakra/trace_reader.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <queue>
#include <set>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "workloads/chakra/et_def.pb.h"

namespace trainvp::chakra {

namespace {

namespace pb = ::trainvp_chakra;

[[noreturn]] void fail(const std::string& file, const std::string& key, const std::string& what) {
    throw input_error(source_loc{file, 0, 0}, key, what);
}

std::string node_key(const et_node& n, const std::string& field) {
    return "node " + std::to_string(n.id) + (field.empty() ? "" : "." + field);
}

const char* value_case_name(pb::AttributeProto::ValueCase c) {
    switch (c) {
        case pb::AttributeProto::kDoubleVal:
            return "double_val";
        case pb::AttributeProto::kInt32Val:
            return "int32_val";
        case pb::AttributeProto::kInt64Val:
            return "int64_val";
        case pb::AttributeProto::kInt64List:
            return "int64_list";
        case pb::AttributeProto::kUint32Val:
            return "uint32_val";
        case pb::AttributeProto::kUint64Val:
            return "uint64_val";
        case pb::AttributeProto::kBoolVal:
            return "bool_val";
        case pb::AttributeProto::kBoolList:
            return "bool_list";
        case pb::AttributeProto::kStringVal:
            return "string_val";
        case pb::AttributeProto::VALUE_NOT_SET:
            break;
    }
    return "no value (or a value type trainvp does not read)";
}

// An integer attribute as Chakra writers store them (int32_val for comm_src/dst/tag, int64_val
// for num_ops/comm_size/comm_type, uint64_val for tensor_size: et_feeder_node.cpp), any of the
// four integer kinds accepted; negative values are refused.
std::uint64_t to_unsigned(const pb::AttributeProto& a, const std::string& file,
                          const std::string& key) {
    std::int64_t v = 0;
    switch (a.value_case()) {
        case pb::AttributeProto::kInt32Val:
            v = a.int32_val();
            break;
        case pb::AttributeProto::kInt64Val:
            v = a.int64_val();
            break;
        case pb::AttributeProto::kUint32Val:
            return a.uint32_val();
        case pb::AttributeProto::kUint64Val:
            return a.uint64_val();
        default:
            fail(file, key,
                 std::string("expected an integer (int32_val, int64_val, uint32_val or "
                             "uint64_val), got ") +
                     value_case_name(a.value_case()));
    }
    if (v < 0) fail(file, key, "must be >= 0, got " + std::to_string(v));
    return static_cast<std::uint64_t>(v);
}

std::uint32_t to_rank_value(const pb::AttributeProto& a, const std::string& file,
                            const std::string& key) {
    const std::uint64_t v = to_unsigned(a, file, key);
    if (v > 0xffffffffull) fail(file, key, "out of range: " + std::to_string(v));
    return static_cast<std::uint32_t>(v);
}

bool known_coll(std::uint64_t v) {
    return v == 0 || v == 1 || v == 2 || v == 5 || v == 6 || v == 7;
}

const char* schema_coll_name(std::uint64_t v) {
    switch (v) {
        case 3:
            return "GATHER";
        case 4:
            return "SCATTER";
        case 8:
            return "REDUCE_SCATTER_BLOCK";
        case 9:
            return "BARRIER";
        default:
            return nullptr;
    }
}

// The length prefix at data[pos]: a varint of at most 5 bytes.  Returns the bytes it took.
std::size_t read_varint32(const std::uint8_t* data, std::size_t size, std::size_t pos,
                          std::uint64_t& value, const std::string& file, const std::string& key) {
    value = 0;
    for (std::size_t i = 0; i < 5; ++i) {
        if (pos + i >= size) {
            fail(file, key,
                 "truncated length prefix at byte " + std::to_string(pos) +
                     ": the file ends inside it");
        }
        const std::uint8_t b = data[pos + i];
        value |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
        if ((b & 0x80) == 0) return i + 1;
    }
    fail(file, key,
         "bad length prefix at byte " + std::to_string(pos) + ": a varint32 of more than 5 bytes");
}

}  // namespace

const char* type_name(node_type t) {
    switch (t) {
        case node_type::METADATA:
            return "METADATA_NODE";
        case node_type::MEM_LOAD:
            return "MEM_LOAD_NODE";
        case node_type::MEM_STORE:
            return "MEM_STORE_NODE";
        case node_type::COMP:
            return "COMP_NODE";
        case node_type::COMM_SEND:
            return "COMM_SEND_NODE";
        case node_type::COMM_RECV:
            return "COMM_RECV_NODE";
        case node_type::COMM_COLL:
            return "COMM_COLL_NODE";
    }
    return "?";
}

const char* coll_name(coll_type t) {
    switch (t) {
        case coll_type::ALL_REDUCE:
            return "ALL_REDUCE";
        case coll_type::REDUCE:
            return "REDUCE";
        case coll_type::ALL_GATHER:
            return "ALL_GATHER";
        case coll_type::BROADCAST:
            return "BROADCAST";
        case coll_type::ALL_TO_ALL:
            return "ALL_TO_ALL";
        case coll_type::REDUCE_SCATTER:
            return "REDUCE_SCATTER";
    }
    return "?";
}

std::string et_node::label() const {
    return "node " + std::to_string(id) + (name.empty() ? "" : " (" + name + ")");
}

et_trace trace_reader::read_file(const std::string& path, const std::string& display, int rank,
                                 int world) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(display, "", "cannot open the trace file");
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                          std::istreambuf_iterator<char>());
    return parse(bytes.data(), bytes.size(), display, rank, world);
}

et_trace trace_reader::parse(const std::uint8_t* data, std::size_t size, const std::string& file,
                             int rank, int world) {
    et_trace t;
    t.file = file;
    t.rank = rank;
    if (size == 0)
        fail(file, "GlobalMetadata", "empty file: a trace starts with its GlobalMetadata");

    std::size_t pos = 0;
    std::size_t index = 0;  // message index in the file
    // One message: its bytes [start, start + len).
    auto next = [&](std::size_t& start, std::size_t& len, const std::string& what) {
        const std::string key = "message " + std::to_string(index) + " (" + what + ")";
        std::uint64_t v = 0;
        pos += read_varint32(data, size, pos, v, file, key);
        if (v > k_max_message) {
            fail(file, key,
                 "length prefix " + std::to_string(v) + " at byte " + std::to_string(pos) +
                     " exceeds the largest message accepted (" + std::to_string(k_max_message) +
                     " B)");
        }
        if (v > size - pos) {
            fail(file, key,
                 "truncated message at byte " + std::to_string(pos) + ": " + std::to_string(v) +
                     " B announced, " + std::to_string(size - pos) + " B left in the file");
        }
        start = pos;
        len = static_cast<std::size_t>(v);
        pos += len;
        ++index;
    };

    // The GlobalMetadata.
    {
        std::size_t start = 0, len = 0;
        next(start, len, "GlobalMetadata");
        pb::GlobalMetadata m;
        if (!m.ParseFromArray(data + start, static_cast<int>(len))) {
            fail(file, "GlobalMetadata",
                 "not a GlobalMetadata message (protobuf parse failed at byte " +
                     std::to_string(start) + ")");
        }
        t.version = m.version();
        for (const pb::AttributeProto& a : m.attr()) {
            const std::string prefix = "pg_ranks.";
            if (a.name().compare(0, prefix.size(), prefix) != 0) continue;
            const std::string key = "GlobalMetadata.attr." + a.name();
            const std::string pg = a.name().substr(prefix.size());
            if (pg.empty()) fail(file, key, "a process group needs a name after 'pg_ranks.'");
            if (a.value_case() != pb::AttributeProto::kInt64List) {
                fail(file, key,
                     std::string("expected int64_list (the group's world ranks), got ") +
                         value_case_name(a.value_case()));
            }
            if (t.groups.count(pg) != 0) fail(file, key, "process group '" + pg + "' given twice");
            std::vector<int> ranks;
            std::set<std::int64_t> seen;
            for (std::int64_t r : a.int64_list().values()) {
                if (r < 0 || r >= world) {
                    fail(file, key,
                         "rank " + std::to_string(r) + " is not a rank of the job (0.." +
                             std::to_string(world - 1) + ")");
                }
                if (!seen.insert(r).second) {
                    fail(file, key, "rank " + std::to_string(r) + " listed twice");
                }
                ranks.push_back(static_cast<int>(r));
            }
            if (ranks.empty()) fail(file, key, "an empty process group");
            t.groups[pg] = std::move(ranks);
        }
    }

    // The nodes.
    std::vector<et_node> nodes;
    std::unordered_map<std::uint64_t, std::size_t> by_id;
    while (pos < size) {
        const std::size_t at = pos;
        std::size_t start = 0, len = 0;
        next(start, len, "Node");
        pb::Node m;
        if (!m.ParseFromArray(data + start, static_cast<int>(len))) {
            fail(file, "message " + std::to_string(index - 1) + " (Node)",
                 "not a Node message (protobuf parse failed at byte " + std::to_string(at) + ")");
        }
        et_node n;
        n.id = m.id();
        n.name = m.name();
        n.offset = at;
        const int type = static_cast<int>(m.type());
        if (type < 1 || type > 7) {
            fail(file, node_key(n, "type"),
                 type == 0 ? std::string("INVALID_NODE is not a node type trainvp can run")
                           : "unknown node type " + std::to_string(type) +
                                 " (Chakra's are METADATA_NODE 1 .. COMM_COLL_NODE 7)");
        }
        n.type = static_cast<node_type>(type);
        if (!by_id.emplace(n.id, nodes.size()).second) {
            fail(file, node_key(n, "id"),
                 "duplicate id (the node at byte " + std::to_string(nodes[by_id[n.id]].offset) +
                     " has it too)");
        }
        n.ctrl_deps.assign(m.ctrl_deps().begin(), m.ctrl_deps().end());
        n.data_deps.assign(m.data_deps().begin(), m.data_deps().end());
        n.duration_micros = m.duration_micros();
        if (n.duration_micros > k_max_duration_micros) {
            fail(file, node_key(n, "duration_micros"),
                 std::to_string(n.duration_micros) + " us is more than the largest accepted (" +
                     std::to_string(k_max_duration_micros) + " us)");
        }
        std::optional<std::uint64_t> comm_type;
        for (const pb::AttributeProto& a : m.attr()) {
            const std::string& an = a.name();
            const std::string key = node_key(n, an);
            if (an == "is_cpu_op") {
                if (a.value_case() != pb::AttributeProto::kBoolVal) {
                    fail(file, key,
                         std::string("expected bool_val, got ") + value_case_name(a.value_case()));
                }
                n.is_cpu_op = a.bool_val();
            } else if (an == "num_ops") {
                n.num_ops = to_unsigned(a, file, key);
            } else if (an == "tensor_size") {
                n.tensor_size = to_unsigned(a, file, key);
            } else if (an == "comm_type") {
                comm_type = to_unsigned(a, file, key);
            } else if (an == "comm_size") {
                n.comm_size = to_unsigned(a, file, key);
            } else if (an == "comm_src") {
                n.comm_src = to_rank_value(a, file, key);
            } else if (an == "comm_dst") {
                n.comm_dst = to_rank_value(a, file, key);
            } else if (an == "comm_tag") {
                n.comm_tag = to_rank_value(a, file, key);
                if (n.comm_tag >= 0x80000000u) {
                    fail(file, key,
                         "tag " + std::to_string(n.comm_tag) +
                             " >= 2^31 (the tags above are trainvp's collectives')");
                }
            } else if (an == "root") {
                n.root = to_rank_value(a, file, key);
            } else if (an == "pg_name") {
                if (a.value_case() != pb::AttributeProto::kStringVal) {
                    fail(
                        file, key,
                        std::string("expected string_val, got ") + value_case_name(a.value_case()));
                }
                n.pg_name = a.string_val();
            }
        }

        // What each type needs.
        const bool timed = n.duration_micros > 0;
        auto require = [&](bool present, const char* field, const std::string& why) {
            if (!present) {
                fail(file, node_key(n, field),
                     std::string("missing attribute of a ") + type_name(n.type) + " (" + why + ")");
            }
        };
        auto check_peer = [&](std::uint32_t peer, const char* field) {
            if (static_cast<std::int64_t>(peer) >= world) {
                fail(file, node_key(n, field),
                     "rank " + std::to_string(peer) + " is not a rank of the job (0.." +
                         std::to_string(world - 1) + ")");
            }
            if (static_cast<int>(peer) == rank) {
                fail(file, node_key(n, field),
                     "rank " + std::to_string(peer) + " is this trace's own rank");
            }
        };
        auto check_size = [&](bool collective) {
            require(n.comm_size.has_value(), "comm_size", "the message's bytes");
            if (*n.comm_size == 0) fail(file, node_key(n, "comm_size"), "must be > 0 bytes");
            if (collective && *n.comm_size % 4 != 0) {
                fail(file, node_key(n, "comm_size"),
                     std::to_string(*n.comm_size) +
                         " B is not a whole number of 4-byte elements (collectives move fp32)");
            }
        };
        switch (n.type) {
            case node_type::METADATA:
                break;
            case node_type::COMP:
                require(timed || n.num_ops.has_value(), "num_ops",
                        "its FLOPs, when it has no duration_micros");
                break;
            case node_type::MEM_LOAD:
            case node_type::MEM_STORE:
                require(timed || n.tensor_size.has_value(), "tensor_size",
                        "its bytes, when it has no duration_micros");
                break;
            case node_type::COMM_SEND:
                require(n.comm_dst.has_value(), "comm_dst", "the receiving rank");
                check_peer(*n.comm_dst, "comm_dst");
                check_size(false);
                break;
            case node_type::COMM_RECV:
                require(n.comm_src.has_value(), "comm_src", "the sending rank");
                check_peer(*n.comm_src, "comm_src");
                check_size(false);
                break;
            case node_type::COMM_COLL: {
                require(comm_type.has_value(), "comm_type", "the collective");
                if (!known_coll(*comm_type)) {
                    const char* sn = schema_coll_name(*comm_type);
                    fail(file, node_key(n, "comm_type"),
                         sn != nullptr
                             ? std::string(sn) +
                                   " is not a collective trainvp runs (ALL_REDUCE, REDUCE, "
                                   "ALL_GATHER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER)"
                             : "unknown collective type " + std::to_string(*comm_type));
                }
                n.comm_type = static_cast<coll_type>(*comm_type);
                check_size(true);
                std::size_t members = static_cast<std::size_t>(world);
                if (!n.pg_name.empty()) {
                    const auto g = t.groups.find(n.pg_name);
                    if (g == t.groups.end()) {
                        fail(file, node_key(n, "pg_name"),
                             "no process group '" + n.pg_name +
                                 "' in the GlobalMetadata (attribute pg_ranks." + n.pg_name + ")");
                    }
                    if (std::find(g->second.begin(), g->second.end(), rank) == g->second.end()) {
                        fail(file, node_key(n, "pg_name"),
                             "rank " + std::to_string(rank) + " is not in process group '" +
                                 n.pg_name + "'");
                    }
                    members = g->second.size();
                }
                if (n.root >= members) {
                    fail(file, node_key(n, "root"),
                         "group rank " + std::to_string(n.root) + " is not in a group of " +
                             std::to_string(members));
                }
                break;
            }
        }
        nodes.push_back(std::move(n));
    }

    // Dependencies: every one in the trace, and no cycle (Kahn's algorithm; ties in file order).
    const std::size_t count = nodes.size();
    std::vector<std::vector<std::size_t>> users(count);
    std::vector<std::size_t> waiting(count, 0);
    for (std::size_t i = 0; i < count; ++i) {
        for (const auto* deps : {&nodes[i].ctrl_deps, &nodes[i].data_deps}) {
            const char* field = deps == &nodes[i].ctrl_deps ? "ctrl_deps" : "data_deps";
            for (std::uint64_t d : *deps) {
                const auto it = by_id.find(d);
                if (it == by_id.end()) {
                    fail(file, node_key(nodes[i], field),
                         "node " + std::to_string(d) + " is not in the trace");
                }
                users[it->second].push_back(i);
                ++waiting[i];
            }
        }
    }
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t i = 0; i < count; ++i) {
        if (waiting[i] == 0) ready.push(i);
    }
    std::vector<std::size_t> order;
    order.reserve(count);
    while (!ready.empty()) {
        const std::size_t i = ready.top();
        ready.pop();
        order.push_back(i);
        for (std::size_t u : users[i]) {
            if (--waiting[u] == 0) ready.push(u);
        }
    }
    if (order.size() != count) {
        // The first node left (in file order) and up to 8 others on or behind the cycle.
        std::string left;
        std::size_t first = count, shown = 0;
        for (std::size_t i = 0; i < count; ++i) {
            if (waiting[i] == 0) continue;
            if (first == count) first = i;
            if (shown < 8) left += (shown++ ? ", " : "") + std::to_string(nodes[i].id);
        }
        const bool data = !nodes[first].data_deps.empty();
        fail(file, node_key(nodes[first], data ? "data_deps" : "ctrl_deps"),
             "a dependency cycle: nodes " + left + " wait for each other");
    }
    t.nodes.reserve(count);
    for (std::size_t i : order) t.nodes.push_back(std::move(nodes[i]));
    return t;
}

}  // namespace trainvp::chakra
