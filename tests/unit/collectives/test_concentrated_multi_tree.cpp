// ARIES's concentrated multi-tree (aries.md §IV-B-2, Fig. 8): exact sums on every rank, the
// round count against the paper's tree height log_D(N/4), and the bytes it moves.
//
// Closed forms (G = N/4 groups of four, n elements, halves n0 + n1 = n, D-ary heaps):
//   rounds        = 1 (reduce into the concentrators) + 2 H (multi-tree among the G
//                   concentrators, reduce + broadcast) + 1 (back into the groups), where H is
//                   the height of a D-ary heap of G nodes; H = log_D(N/4) when N/4 is a power
//                   of D (aries.md: "the latency ... is approximately reduced to log_D N/4").
//   reduce rounds = 1 + H (the reduce-scatter: synchronisation latency in Table I's sense).
//   elements sent = G (3 n0 + 3 n1) twice (in and out of the groups) + 2 (G - 1) n (each
//                   half's multi-tree moves 2 (G - 1) x half, workloads/collectives/README.md)
//                 = 6 G n + 2 (G - 1) n.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/unit/collectives/collectives_test_support.h"

namespace trainvp::collectives {
namespace {

using testing::heap_height;
using testing::run_and_check;

TEST(concentrated_multi_tree, grid_quads_are_the_2x2_blocks_of_fig_8b) {
    const auto q = grid_quads(4, 4);
    ASSERT_EQ(q.size(), 4u);
    EXPECT_EQ(q[0], (std::vector<int>{0, 1, 4, 5}));  // Fig. 8(b): the blue concentrated node
    EXPECT_EQ(q[3], (std::vector<int>{10, 11, 14, 15}));
    EXPECT_THROW(grid_quads(3, 4), std::invalid_argument);
}

TEST(concentrated_multi_tree, every_rank_ends_with_the_exact_sum) {
    for (auto [cols, rows] : {std::pair{2, 2}, {4, 4}, {8, 8}, {4, 6}, {2, 8}}) {
        const uint64_t n = static_cast<uint64_t>(cols * rows);
        for (uint64_t e : {n * 96, n * 7 + 3, uint64_t{5}}) {
            for (auto [trees, degree] : {std::pair{0, 2}, {0, 4}, {4, 2}, {2, 3}}) {
                SCOPED_TRACE(std::to_string(cols) + "x" + std::to_string(rows) +
                             " e=" + std::to_string(e) + " K=" + std::to_string(trees) +
                             " D=" + std::to_string(degree));
                const schedule s = concentrated_multi_tree(cols, rows, e, trees, degree);
                ASSERT_NO_THROW(validate(s));
                run_and_check<double>(s);
            }
        }
    }
}

TEST(concentrated_multi_tree, rounds_are_2_log_d_of_n_over_4_plus_2) {
    for (int k : {4, 8}) {
        const int n = k * k, g = n / 4;
        for (int degree : {2, 4}) {
            const schedule s = concentrated_multi_tree(k, k, 1000, 0, degree);
            const cost_summary c = summarize(s);
            const int h = heap_height(g, degree);
            // N/4 is a power of D for every case here: H is exactly log_D(N/4).
            int power = 1;
            for (int i = 0; i < h; ++i) power *= degree;
            EXPECT_EQ(power, g) << k << " D=" << degree;
            EXPECT_EQ(c.rounds, static_cast<uint32_t>(2 * h + 2));
            EXPECT_EQ(c.reduce_rounds, static_cast<uint32_t>(h + 1));
        }
    }
}

TEST(concentrated_multi_tree, elements_sent_closed_form) {
    for (auto [cols, rows] : {std::pair{2, 2}, {4, 4}, {8, 8}, {4, 6}}) {
        const uint64_t g = static_cast<uint64_t>(cols * rows / 4);
        for (uint64_t e : {uint64_t{1000}, uint64_t{1001}}) {
            const cost_summary c = summarize(concentrated_multi_tree(cols, rows, e));
            EXPECT_EQ(c.elements_sent, 6 * g * e + 2 * (g - 1) * e) << cols << "x" << rows;
        }
    }
}

TEST(concentrated_multi_tree, rejects_bad_groups) {
    EXPECT_THROW(concentrated_multi_tree({{0, 1}, {2}}, 10), std::invalid_argument);
    EXPECT_THROW(concentrated_multi_tree({{0, 1}, {1, 2}}, 10), std::invalid_argument);
    EXPECT_THROW(concentrated_multi_tree({{0, 1}, {2, 5}}, 10), std::invalid_argument);
    EXPECT_THROW(concentrated_multi_tree(4, 4, 1), std::invalid_argument);
    EXPECT_THROW(concentrated_multi_tree(4, 4, 10, -1), std::invalid_argument);
    EXPECT_THROW(concentrated_multi_tree(4, 4, 10, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::collectives
