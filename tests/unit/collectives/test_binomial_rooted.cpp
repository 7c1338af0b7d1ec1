// The binomial-tree broadcast and reduce (workloads/collectives/binomial_rooted.h): exact
// results for every N from 2 to 17 and several roots, ceil(log2 N) rounds, N - 1 messages,
// and their alpha-beta(-gamma) time.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "tests/unit/collectives/collectives_test_support.h"
#include "workloads/collectives/binomial_rooted.h"

namespace trainvp::collectives {
namespace {

using testing::ceil_log2;
using testing::run_and_check_result;

TEST(binomial_rooted, broadcast_and_reduce_are_exact_for_any_n_and_root) {
    const uint64_t n = 257;
    for (int N = 2; N <= 17; ++N) {
        const int L = ceil_log2(N);
        const std::set<int> roots{0, 1, N / 2, N - 1};
        for (int root : roots) {
            const schedule b = binomial_broadcast(N, n, root);
            const schedule r = binomial_reduce(N, n, root);
            validate(b);
            validate(r);
            const auto kb = run_and_check_result(b, collective_result::BROADCAST, root);
            const auto kr = run_and_check_result(r, collective_result::REDUCE, root);
            const cost_summary cb = summarize(b), cr = summarize(r);
            EXPECT_EQ(cb.rounds, static_cast<uint32_t>(L));
            EXPECT_EQ(cr.rounds, static_cast<uint32_t>(L));
            EXPECT_EQ(cr.reduce_rounds, static_cast<uint32_t>(L));
            // A spanning tree: N - 1 messages of the whole vector.
            EXPECT_EQ(cb.elements_sent, (N - 1) * n);
            EXPECT_EQ(cr.elements_sent, (N - 1) * n);
            EXPECT_EQ(cb.directed_links, static_cast<std::size_t>(N - 1));
            // The root sends (broadcast) or adds (reduce) in every round.
            const std::size_t ri = static_cast<std::size_t>(root);
            EXPECT_EQ(cb.per_rank[ri].messages_sent, static_cast<uint64_t>(L));
            EXPECT_EQ(kr[ri].elements_reduced, L * n);
            for (int q = 0; q < N; ++q) {
                const std::size_t i = static_cast<std::size_t>(q);
                // Every rank but the root receives the vector once / sends its sum once.
                EXPECT_EQ(kb[i].elements_received, q == root ? 0 : n);
                EXPECT_EQ(kr[i].elements_sent, q == root ? 0 : n);
            }
        }
    }
}

// T = ceil(log2 N)(alpha + beta 4n) for the broadcast, + gamma 4n per round for the reduce:
// at most one whole-vector message per rank and round, whatever the root.
TEST(binomial_rooted, alpha_beta_time_is_log_rounds_of_the_whole_vector) {
    abg_params p;
    p.alpha = 5e-6;
    p.beta = 1.0 / 1.25e9;
    p.gamma = 1.0 / 40e9;
    const uint64_t n = 10000;
    for (int N = 2; N <= 17; ++N) {
        const double L = ceil_log2(N);
        const double b = L * (p.alpha + p.beta * 4.0 * n);
        const double r = L * (p.alpha + (p.beta + p.gamma) * 4.0 * n);
        // 1e-12 relative: summation order only.
        EXPECT_NEAR(alpha_beta_gamma_time(binomial_broadcast(N, n, N - 1), p), b, 1e-12 * b);
        EXPECT_NEAR(alpha_beta_gamma_time(binomial_reduce(N, n, N / 2), p), r, 1e-12 * r);
    }
    EXPECT_THROW(binomial_broadcast(4, 10, -1), std::invalid_argument);
    EXPECT_THROW(binomial_reduce(4, 10, 4), std::invalid_argument);
    EXPECT_THROW(binomial_reduce(1, 10, 0), std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::collectives
