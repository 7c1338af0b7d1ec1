// A job's traces onto host op lists: op counts and sizes against the schedules' closed forms,
// dependencies, peers through the node ids, tags that never collide, and the cross-rank checks.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "tests/unit/chakra/trace_builder.h"
#include "workloads/chakra/trace_ops.h"
#include "workloads/chakra/trace_reader.h"

namespace trainvp {
namespace {

using chakra::trace_ops;
using ops::op_kind;
using test::trace_builder;

std::vector<chakra::et_trace> read_all(const std::vector<trace_builder>& ts) {
    std::vector<chakra::et_trace> out;
    const int world = static_cast<int>(ts.size());
    for (int r = 0; r < world; ++r) {
        const auto b = ts[static_cast<std::size_t>(r)].bytes();
        out.push_back(chakra::trace_reader::parse(b.data(), b.size(),
                                                  "t." + std::to_string(r) + ".et", r, world));
    }
    return out;
}

std::size_t count(const std::vector<ops::op>& l, op_kind k) {
    std::size_t n = 0;
    for (const auto& o : l) n += o.kind == k ? 1 : 0;
    return n;
}

std::vector<std::uint32_t> ids(int n, std::uint32_t first = 0) {
    std::vector<std::uint32_t> v;
    for (int i = 0; i < n; ++i) v.push_back(first + static_cast<std::uint32_t>(i));
    return v;
}

// Data parallel, N = 4: two ring all-reduces of 4096 B (1024 fp32), each 2(N-1) = 6 sends and
// receives of n/N = 256 elements (1024 B) and N-1 = 3 sums per rank; the second's tags follow
// the first's.
TEST(chakra_ops, ring_all_reduces_expand_to_the_closed_form_and_keep_tags_apart) {
    std::vector<trace_builder> ts(4);
    for (auto& t : ts) {
        t.comp(0, 1000);
        t.coll(1, trainvp_chakra::ALL_REDUCE, 4096, {0});
        t.coll(2, trainvp_chakra::ALL_REDUCE, 4096, {0});
        t.comp(3, 2000, {1, 2});
    }
    const trace_ops job(read_all(ts), ids(4, 10));
    for (int r = 0; r < 4; ++r) {
        const auto l = job.rank_ops(r);
        EXPECT_EQ(count(l, op_kind::SEND), 12u);
        EXPECT_EQ(count(l, op_kind::RECV), 12u);
        EXPECT_EQ(count(l, op_kind::SUM), 6u);
        EXPECT_EQ(count(l, op_kind::COMPUTE), 2u);
        std::set<std::uint32_t> tags;
        for (const auto& o : l) {
            if (o.kind != op_kind::SEND) continue;
            EXPECT_EQ(o.bytes, 1024u);
            EXPECT_EQ(o.peer, 10u + static_cast<std::uint32_t>((r + 1) % 4));  // ring successor
            EXPECT_GE(o.tag, trace_ops::k_collective_tags);
            EXPECT_TRUE(tags.insert(o.tag).second) << "tag " << o.tag << " used twice";
        }
        // The first op of each collective waits for the compute (op 0); the last compute
        // waits for the ops that finish both collectives, and comes last.
        EXPECT_EQ(l[1].after.size(), 1u);
        EXPECT_EQ(l[1].after[0], 0u);
        EXPECT_EQ(l.back().kind, op_kind::COMPUTE);
        EXPECT_EQ(l.back().flops, 2000.0);
        EXPECT_GE(l.back().after.size(), 2u);
    }
}

// Tensor x data parallel on 4 ranks (tp = 2): an all-gather in each tp group (ring of 2: one
// send of half the vector to the partner), an all-reduce in each dp group; groups' tags apart.
TEST(chakra_ops, process_groups_run_on_their_members_with_their_own_tags) {
    std::vector<trace_builder> ts(4);
    for (int r = 0; r < 4; ++r) {
        auto& t = ts[static_cast<std::size_t>(r)];
        t.group("tp0", {0, 1}).group("tp1", {2, 3}).group("dp0", {0, 2}).group("dp1", {1, 3});
        t.coll(0, trainvp_chakra::ALL_GATHER, 64, {}, r < 2 ? "tp0" : "tp1");
        t.coll(1, trainvp_chakra::ALL_REDUCE, 64, {0}, r % 2 == 0 ? "dp0" : "dp1");
    }
    const trace_ops job(read_all(ts), ids(4));
    for (int r = 0; r < 4; ++r) {
        const auto l = job.rank_ops(r);
        std::set<std::uint32_t> peers, tag_groups;
        for (const auto& o : l) {
            if (o.kind != op_kind::SEND) continue;
            peers.insert(o.peer);
            tag_groups.insert((o.tag - trace_ops::k_collective_tags) / trace_ops::k_group_tags);
        }
        const std::uint32_t tp_peer = static_cast<std::uint32_t>(r ^ 1);
        const std::uint32_t dp_peer = static_cast<std::uint32_t>(r ^ 2);
        EXPECT_EQ(peers, (std::set<std::uint32_t>{tp_peer, dp_peer}));
        EXPECT_EQ(tag_groups.size(), 2u);
        // Ring all-gather of 2 ranks: 1 send of 32 B; ring all-reduce of 2: 2 sends of 32 B.
        EXPECT_EQ(count(l, op_kind::SEND), 3u);
        EXPECT_EQ(l[0].bytes, 32u);
    }
}

// Binomial broadcast and reduce over N = 4 move the vector N - 1 = 3 times in all (each
// non-root rank receives it once / sends once); a direct all-to-all of a 4096 B send buffer
// sends each of the N - 1 others its block of 4096 / N = 1024 B.
TEST(chakra_ops, rooted_collectives_and_all_to_all_move_their_closed_form_messages) {
    std::vector<trace_builder> ts(4);
    for (auto& t : ts) {
        auto& b = t.coll(0, trainvp_chakra::BROADCAST, 4096);
        trace_builder::attr_i32(b, "root", 2);
        auto& rd = t.coll(1, trainvp_chakra::REDUCE, 4096, {0});
        trace_builder::attr_i32(rd, "root", 1);
        t.coll(2, trainvp_chakra::ALL_TO_ALL, 4096, {1});
    }
    const trace_ops job(read_all(ts), ids(4));
    std::size_t bcast_sends = 0, reduce_sums = 0;
    for (int r = 0; r < 4; ++r) {
        const auto l = job.rank_ops(r);
        std::size_t a2a = 0;
        for (const auto& o : l) {
            const bool is_a2a = o.name.rfind("node 2/", 0) == 0;
            if (o.kind == op_kind::SEND && o.name.rfind("node 0/", 0) == 0) {
                ++bcast_sends;
                EXPECT_EQ(o.bytes, 4096u);
            }
            if (o.kind == op_kind::SUM && o.name.rfind("node 1/", 0) == 0) ++reduce_sums;
            if (o.kind == op_kind::SEND && is_a2a) {
                ++a2a;
                EXPECT_EQ(o.bytes, 1024u);
                EXPECT_NE(o.peer, static_cast<std::uint32_t>(r));
            }
        }
        EXPECT_EQ(a2a, 3u) << r;
    }
    EXPECT_EQ(bcast_sends, 3u);
    EXPECT_EQ(reduce_sums, 3u);  // one add per message into its receiver
}

TEST(chakra_ops, compute_by_duration_is_a_delay_and_gpu_nodes_go_to_the_gpu) {
    std::vector<trace_builder> ts(2);
    for (auto& t : ts) {
        auto& d = t.node(0, trainvp_chakra::COMP_NODE);
        d.set_duration_micros(250);
        auto& g = t.node(1, trainvp_chakra::COMP_NODE, {0});
        trace_builder::attr_i64(g, "num_ops", 7);
        auto& m = t.node(2, trainvp_chakra::MEM_LOAD_NODE, {1});
        trace_builder::attr_i64(m, "tensor_size", 4096);
    }
    const trace_ops job(read_all(ts), ids(2));
    const auto l = job.rank_ops(0);
    ASSERT_EQ(l.size(), 3u);
    EXPECT_EQ(l[0].kind, op_kind::DELAY);
    EXPECT_EQ(l[0].delay_ps, 250000000u);
    EXPECT_EQ(l[0].unit, ops::op_unit::GPU);  // is_cpu_op not set: the accelerator
    EXPECT_EQ(l[1].kind, op_kind::GPU_COMPUTE);
    EXPECT_EQ(l[2].kind, op_kind::COPY_TO_GPU);
    EXPECT_EQ(l[2].bytes, 4096u);
    chakra::trace_ops_options o;
    o.compute = chakra::compute_where::CPU;
    const auto c = trace_ops(read_all(ts), ids(2), o).rank_ops(0);
    EXPECT_EQ(c[1].kind, op_kind::COMPUTE);
    EXPECT_EQ(c[2].kind, op_kind::COMPUTE);  // a pass over host memory
    EXPECT_EQ(c[2].flops, 0.0);
}

TEST(chakra_ops, sends_meet_receives_through_the_node_ids) {
    std::vector<trace_builder> ts(2);
    auto& s = ts[0].node(0, trainvp_chakra::COMM_SEND_NODE);
    trace_builder::attr_i32(s, "comm_dst", 1);
    trace_builder::attr_i32(s, "comm_tag", 5);
    trace_builder::attr_i64(s, "comm_size", 100);
    auto& r = ts[1].node(0, trainvp_chakra::COMM_RECV_NODE);
    trace_builder::attr_i32(r, "comm_src", 0);
    trace_builder::attr_i32(r, "comm_tag", 5);
    trace_builder::attr_i64(r, "comm_size", 100);
    const trace_ops job(read_all(ts), {7, 3});
    EXPECT_EQ(job.rank_ops(0)[0].peer, 3u);
    EXPECT_EQ(job.rank_ops(0)[0].tag, 5u);
    EXPECT_EQ(job.rank_ops(1)[0].peer, 7u);
    EXPECT_EQ(job.rank_ops(1)[0].kind, op_kind::RECV);
}

std::string error_of(const std::vector<trace_builder>& ts) {
    try {
        trace_ops(read_all(ts), ids(static_cast<int>(ts.size())));
    } catch (const input_error& e) {
        return e.what();
    }
    return "no error";
}

TEST(chakra_ops, traces_that_disagree_are_input_errors) {
    {
        std::vector<trace_builder> ts(2);
        ts[0].coll(4, trainvp_chakra::ALL_REDUCE, 64);
        ts[1].coll(4, trainvp_chakra::ALL_REDUCE, 128);
        EXPECT_EQ(error_of(ts),
                  "t.1.et: error: node 4.comm_size: collective 0 of its group is ALL_REDUCE of "
                  "128 B here but ALL_REDUCE of 64 B on rank 0 (t.0.et, node 4)");
    }
    {
        std::vector<trace_builder> ts(2);
        ts[0].coll(4, trainvp_chakra::ALL_REDUCE, 64);
        EXPECT_EQ(error_of(ts),
                  "t.0.et: error: node 4.pg_name: rank 1 (t.1.et) has no collective 0 in this "
                  "group to match this ALL_REDUCE of 64 B");
    }
    {
        std::vector<trace_builder> ts(2);
        auto& s = ts[0].node(2, trainvp_chakra::COMM_SEND_NODE);
        trace_builder::attr_i32(s, "comm_dst", 1);
        trace_builder::attr_i64(s, "comm_size", 100);
        EXPECT_EQ(error_of(ts),
                  "t.0.et: error: node 2.comm_dst: no COMM_RECV_NODE on rank 1 from rank 0 with "
                  "tag 0 receives this send");
    }
    {
        // direct all-to-all needs the elements to be a multiple of the group's ranks.
        std::vector<trace_builder> ts(3);
        for (auto& t : ts) t.coll(1, trainvp_chakra::ALL_TO_ALL, 40);
        const std::string e = error_of(ts);
        EXPECT_EQ(e.rfind("t.0.et: error: node 1.comm_size: ALL_TO_ALL by 'direct_all_to_all' "
                          "over 3 ranks of 40 B: ",
                          0),
                  0u)
            << e;
    }
}

}  // namespace
}  // namespace trainvp
