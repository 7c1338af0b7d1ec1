// Rounds and elements sent per rank against closed forms, the worked example of INCEPTIONN
// Algorithm 1, aries.md Table I, and the builders' argument checks.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tests/unit/collectives/collectives_test_support.h"

namespace trainvp::collectives {
namespace {

using testing::block_size;
using testing::ceil_log2;
using testing::floor_log2;
using testing::heap_height;

std::vector<int> rank_counts() {
    std::vector<int> out;
    for (int n = 2; n <= 17; ++n) out.push_back(n);
    out.push_back(64);
    return out;
}

// Even (N | n) and uneven sizes.
std::vector<uint64_t> sizes_for(int n) {
    const uint64_t un = static_cast<uint64_t>(n);
    return {un * 720, 1, un - 1, un + 3, 1000003};
}

uint64_t count_steps(const schedule& s, step_kind kind) {
    uint64_t c = 0;
    for (const auto& rs : s.steps) {
        for (const step& st : rs) c += st.kind == kind ? 1 : 0;
    }
    return c;
}

uint64_t total_reduced(const cost_summary& c) {
    uint64_t t = 0;
    for (const auto& r : c.per_rank) t += r.elements_reduced;
    return t;
}

// ---------------------------------------------------------------------------------------
// Ring (inceptionn.md Algorithm 1).

TEST(collectives_ring_closed_form, two_n_minus_one_rounds_and_exact_elements_per_rank) {
    for (int n : rank_counts()) {
        const uint64_t un = static_cast<uint64_t>(n);
        for (uint64_t e : sizes_for(n)) {
            SCOPED_TRACE("N=" + std::to_string(n) + " elements=" + std::to_string(e));
            const cost_summary c = summarize(ring_allreduce(n, e));
            EXPECT_EQ(c.rounds, 2u * (un - 1));
            EXPECT_EQ(c.reduce_rounds, un - 1);  // aries.md Table I: latency N - 1
            EXPECT_EQ(c.directed_links, un);     // aries.md Table I: N links
            EXPECT_EQ(c.elements_sent, 2 * (un - 1) * e);
            for (int i = 0; i < n; ++i) {
                const auto& r = c.per_rank[static_cast<std::size_t>(i)];
                auto b = [&](int j) { return block_size(e, un, static_cast<uint64_t>(j % n)); };
                EXPECT_EQ(r.rounds, 2u * (un - 1));
                // Rank i sends every block but (i+1) in the reduce-scatter and every block but
                // (i+2) in the all-gather; it adds in every block but its own index.
                EXPECT_EQ(r.elements_sent, 2 * e - b(i + 1) - b(i + 2));
                EXPECT_EQ(r.elements_received, 2 * e - b(i) - b(i + 1));
                EXPECT_EQ(r.elements_reduced, e - b(i));
                if (e % un == 0) {
                    EXPECT_EQ(r.elements_sent * un, 2 * (un - 1) * e);
                }
            }
        }
    }
}

TEST(collectives_ring_closed_form, pipelined_ring_multiplies_rounds_not_bytes) {
    for (int n : {2, 5, 8, 17}) {
        for (uint32_t segments : {2u, 4u, 7u}) {
            const uint64_t e = 1000;
            const cost_summary flat = summarize(ring_allreduce(n, e));
            const cost_summary piped = summarize(ring_allreduce(n, e, segments));
            EXPECT_EQ(piped.rounds, 2u * static_cast<uint32_t>(n - 1) * segments);
            for (int i = 0; i < n; ++i) {
                EXPECT_EQ(piped.per_rank[i].elements_sent, flat.per_rank[i].elements_sent);
                EXPECT_EQ(piped.per_rank[i].messages_sent,
                          flat.per_rank[i].messages_sent * segments);
            }
        }
    }
}

TEST(collectives_ring_closed_form, follows_the_worked_example_of_algorithm_1) {
    // inceptionn.md §IV, N = 4, one element per block so block j is element j.
    const schedule s = ring_allreduce(4, 4);
    // "worker[0] sends blk[0] to its next node, worker[1]" (step 1).
    const step& first = s.steps[0][0].kind == step_kind::SEND ? s.steps[0][0] : s.steps[0][1];
    EXPECT_EQ(first.round, 0u);
    EXPECT_EQ(first.peer, 1);
    EXPECT_EQ(first.range, (chunk{0, 1}));

    // After steps 1-3 "worker[0], worker[1], worker[2], and worker[3] have fully aggregated
    // blk[1], blk[2], blk[3], and blk[0]".
    schedule reduce_scatter = s;
    for (auto& rs : reduce_scatter.steps) {
        std::vector<step> kept;
        for (const step& st : rs) {
            if (st.round < 3) kept.push_back(st);
        }
        rs = kept;
    }
    auto buf = testing::make_inputs<double>(reduce_scatter);
    const auto want = testing::expected_sum<double>(reduce_scatter);
    execute(reduce_scatter, buf);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(buf[w][(w + 1) % 4], want[(w + 1) % 4]) << w;

    // Step 4: "worker[3] sends blk[0] to worker[0]".
    bool found = false;
    for (const step& st : s.steps[3]) {
        if (st.round == 3 && st.kind == step_kind::SEND) {
            EXPECT_EQ(st.peer, 0);
            EXPECT_EQ(st.range, (chunk{0, 1}));
            found = true;
        }
    }
    EXPECT_TRUE(found);
}

TEST(collectives_ring_closed_form,
     algorithm_1_all_gather_indices_taken_literally_do_not_all_reduce) {
    // Lines 15-17 as printed: receive into blk[(i-s+1)%N], send blk[(i-s+2)%N], s = N..2N-2.
    // Matching and rounds are fine (validate passes) but finished blocks get overwritten by
    // partial ones.  This is why ring_allreduce() uses (i-s) and (i-s+1) there.
    const int n = 4;
    schedule_builder b("ring_literal", n, 4);
    const auto blk = partition(4, n);
    auto m = [&](int a) { return ((a % n) + n) % n; };
    for (int s = 1; s <= n - 1; ++s) {
        for (int i = 0; i < n; ++i) {
            b.transfer(i, (i + 1) % n, blk[m(i - s + 1)], step_kind::RECV_REDUCE, s - 1);
        }
    }
    for (int s = n; s <= 2 * n - 2; ++s) {
        for (int i = 0; i < n; ++i) {
            b.transfer(i, (i + 1) % n, blk[m(i - s + 2)], step_kind::RECV_COPY, s - 1);
        }
    }
    const schedule literal = b.finish();
    EXPECT_NO_THROW(validate(literal));
    auto buf = testing::make_inputs<double>(literal);
    const auto want = testing::expected_sum<double>(literal);
    execute(literal, buf);
    int wrong = 0;
    for (const auto& rank_buf : buf) wrong += rank_buf == want ? 0 : 1;
    EXPECT_EQ(wrong, n);
}

// ---------------------------------------------------------------------------------------
// Binomial tree.

TEST(collectives_binomial_closed_form, two_ceil_log2_rounds_and_single_port) {
    for (int n : rank_counts()) {
        const uint64_t e = 1001;
        SCOPED_TRACE("N=" + std::to_string(n));
        const schedule s = binomial_tree_allreduce(n, e);
        const cost_summary c = summarize(s);
        const uint64_t un = static_cast<uint64_t>(n);
        EXPECT_EQ(c.rounds, 2u * static_cast<uint32_t>(ceil_log2(n)));
        EXPECT_EQ(c.per_rank[0].elements_sent, static_cast<uint64_t>(ceil_log2(n)) * e);
        EXPECT_EQ(c.elements_sent, 2 * (un - 1) * e);
        EXPECT_EQ(total_reduced(c), (un - 1) * e);
        for (const auto& rs : s.steps) {
            for (const step_group& g : group_by_round(rs)) {
                int sends = 0, recvs = 0;
                for (std::size_t i = g.begin; i < g.end; ++i) {
                    (rs[i].kind == step_kind::SEND ? sends : recvs) += 1;
                }
                EXPECT_LE(sends, 1);
                EXPECT_LE(recvs, 1);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Recursive halving-doubling and recursive doubling.

TEST(collectives_halving_doubling_closed_form, rounds_and_elements_with_and_without_fold) {
    for (int n : rank_counts()) {
        const int p = 1 << floor_log2(n);
        const int r = n - p;
        const int k = floor_log2(n);
        const uint64_t up = static_cast<uint64_t>(p);
        for (uint64_t e : {up * 7, static_cast<uint64_t>(n) + 3, uint64_t{1}}) {
            SCOPED_TRACE("N=" + std::to_string(n) + " elements=" + std::to_string(e));
            const cost_summary c = summarize(halving_doubling_allreduce(n, e));
            EXPECT_EQ(c.rounds, static_cast<uint32_t>(2 * k + (r > 0 ? 2 : 0)));
            EXPECT_EQ(c.elements_sent, 2 * (up - 1) * e + 2 * static_cast<uint64_t>(r) * e);
            if (e % up != 0) continue;
            const uint64_t core = 2 * (up - 1) * e / up;
            for (int i = 0; i < n; ++i) {
                const auto& rc = c.per_rank[static_cast<std::size_t>(i)];
                if (i < 2 * r && i % 2 == 0) {  // folded out
                    EXPECT_EQ(rc.elements_sent, e);
                    EXPECT_EQ(rc.rounds, 2u);
                } else if (i < 2 * r) {  // carries a folded partner
                    EXPECT_EQ(rc.elements_sent, core + e);
                    EXPECT_EQ(rc.rounds, static_cast<uint32_t>(2 * k + 2));
                } else {
                    EXPECT_EQ(rc.elements_sent, core);
                    EXPECT_EQ(rc.rounds, static_cast<uint32_t>(2 * k));
                }
            }
        }
    }
}

TEST(collectives_recursive_doubling_closed_form, log2_rounds_of_the_whole_vector) {
    for (int n : rank_counts()) {
        const int p = 1 << floor_log2(n);
        const int r = n - p;
        const int k = floor_log2(n);
        const uint64_t e = 999;
        const cost_summary c = summarize(recursive_doubling_allreduce(n, e));
        EXPECT_EQ(c.rounds, static_cast<uint32_t>(k + (r > 0 ? 2 : 0))) << n;
        EXPECT_EQ(c.elements_sent, static_cast<uint64_t>(p) * static_cast<uint64_t>(k) * e +
                                       2 * static_cast<uint64_t>(r) * e)
            << n;
    }
}

// ---------------------------------------------------------------------------------------
// Double binary tree and multi-tree.

TEST(collectives_double_binary_tree_closed_form, complementary_trees_and_2_floor_log2_rounds) {
    for (int n : rank_counts()) {
        SCOPED_TRACE("N=" + std::to_string(n));
        const auto trees = double_binary_trees(n);
        ASSERT_EQ(trees.size(), 2u);
        std::vector<int> inner_count(static_cast<std::size_t>(n), 0);
        for (const auto& t : trees) {
            EXPECT_EQ(tree_height(t), floor_log2(n));
            std::vector<int> children(static_cast<std::size_t>(n), 0);
            for (int v = 0; v < n; ++v) {
                if (t.parent[v] >= 0) ++children[static_cast<std::size_t>(t.parent[v])];
            }
            for (int v = 0; v < n; ++v) {
                EXPECT_LE(children[v], 2);
                if (children[v] > 0) ++inner_count[v];
            }
        }
        for (int v = 0; v < n; ++v) EXPECT_LE(inner_count[v], 1) << "rank " << v;

        for (uint64_t e : {uint64_t{1000}, uint64_t{1001}, uint64_t{1}}) {
            const schedule s = double_binary_tree(n, e);
            const cost_summary c = summarize(s);
            const uint64_t un = static_cast<uint64_t>(n);
            EXPECT_EQ(c.rounds, 2u * static_cast<uint32_t>(floor_log2(n)));
            // aries.md Table I: a binary-tree pair uses 2(N-1) tree edges.
            EXPECT_EQ(count_steps(s, step_kind::RECV_REDUCE), 2 * (un - 1));
            EXPECT_EQ(c.elements_sent, 2 * (un - 1) * e);
            for (const auto& rc : c.per_rank) EXPECT_LE(rc.elements_sent, 2 * e + 1);
        }
    }
}

TEST(collectives_multi_tree_closed_form, n_trees_send_like_a_ring_in_log_rounds) {
    for (int n : rank_counts()) {
        SCOPED_TRACE("N=" + std::to_string(n));
        const uint64_t un = static_cast<uint64_t>(n);
        for (uint64_t e : {un * 720, un + 3}) {
            const schedule s = multi_tree(n, e);
            const cost_summary c = summarize(s);
            EXPECT_EQ(c.rounds, 2u * static_cast<uint32_t>(floor_log2(n)));
            EXPECT_EQ(count_steps(s, step_kind::RECV_REDUCE), un * (un - 1));
            EXPECT_EQ(c.elements_sent, 2 * (un - 1) * e);
            if (e % un == 0) {
                for (const auto& rc : c.per_rank) {
                    EXPECT_EQ(rc.elements_sent * un, 2 * (un - 1) * e);
                }
            }
        }
        // aries.md Table I counts K = 4 trees: 4(N-1) tree edges.
        for (int degree : {2, 3, 4}) {
            const schedule s = multi_tree(n, 1000, 4, degree);
            EXPECT_EQ(count_steps(s, step_kind::RECV_REDUCE), 4 * (un - 1));
            EXPECT_EQ(summarize(s).rounds, 2u * static_cast<uint32_t>(heap_height(n, degree)));
        }
    }
}

TEST(collectives_multi_tree_closed_form, explicit_trees_reproduce_the_double_binary_tree) {
    for (int n : {2, 7, 10, 64}) {
        const cost_summary a = summarize(double_binary_tree(n, 1001));
        const cost_summary b = summarize(multi_tree(double_binary_trees(n), 1001));
        EXPECT_EQ(a.rounds, b.rounds);
        for (int r = 0; r < n; ++r) {
            EXPECT_EQ(a.per_rank[r].elements_sent, b.per_rank[r].elements_sent);
            EXPECT_EQ(a.per_rank[r].rounds, b.per_rank[r].rounds);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Worker-aggregator (inceptionn.md §II-B, Fig. 1(a), Fig. 2).

TEST(collectives_worker_aggregator_closed_form, one_aggregator) {
    for (int p : rank_counts()) {
        const uint64_t e = 1003;
        const uint64_t up = static_cast<uint64_t>(p);
        const schedule s = worker_aggregator(p, e);
        ASSERT_EQ(s.ranks, p + 1);
        EXPECT_FALSE(s.contributes[static_cast<std::size_t>(p)]);
        const cost_summary c = summarize(s);
        EXPECT_EQ(c.rounds, 2u);
        for (int w = 0; w < p; ++w) {
            EXPECT_EQ(c.per_rank[w].elements_sent, e);
            EXPECT_EQ(c.per_rank[w].elements_received, e);
            EXPECT_EQ(c.per_rank[w].elements_reduced, 0u);
        }
        const rank_cost& agg = c.per_rank[static_cast<std::size_t>(p)];
        EXPECT_EQ(agg.elements_received, up * e);
        EXPECT_EQ(agg.elements_sent, up * e);
        EXPECT_EQ(agg.elements_reduced, (up - 1) * e);

        const cost_summary bin =
            summarize(worker_aggregator(p, e, {0, aggregator_return::BINOMIAL}));
        EXPECT_EQ(bin.rounds, 1u + static_cast<uint32_t>(ceil_log2(p + 1)));
    }
}

TEST(collectives_worker_aggregator_closed_form, aggregators_of_aggregators) {
    for (int p : rank_counts()) {
        for (int f : {2, 3, 4}) {
            SCOPED_TRACE("p=" + std::to_string(p) + " fan_in=" + std::to_string(f));
            const uint64_t e = 1003;
            // Levels: ceil-divide by f until one aggregator remains.
            int levels = 0, aggregators = 0;
            for (int count = p; count > 1 || levels == 0;) {
                count = (count + f - 1) / f;
                aggregators += count;
                ++levels;
            }
            const schedule s = worker_aggregator(p, e, {f, aggregator_return::TREE});
            const cost_summary c = summarize(s);
            const uint64_t ranks = static_cast<uint64_t>(p + aggregators);
            ASSERT_EQ(s.ranks, p + aggregators);
            EXPECT_EQ(c.rounds, 2u * static_cast<uint32_t>(levels));
            // Every rank but the root sends the vector up once and receives it back once.
            EXPECT_EQ(c.elements_sent, 2 * (ranks - 1) * e);
            // Whatever the hierarchy, p vectors are combined with p - 1 additions.
            EXPECT_EQ(total_reduced(c), static_cast<uint64_t>(p - 1) * e);
            for (int a = p; a < s.ranks; ++a) EXPECT_FALSE(s.contributes[a]);

            const schedule sb = worker_aggregator(p, e, {f, aggregator_return::BINOMIAL});
            EXPECT_EQ(summarize(sb).rounds, static_cast<uint32_t>(levels + ceil_log2(s.ranks)));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Hierarchical ring and 2D ring against aries.md Table I ("Synchronization Latency" is the
// reduce-scatter's round count; the all-gather doubles it).

TEST(collectives_hierarchical_ring_closed_form, aries_table_1_for_4x4_and_8x8) {
    struct row {
        int n;
        int levels;
        uint32_t reduce_scatter;  // L * (N^(1/L) - 1)
    };
    for (const row& t : {row{16, 1, 15}, row{16, 2, 6}, row{16, 4, 4}, row{64, 1, 63},
                         row{64, 2, 14}, row{64, 3, 9}, row{64, 6, 6}}) {
        SCOPED_TRACE("N=" + std::to_string(t.n) + " L=" + std::to_string(t.levels));
        const cost_summary c = summarize(hierarchical_ring(t.n, t.levels, 4096));
        EXPECT_EQ(c.reduce_rounds, t.reduce_scatter);
        EXPECT_EQ(c.rounds, 2 * t.reduce_scatter);
    }
    // Ring: N - 1 and N links; 2D ring: 2(sqrt(N) - 1) and 2N links.
    EXPECT_EQ(summarize(ring_allreduce(16, 4096)).reduce_rounds, 15u);
    EXPECT_EQ(summarize(ring_allreduce(64, 4096)).reduce_rounds, 63u);
    const cost_summary r4 = summarize(ring_2d(4, 4, 4096));
    const cost_summary r8 = summarize(ring_2d(8, 8, 4096));
    EXPECT_EQ(r4.reduce_rounds, 6u);
    EXPECT_EQ(r8.reduce_rounds, 14u);
    EXPECT_EQ(r4.directed_links, 32u);
    EXPECT_EQ(r8.directed_links, 128u);
    // §IV-A-2: on 4x4 the two-level ring at least halves the ring's reduce-scatter latency.
    EXPECT_LE(2 * summarize(hierarchical_ring(16, 2, 4096)).reduce_rounds, 15u);
}

TEST(collectives_hierarchical_ring_closed_form, rounds_and_elements_for_any_group_sizes) {
    const std::vector<std::vector<int>> shapes = {{2, 3, 2},    {3, 5},    {4, 4, 4},
                                                  {2, 2, 2, 2}, {5, 1, 3}, {17}};
    for (const auto& groups : shapes) {
        int n = 1;
        uint32_t rs = 0;
        for (int g : groups) {
            n *= g;
            rs += static_cast<uint32_t>(g - 1);
        }
        const uint64_t un = static_cast<uint64_t>(n);
        for (uint64_t e : {un * 30, un + 3, uint64_t{1000003}}) {
            SCOPED_TRACE("N=" + std::to_string(n) + " elements=" + std::to_string(e));
            const cost_summary c = summarize(hierarchical_ring(groups, e));
            EXPECT_EQ(c.reduce_rounds, rs);
            EXPECT_EQ(c.rounds, 2 * rs);
            EXPECT_EQ(c.elements_sent, 2 * (un - 1) * e);
            for (const auto& rc : c.per_rank) {
                EXPECT_EQ(rc.rounds, 2 * rs);
                if (e % un == 0) {
                    EXPECT_EQ(rc.elements_sent * un, 2 * (un - 1) * e);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Bad arguments.

TEST(collectives_builders, reject_bad_arguments) {
    EXPECT_THROW(ring_allreduce(1, 10), std::invalid_argument);
    EXPECT_THROW(ring_allreduce(4, 0), std::invalid_argument);
    EXPECT_THROW(ring_allreduce(4, 10, 0), std::invalid_argument);
    EXPECT_THROW(binomial_tree_allreduce(1, 10), std::invalid_argument);
    EXPECT_THROW(halving_doubling_allreduce(0, 10), std::invalid_argument);
    EXPECT_THROW(recursive_doubling_allreduce(1, 10), std::invalid_argument);
    EXPECT_THROW(double_binary_tree(1, 10), std::invalid_argument);
    EXPECT_THROW(multi_tree(1, 10), std::invalid_argument);
    EXPECT_THROW(multi_tree(4, 10, -1), std::invalid_argument);
    EXPECT_THROW(multi_tree(4, 10, 2, 0), std::invalid_argument);
    EXPECT_THROW(multi_tree(std::vector<spanning_tree>{}, 10), std::invalid_argument);
    EXPECT_THROW(multi_tree({spanning_tree{{-1, 0, -1}}}, 10), std::invalid_argument);  // 2 roots
    EXPECT_THROW(multi_tree({spanning_tree{{-1, 2, 1}}}, 10), std::invalid_argument);   // cycle
    EXPECT_THROW(multi_tree({spanning_tree{{-1, 0, 5}}}, 10), std::invalid_argument);   // range
    EXPECT_THROW(multi_tree({spanning_tree{{-1, 0}}, spanning_tree{{-1, 0, 0}}}, 10),
                 std::invalid_argument);  // different rank counts
    EXPECT_THROW(worker_aggregator(0, 10), std::invalid_argument);
    EXPECT_THROW(worker_aggregator(4, 0), std::invalid_argument);
    EXPECT_THROW(worker_aggregator(4, 10, {1, aggregator_return::TREE}), std::invalid_argument);
    EXPECT_THROW(hierarchical_ring(std::vector<int>{}, 10), std::invalid_argument);
    EXPECT_THROW(hierarchical_ring(std::vector<int>{4, 0}, 10), std::invalid_argument);
    EXPECT_THROW(hierarchical_ring(std::vector<int>{1, 1}, 10), std::invalid_argument);
    EXPECT_THROW(hierarchical_ring(12, 2, 10), std::invalid_argument);  // not a square
    EXPECT_THROW(hierarchical_ring(16, 0, 10), std::invalid_argument);
    EXPECT_THROW(ring_2d(0, 4, 10), std::invalid_argument);
    EXPECT_THROW(ring_2d(1, 1, 10), std::invalid_argument);
    EXPECT_THROW(tree_height(spanning_tree{{0}}), std::invalid_argument);  // own parent
}

}  // namespace
}  // namespace trainvp::collectives
