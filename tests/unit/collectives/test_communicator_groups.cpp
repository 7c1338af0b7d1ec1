// Communicator groups (workloads/collectives/communicator_groups.h): a collective over a
// subset of a world's ranks, composed in parallel and in sequence, checked by the executor on
// the whole world (members hold their group's exact result, the others keep their input).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/unit/collectives/collectives_test_support.h"
#include "workloads/collectives/communicator_groups.h"

namespace trainvp::collectives {
namespace {

using testing::run_and_check_result;

using buffers = std::vector<std::vector<double>>;

buffers distinct_inputs(int world, uint64_t n) {
    buffers in(static_cast<std::size_t>(world), std::vector<double>(n));
    for (int r = 0; r < world; ++r) {
        for (uint64_t e = 0; e < n; ++e) {
            in[static_cast<std::size_t>(r)][e] = 1e6 * r + static_cast<double>(e) + 1;
        }
    }
    return in;
}

// A ring all-reduce on the even ranks of 8: they hold the sum of the even ranks' inputs, the
// odd ranks have no steps and keep their input; the schedule is valid and lockstep, and
// costs what the 4-rank ring costs.
TEST(communicator_groups, ring_allreduce_on_the_even_ranks_of_eight) {
    const uint64_t n = 1001;
    const std::vector<int> even{0, 2, 4, 6};
    const schedule g = on_group(ring_allreduce(4, n), even, 8);
    validate(g);
    EXPECT_EQ(g.ranks, 8);
    const buffers in = distinct_inputs(8, n);
    buffers out = in;
    execute(g, out);
    EXPECT_EQ(check_result(g, collective_result::ALL_REDUCE, 0, even, in, out), "");
    for (int r = 1; r < 8; r += 2) {
        EXPECT_TRUE(g.steps[static_cast<std::size_t>(r)].empty());
        EXPECT_EQ(out[static_cast<std::size_t>(r)], in[static_cast<std::size_t>(r)]) << r;
    }
    // The check is not vacuous: over all 8 ranks the odd ones lack the sum.
    EXPECT_NE(check_result(g, collective_result::ALL_REDUCE, 0, in, out), "");
    // Peers are world ranks: rank 2 sends to 4 and receives from 0.
    for (const step& st : g.steps[2]) EXPECT_EQ(st.peer, st.kind == step_kind::SEND ? 4 : 0);
    abg_params p;
    p.alpha = 1e-6;
    p.beta = 1e-9;
    EXPECT_EQ(alpha_beta_gamma_time(g, p), alpha_beta_gamma_time(ring_allreduce(4, n), p));
    EXPECT_EQ(summarize(g).directed_links, 4u);
}

TEST(communicator_groups, parallel_groups_of_tp_by_dp) {
    const parallel_groups g = make_parallel_groups(2, 4);
    EXPECT_EQ(g.tensor_parallel, (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
    EXPECT_EQ(g.data_parallel, (std::vector<std::vector<int>>{{0, 2, 4, 6}, {1, 3, 5, 7}}));
    EXPECT_THROW(make_parallel_groups(0, 4), std::invalid_argument);
}

// TP x DP = 2 x 4, 4 x 2 and 3 x 3: every tensor-parallel group all-gathers (ring), then every
// data-parallel group all-reduces (ring; halving-doubling where DP is a power of two) the
// gathered vector.  Each stage is one world schedule (in_parallel), run by the executor on
// the world and checked group by group; in_sequence of the two stages gives the same
// buffers in one run, (TP - 1) + rounds(DP all-reduce) rounds.
TEST(communicator_groups, tp_all_gather_then_dp_all_reduce_on_the_world) {
    const uint64_t n = 1000;
    for (const auto& [tp, dp] : std::vector<std::pair<int, int>>{{2, 4}, {4, 2}, {3, 3}}) {
        const int world = tp * dp;
        const parallel_groups g = make_parallel_groups(tp, dp);
        std::vector<schedule> gathers, reduces;
        for (const auto& m : g.tensor_parallel)
            gathers.push_back(on_group(ring_allgather(tp, n), m, world));
        for (const auto& m : g.data_parallel) {
            const schedule ar =
                (dp & (dp - 1)) == 0 ? halving_doubling_allreduce(dp, n) : ring_allreduce(dp, n);
            reduces.push_back(on_group(ar, m, world));
        }
        const schedule stage1 = in_parallel(gathers), stage2 = in_parallel(reduces);
        validate(stage1);
        validate(stage2);
        const buffers in = distinct_inputs(world, n);
        buffers mid = in;
        execute(stage1, mid);
        for (const auto& m : g.tensor_parallel) {
            EXPECT_EQ(check_result(stage1, collective_result::ALL_GATHER, 0, m, in, mid), "");
        }
        buffers out = mid;
        execute(stage2, out);
        for (const auto& m : g.data_parallel) {
            EXPECT_EQ(check_result(stage2, collective_result::ALL_REDUCE, 0, m, mid, out), "");
        }
        // Each element e ends as the sum over dp of the input of the TP rank owning e's block.
        const auto blocks = partition(n, static_cast<uint64_t>(tp));
        for (int t = 0; t < tp; ++t) {
            const chunk& b = blocks[static_cast<std::size_t>(t)];
            for (uint64_t e = b.offset; e < b.offset + b.count; ++e) {
                double want = 0;
                for (int d = 0; d < dp; ++d) want += in[static_cast<std::size_t>(d * tp + t)][e];
                for (int r = 0; r < world; ++r) {
                    ASSERT_EQ(out[static_cast<std::size_t>(r)][e], want) << "rank " << r;
                }
            }
        }
        const schedule both = in_sequence({stage1, stage2});
        validate(both);
        EXPECT_TRUE(is_lockstep(both));
        EXPECT_EQ(round_count(both), round_count(stage1) + round_count(stage2));
        EXPECT_EQ(round_count(stage1), static_cast<uint32_t>(tp - 1));
        buffers once = in;
        execute(both, once);
        EXPECT_EQ(once, out);
    }
}

// in_sequence renumbers tags of a pair used by both parts (a ring all-reduce twice on the same
// ranks: every pair is reused) and the second run adds the first's result again: N x sum.
TEST(communicator_groups, in_sequence_of_the_same_ranks_renumbers_tags) {
    const schedule a = ring_allreduce(5, 100);
    const schedule twice = in_sequence({a, a});
    validate(twice);
    const buffers in = distinct_inputs(5, 100);
    buffers out = in;
    execute(twice, out);
    for (uint64_t e = 0; e < 100; ++e) {
        double sum = 0;
        for (int r = 0; r < 5; ++r) sum += in[static_cast<std::size_t>(r)][e];
        for (int r = 0; r < 5; ++r) ASSERT_EQ(out[static_cast<std::size_t>(r)][e], 5 * sum);
    }
}

// A reduce-scatter then an all-gather (sharded data parallelism's two halves) is an
// all-reduce: exact on data, and in the alpha-beta-gamma model the ring pair costs what the
// ring all-reduce costs, 2(N - 1)alpha + 2(N - 1)c beta + (N - 1)c gamma (c = 4n / N bytes).
TEST(communicator_groups, reduce_scatter_then_all_gather_is_an_all_reduce) {
    abg_params p;
    p.alpha = 5e-6;
    p.beta = 1.0 / 1.25e9;
    p.gamma = 1.0 / 40e9;
    for (int N : {2, 3, 4, 7, 8, 16}) {
        const uint64_t n = 1000;
        const schedule ring = in_sequence({ring_reduce_scatter(N, n), ring_allgather(N, n)});
        validate(ring);
        run_and_check_result(ring, collective_result::ALL_REDUCE);
        EXPECT_EQ(round_count(ring), static_cast<uint32_t>(2 * (N - 1)));
        if ((N & (N - 1)) == 0) {
            run_and_check_result(in_sequence({recursive_halving_reduce_scatter(N, n),
                                              recursive_doubling_allgather(N, n)}),
                                 collective_result::ALL_REDUCE);
        }
        const uint64_t m = 1680 * 16;  // a multiple of every N above
        const double c = 4.0 * static_cast<double>(m / static_cast<uint64_t>(N));
        const double t = 2 * (N - 1) * (p.alpha + p.beta * c) + (N - 1) * p.gamma * c;
        // 1e-12 relative: summation order only.
        EXPECT_NEAR(alpha_beta_gamma_time(
                        in_sequence({ring_reduce_scatter(N, m), ring_allgather(N, m)}), p),
                    t, 1e-12 * t);
    }
}

TEST(communicator_groups, refuses_bad_groups_and_overlapping_parts) {
    const schedule s = ring_allreduce(4, 10);
    EXPECT_THROW(on_group(s, {0, 2, 4}, 8), std::invalid_argument);     // 3 members, 4 ranks
    EXPECT_THROW(on_group(s, {0, 2, 2, 6}, 8), std::invalid_argument);  // twice
    EXPECT_THROW(on_group(s, {0, 2, 4, 8}, 8), std::invalid_argument);  // out of the world
    const schedule a = on_group(s, {0, 1, 2, 3}, 8), b = on_group(s, {3, 4, 5, 6}, 8);
    EXPECT_THROW(in_parallel({a, b}), std::invalid_argument);  // rank 3 in both
    EXPECT_THROW(in_parallel({a, ring_allreduce(8, 11)}), std::invalid_argument);
    EXPECT_THROW(in_sequence({}), std::invalid_argument);
    // A later part may not zero a rank's buffer mid-way (an aggregator's).
    EXPECT_THROW(in_sequence({ring_allreduce(3, 10), worker_aggregator(2, 10, {})}),
                 std::invalid_argument);
}

// Every registered collective on a group: the registry's schedule of 4 ranks placed on world
// ranks {6, 1, 4, 3} of 8 (scattered, out of order) keeps its exact result there.
TEST(communicator_groups, every_registered_collective_runs_on_a_group) {
    const auto& reg = collective_registry::global();
    collective_args a;
    a.ranks = 4;
    a.elements = 96;
    a.rows = 2;
    a.cols = 2;
    a.levels = 2;
    a.root = 2;
    a.segments = 3;
    const std::vector<int> members{6, 1, 4, 3};
    for (const auto& name : reg.names()) {
        const collective_info& c = reg.get(name);
        if (c.needs.aggregator) continue;  // its extra rank makes 5 ranks; checked below
        const schedule g = on_group(reg.make(name, a), members, 8);
        run_and_check_result(g, c.result, a.root, members);
    }
    const schedule wa = reg.make("worker_aggregator", a);
    run_and_check_result(on_group(wa, {7, 0, 5, 2, 4}, 8), collective_result::ALL_REDUCE, 0,
                         {7, 0, 5, 2, 4});
}

}  // namespace
}  // namespace trainvp::collectives
