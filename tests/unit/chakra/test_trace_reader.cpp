// The trace reader: framing, node types, attributes, dependencies, and every error's file,
// node and field.
#include <gtest/gtest.h>

#include "core/error.h"
#include "tests/unit/chakra/trace_builder.h"
#include "workloads/chakra/trace_reader.h"

namespace trainvp {
namespace {

using chakra::trace_reader;
using test::trace_builder;

chakra::et_trace parse(const std::vector<std::uint8_t>& b, int rank = 0, int world = 4) {
    return trace_reader::parse(b.data(), b.size(), "t.0.et", rank, world);
}

std::string error_of(const std::vector<std::uint8_t>& b, int rank = 0, int world = 4) {
    try {
        parse(b, rank, world);
    } catch (const input_error& e) {
        return e.what();
    }
    return "no error";
}

TEST(chakra_reader, nodes_come_after_their_dependencies_ties_in_file_order) {
    trace_builder t;
    t.comp(5, 100, {7});
    t.comp(7, 200);
    t.comp(1, 300);
    t.coll(9, trainvp_chakra::ALL_REDUCE, 4096, {5, 1});
    const chakra::et_trace r = parse(t.bytes());
    ASSERT_EQ(r.nodes.size(), 4u);
    EXPECT_EQ(r.nodes[0].id, 7u);  // node 5 waits for it; node 7 is first ready in file order
    EXPECT_EQ(r.nodes[1].id, 5u);  // ready once 7 is taken, and before 1 in the file
    EXPECT_EQ(r.nodes[2].id, 1u);
    EXPECT_EQ(r.nodes[3].id, 9u);
    EXPECT_EQ(*r.nodes[3].comm_size, 4096u);
    EXPECT_EQ(*r.nodes[3].comm_type, chakra::coll_type::ALL_REDUCE);
    EXPECT_EQ(*r.nodes[1].num_ops, 100u);
    EXPECT_TRUE(r.nodes[1].is_cpu_op);
}

TEST(chakra_reader, process_groups_come_from_the_metadata) {
    trace_builder t;
    t.group("tp0", {0, 1}).group("dp0", {0, 2});
    t.coll(1, trainvp_chakra::ALL_GATHER, 64, {}, "tp0");
    const chakra::et_trace r = parse(t.bytes());
    EXPECT_EQ(r.groups.at("tp0"), (std::vector<int>{0, 1}));
    EXPECT_EQ(r.groups.at("dp0"), (std::vector<int>{0, 2}));
    EXPECT_EQ(r.nodes[0].pg_name, "tp0");
}

TEST(chakra_reader, framing_errors_name_the_message_and_byte) {
    EXPECT_EQ(error_of({}),
              "t.0.et: error: GlobalMetadata: empty file: a trace starts with its GlobalMetadata");
    std::vector<std::uint8_t> b = trace_builder().bytes();
    b.insert(b.end(), {0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
    EXPECT_EQ(error_of(b),
              "t.0.et: error: message 1 (Node): bad length prefix at byte 1: a varint32 of more "
              "than 5 bytes");
    b = trace_builder().bytes();
    b.insert(b.end(), {40, 0x08, 0x01});
    EXPECT_EQ(error_of(b),
              "t.0.et: error: message 1 (Node): truncated message at byte 2: 40 B announced, 2 B "
              "left in the file");
    b = trace_builder().bytes();
    b.insert(b.end(), {0x80});
    EXPECT_EQ(error_of(b),
              "t.0.et: error: message 1 (Node): truncated length prefix at byte 1: the file ends "
              "inside it");
}

TEST(chakra_reader, node_errors_name_the_node_and_field) {
    {
        trace_builder t;
        t.node(3, static_cast<trainvp_chakra::NodeType>(12));
        EXPECT_EQ(error_of(t.bytes()),
                  "t.0.et: error: node 3.type: unknown node type 12 (Chakra's are "
                  "METADATA_NODE 1 .. COMM_COLL_NODE 7)");
    }
    {
        trace_builder t;
        t.comp(1, 5, {8});
        EXPECT_EQ(error_of(t.bytes()),
                  "t.0.et: error: node 1.data_deps: node 8 is not in the trace");
    }
    {
        trace_builder t;
        t.comp(1, 5, {2});
        t.comp(2, 5, {1});
        EXPECT_EQ(error_of(t.bytes()),
                  "t.0.et: error: node 1.data_deps: a dependency cycle: nodes 1, 2 wait for each "
                  "other");
    }
    {
        trace_builder t;
        t.node(4, trainvp_chakra::COMP_NODE);
        EXPECT_EQ(error_of(t.bytes()),
                  "t.0.et: error: node 4.num_ops: missing attribute of a COMP_NODE (its FLOPs, "
                  "when it has no duration_micros)");
    }
    {
        trace_builder t;
        t.coll(2, trainvp_chakra::ALL_REDUCE, 1002);
        EXPECT_EQ(error_of(t.bytes()),
                  "t.0.et: error: node 2.comm_size: 1002 B is not a whole number of 4-byte "
                  "elements (collectives move fp32)");
    }
    {
        trace_builder t;
        auto& n = t.node(6, trainvp_chakra::COMM_SEND_NODE);
        trace_builder::attr_i32(n, "comm_dst", 4);
        trace_builder::attr_i64(n, "comm_size", 8);
        EXPECT_EQ(error_of(t.bytes()),
                  "t.0.et: error: node 6.comm_dst: rank 4 is not a rank of the job (0..3)");
    }
    {
        trace_builder t;
        t.coll(2, trainvp_chakra::BARRIER, 64);
        EXPECT_EQ(error_of(t.bytes()),
                  "t.0.et: error: node 2.comm_type: BARRIER is not a collective trainvp runs "
                  "(ALL_REDUCE, REDUCE, ALL_GATHER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER)");
    }
    {
        trace_builder t;
        t.group("tp1", {1, 2});
        t.coll(2, trainvp_chakra::ALL_GATHER, 64, {}, "tp1");
        EXPECT_EQ(error_of(t.bytes()),
                  "t.0.et: error: node 2.pg_name: rank 0 is not in process group 'tp1'");
    }
}

}  // namespace
}  // namespace trainvp
