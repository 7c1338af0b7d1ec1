// Op lists on chiplets (noc/interposer/chiplet_op_runner) against closed forms and against the
// NoC's own collectives:
// - a send of B bytes between two chiplets of an idle NoC takes the network's zero-load message
//   latency, H (s + L) + s + (F - 1) c for F = ceil(B / flit) flits (test_network.cpp derives
//   it; the packets of one message follow each other without a gap);
// - a compute op takes the PE arrays' time: max(ceil(FLOPs / (2 x 16 x 32 x 32)) cycles, the
//   bytes streamed at 256 GB/s when they overflow the 4 MiB global buffer);
// - a ring all-reduce and a ring all-gather written as ops (workloads/iteration/collective_ops,
//   the expansion hosts run) take the time of the same schedule run by collective_traffic,
//   up to the differences stated at each test;
// - the runs give the iteration breakdown hosts give (critical_path over the chiplets' runs).
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <memory>
#include <vector>

#include "noc/collective/collective_traffic.h"
#include "noc/interposer/chiplet_op_runner.h"
#include "noc/network/noc_network.h"
#include "noc/topology/noc_topology.h"
#include "noc/topology/route_table.h"
#include "workloads/collectives/collective_registry.h"
#include "workloads/iteration/collective_ops.h"
#include "workloads/iteration/critical_path.h"
#include "workloads/ops/op_list.h"
#include "workloads/ops/op_source.h"

namespace trainvp::noc {
namespace {

using ops::op_kind;
using ops::op_unit;

ops::op send(std::uint32_t to, std::uint64_t bytes, std::uint32_t tag) {
    ops::op o;
    o.kind = op_kind::SEND;
    o.unit = op_unit::COMM;
    o.peer = to;
    o.bytes = bytes;
    o.tag = tag;
    return o;
}

ops::op recv(std::uint32_t from, std::uint64_t bytes, std::uint32_t tag) {
    ops::op o = send(from, bytes, tag);
    o.kind = op_kind::RECV;
    return o;
}

ops::op compute(double flops, std::uint64_t bytes) {
    ops::op o;
    o.kind = op_kind::COMPUTE;
    o.unit = op_unit::CPU;
    o.flops = flops;
    o.bytes = bytes;
    return o;
}

struct ops_run {
    std::uint64_t end = 0;
    std::vector<workloads::host_run> runs;
};

// The op lists on a k x k mesh (dimension-order routing, aries.md §V's routers and links:
// 2 stages, 10-cycle links, 68 B flits at one per cycle, 8-flit packets).
ops_run run_ops(int k, const std::vector<std::vector<ops::op>>& lists, bool message_level,
                const pe_array_config& pe = pe_array_config{}) {
    const auto t = noc_topology::mesh(k);
    const auto rt = route_table::dimension_order(t);
    network_config cfg;
    cfg.message_level = message_level;
    noc_network net(t, rt, cfg);
    chiplet_op_runner::settings s;
    s.chiplets = k * k;
    s.whole_messages = message_level;
    chiplet_op_runner r(s, pe, "noc");
    for (std::size_t c = 0; c < lists.size(); ++c) {
        if (lists[c].empty()) continue;
        r.take(static_cast<int>(c), std::make_unique<ops::list_source>(ops::op_list(lists[c])),
               source_loc{}, "test");
    }
    r.attach(net);
    while (!r.done()) {
        if (net.idle() && r.next_cycle() == std::numeric_limits<std::uint64_t>::max()) {
            ADD_FAILURE() << "stalled: " << r.pending();
            break;
        }
        net.run_until(net.now() + 1000);
    }
    EXPECT_TRUE(net.idle());
    ops_run out;
    out.end = r.end_cycle();
    for (int c = 0; c < k * k; ++c) {
        auto hr = r.ran(c, "noc.chiplet[" + std::to_string(c) + "]");
        if (!hr.ops.empty()) out.runs.push_back(std::move(hr));
    }
    return out;
}

// The same schedule as the NoC's own collective (rank r on router r, as the op lists place it).
std::uint64_t run_collective(int k, const collectives::schedule& s, bool message_level) {
    const auto t = noc_topology::mesh(k);
    const auto rt = route_table::dimension_order(t);
    network_config cfg;
    cfg.message_level = message_level;
    noc_network net(t, rt, cfg);
    collective_traffic c(s, row_major_mapping(k), 68.0, 8);
    c.whole_messages(message_level);
    c.attach(net);
    net.set_source(&c);
    net.run_until(100000000);
    EXPECT_TRUE(c.done());
    return c.finish_cycle();
}

std::vector<std::vector<ops::op>> expanded(const collectives::schedule& s) {
    std::vector<std::uint32_t> nodes;
    for (int r = 0; r < s.ranks; ++r) nodes.push_back(static_cast<std::uint32_t>(r));
    std::vector<std::vector<ops::op>> lists;
    for (int r = 0; r < s.ranks; ++r) lists.push_back(workloads::collective_ops(s, r, nodes));
    return lists;
}

constexpr std::uint64_t zero_load(int hops, std::uint64_t flits) {
    return static_cast<std::uint64_t>(hops) * (2 + 10) + 2 + (flits - 1);
}

TEST(chiplet_ops, a_send_on_an_idle_noc_takes_the_zero_load_message_latency) {
    for (const bool msg : {false, true}) {
        for (const std::uint64_t bytes : {68ull, 4096ull, 65536ull, 1048576ull}) {
            for (const auto [dst, hops] : {std::pair{1, 1}, {3, 2}}) {
                std::vector<std::vector<ops::op>> lists(4);
                lists[0] = {send(static_cast<std::uint32_t>(dst), bytes, 7)};
                lists[static_cast<std::size_t>(dst)] = {recv(0, bytes, 7)};
                const std::uint64_t flits = (bytes + 67) / 68;
                EXPECT_EQ(run_ops(2, lists, msg).end, zero_load(hops, flits))
                    << bytes << " B to " << dst << (msg ? " (message level)" : "");
            }
        }
    }
    // 64 KiB over one hop: 964 flits, 12 + 2 + 963 = 977 cycles = 977 ns at 1 GHz.
    std::vector<std::vector<ops::op>> lists(4);
    lists[0] = {send(1, 65536, 0)};
    lists[1] = {recv(0, 65536, 0)};
    EXPECT_EQ(run_ops(2, lists, false).end, 977u);
}

TEST(chiplet_ops, a_receive_posted_late_takes_the_message_from_the_unexpected_queue) {
    // The receive waits for a 10 us compute; the message arrived long before: it is done when
    // the compute is (the unexpected queue, host.cpu's message_matcher).
    std::vector<std::vector<ops::op>> lists(4);
    lists[0] = {send(1, 4096, 3)};
    ops::op r = recv(0, 4096, 3);
    r.after = {0};
    lists[1] = {compute(2.0 * 16 * 32 * 32 * 10000, 0), r};
    EXPECT_EQ(run_ops(2, lists, false).end, 10000u);
}

TEST(chiplet_ops, a_compute_op_takes_the_pe_arrays_time) {
    // 2^30 FLOPs at 32768 FLOPs per cycle: 32768 cycles; 1 MiB fits the global buffer.
    std::vector<std::vector<ops::op>> lists(4);
    lists[2] = {compute(1073741824.0, 1 << 20)};
    EXPECT_EQ(run_ops(2, lists, false).end, 32768u);
    // 16 MiB streamed at 256 GB/s: 65536 ns, more than the compute.
    lists[2] = {compute(1073741824.0, 16 << 20)};
    EXPECT_EQ(run_ops(2, lists, false).end, 65536u);
    // The same through pe_array_model::time_work.
    const pe_array_model pe{pe_array_config{}};
    EXPECT_EQ(pe.time_work(1073741824.0, 0, 16 << 20).time_ps, 65536000u);
    // Ops on one unit in list order; a sum of 64 KiB (16384 adds on the 16 x 32-wide vector
    // path: 32 cycles; 3 x 64 KiB of traffic fits the buffer) after the compute.
    ops::op sum;
    sum.kind = op_kind::SUM;
    sum.bytes = 65536;
    lists[2] = {compute(1073741824.0, 1 << 20), sum};
    EXPECT_EQ(run_ops(2, lists, false).end, 32768u + 32u);
}

// Ring all-reduce of 256 KiB on the 4 chiplets of a 2x2 mesh, as ops and as the NoC's
// collective.  They differ by what the collective leaves out and by one cycle per round:
// - collective_traffic enters a rank's next round group the cycle after the last one ends
//   (2(N-1) - 1 = 5 transitions); an op starts in the cycle the op it waits for is done;
// - each rank's N - 1 = 3 sums of 64 KiB (16384 adds on the 16 x 32-wide vector path: 32
//   cycles; 192 KiB of traffic fits the global buffer) take time in the ops, none in the
//   collective.  A sum delays its rank's next send only where it ends after that round's slow
//   (2-hop) message, so the ops take between coll - 5 and coll - 5 + 3 x 32.
// With the sums made one cycle (a vector path of 65536 FLOPs per PE and cycle) they hide behind
// the slow messages and the ops take exactly coll - 5 at flit level.  At message level a
// delivery reaches the ops the cycle after it (the network calls its source before it hands
// the cycle's deliveries over), which costs a cycle per round and can put a sum on the path:
// measured 1 to 3 cycles more per round (+14 over the 6 rounds here), bound 3 x 2(N-1) = 18.
TEST(chiplet_ops, a_ring_all_reduce_as_ops_takes_the_noc_collectives_time_plus_its_sums) {
    const auto s = collectives::collective_registry::global().make("ring", {4, 65536});
    pe_array_config fast_sums;
    fast_sums.vector_flops_per_cycle = 65536;
    for (const bool msg : {false, true}) {
        const std::uint64_t coll = run_collective(2, s, msg);
        const std::uint64_t lag = msg ? 18 : 0;
        const ops_run quick = run_ops(2, expanded(s), msg, fast_sums);
        EXPECT_GE(quick.end, coll - 5) << "collective " << coll;
        EXPECT_LE(quick.end, coll - 5 + lag) << "collective " << coll;
        const ops_run o = run_ops(2, expanded(s), msg);
        EXPECT_GE(o.end, coll - 5) << "collective " << coll;
        EXPECT_LE(o.end, coll - 5 + 3 * 32 + lag) << "collective " << coll;
        // The iteration breakdown over the chiplets' runs ends at the last op.
        const auto b = workloads::critical_path(o.runs);
        EXPECT_TRUE(b.error.empty()) << b.error;
        EXPECT_EQ(b.total_ps, o.end * 1000);
        EXPECT_GT(b.part(workloads::breakdown_part::COMM), 0u);
        EXPECT_LE(b.part(workloads::breakdown_part::SUM), 3u * 32u * 1000u);
        std::printf(
            "ring all-reduce 256 KiB on 2x2 (%s): collective %llu cycles, ops %llu "
            "(1-cycle sums %llu)\n",
            msg ? "message" : "flit", static_cast<unsigned long long>(coll),
            static_cast<unsigned long long>(o.end), static_cast<unsigned long long>(quick.end));
    }
}

// A ring all-gather (the registry's ring_allgather: no sums) of 256 KiB: ops = collective minus
// the N - 2 = 2 cycles of round-group transitions, exactly at flit level; at message level up
// to 3 cycles more per round as above (measured +5 over 3 rounds), bound 9.
TEST(chiplet_ops, a_ring_all_gather_as_ops_takes_the_noc_collectives_time) {
    const auto s = collectives::collective_registry::global().make("ring_allgather", {4, 65536});
    for (const bool msg : {false, true}) {
        const std::uint64_t coll = run_collective(2, s, msg);
        const std::uint64_t got = run_ops(2, expanded(s), msg).end;
        if (!msg) {
            EXPECT_EQ(got, coll - 2);
        } else {
            EXPECT_GE(got, coll - 2);
            EXPECT_LE(got, coll - 2 + 9);
        }
        std::printf("ring all-gather 256 KiB on 2x2 (%s): collective %llu cycles, ops %llu\n",
                    msg ? "message" : "flit", static_cast<unsigned long long>(coll),
                    static_cast<unsigned long long>(got));
    }
    // And its closed form on the idle mesh: 3 rounds, each bound by the 2-hop pairs (1 -> 2 and
    // 3 -> 0 on a row-major 2x2) moving 64 KiB (964 flits): 3 x (2 x 12 + 2 + 963) = 2967
    // cycles at flit level.  No two messages of a round share a link (dimension order: 0->1 on
    // 0's +x, 1->2 on 1's -x and 0's +y, 2->3 on 2's +x, 3->0 on 3's -x and 2's -y).
    EXPECT_EQ(run_ops(2, expanded(s), false).end, 3u * zero_load(2, 964));
}

// A ring reduce-scatter (the registry's ring_reduce_scatter) of 256 KiB: N - 1 = 3 rounds, each
// with a sum of 64 KiB.  Unlike the all-reduce it ends with a sum, which is always on the path:
// ops = collective - (N - 2) transitions + the last sum, exactly with 1-cycle sums at flit level
// (2969 - 2 + 1); with the real 32-cycle sums at least the last one and at most all three;
// message level within 3 cycles per round (9) more.
TEST(chiplet_ops, a_ring_reduce_scatter_as_ops_takes_the_noc_collectives_time_plus_its_sums) {
    const auto s =
        collectives::collective_registry::global().make("ring_reduce_scatter", {4, 65536});
    pe_array_config fast_sums;
    fast_sums.vector_flops_per_cycle = 65536;
    for (const bool msg : {false, true}) {
        const std::uint64_t coll = run_collective(2, s, msg);
        const std::uint64_t lag = msg ? 9 : 0;
        const std::uint64_t quick = run_ops(2, expanded(s), msg, fast_sums).end;
        if (!msg) {
            EXPECT_EQ(quick, coll - 2 + 1);
        } else {
            EXPECT_GE(quick, coll - 2 + 1);
            EXPECT_LE(quick, coll - 2 + 1 + lag);
        }
        const std::uint64_t got = run_ops(2, expanded(s), msg).end;
        EXPECT_GE(got, coll - 2 + 32);
        EXPECT_LE(got, coll - 2 + 3 * 32 + lag);
        std::printf(
            "ring reduce-scatter 256 KiB on 2x2 (%s): collective %llu cycles, ops %llu "
            "(1-cycle sums %llu)\n",
            msg ? "message" : "flit", static_cast<unsigned long long>(coll),
            static_cast<unsigned long long>(got), static_cast<unsigned long long>(quick));
    }
}

TEST(chiplet_ops, an_op_a_chiplet_cannot_run_is_an_input_error) {
    chiplet_op_runner::settings s;
    s.chiplets = 4;
    chiplet_op_runner r(s, pe_array_config{}, "noc");
    auto take = [&](int c, ops::op o) {
        r.take(c, std::make_unique<ops::list_source>(ops::op_list({o})), source_loc{"x", 1, 1},
               "workload.ops.noc.chiplet[" + std::to_string(c) + "]");
    };
    EXPECT_THROW(take(0, send(4, 64, 0)), input_error);
    EXPECT_THROW(take(1, send(1, 64, 0)), input_error);
    ops::op copy;
    copy.kind = op_kind::COPY_TO_GPU;
    copy.unit = op_unit::COPY;
    EXPECT_THROW(take(2, copy), input_error);
}

}  // namespace
}  // namespace trainvp::noc
