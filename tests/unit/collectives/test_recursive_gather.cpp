// The recursive-doubling all-gather and recursive-halving reduce-scatter
// (workloads/collectives/recursive_gather.h): exact results on data, log2 N rounds, the
// counts and alpha-beta(-gamma) times of Thakur, Rabenseifner & Gropp (IJHPCA 2005).
#include <gtest/gtest.h>

#include <cstdint>

#include "tests/unit/collectives/collectives_test_support.h"
#include "workloads/collectives/recursive_gather.h"
#include "workloads/collectives/ring_gather.h"

namespace trainvp::collectives {
namespace {

using testing::floor_log2;
using testing::run_and_check_result;

// N = 2..64 (powers of two), n = 1000 (uneven blocks from N = 16 on) and n = 1024: exact
// results; log2 N rounds, log2 N messages per rank.  With N | n (n = 1024) each rank sends
// (N - 1) c elements in the all-gather, and sends and adds (N - 1) c in the reduce-scatter.
TEST(recursive_gather, exact_in_log2_n_rounds_with_n_minus_one_blocks_per_rank) {
    for (int N = 2; N <= 64; N *= 2) {
        const int L = floor_log2(N);
        for (uint64_t n : {1000ull, 1024ull}) {
            const schedule ag = recursive_doubling_allgather(N, n);
            const schedule rs = recursive_halving_reduce_scatter(N, n);
            validate(ag);
            validate(rs);
            const auto kag = run_and_check_result(ag, collective_result::ALL_GATHER);
            const auto krs = run_and_check_result(rs, collective_result::REDUCE_SCATTER);
            const cost_summary cag = summarize(ag), crs = summarize(rs);
            EXPECT_EQ(cag.rounds, static_cast<uint32_t>(L));
            EXPECT_EQ(crs.rounds, static_cast<uint32_t>(L));
            EXPECT_EQ(crs.reduce_rounds, static_cast<uint32_t>(L));
            // Partners at distance 1, 2, ..., N/2: N log2 N directed links.
            EXPECT_EQ(cag.directed_links, static_cast<std::size_t>(N * L));
            EXPECT_EQ(crs.directed_links, static_cast<std::size_t>(N * L));
            for (int r = 0; r < N; ++r) {
                const std::size_t i = static_cast<std::size_t>(r);
                EXPECT_EQ(cag.per_rank[i].messages_sent, static_cast<uint64_t>(L));
                EXPECT_EQ(crs.per_rank[i].messages_sent, static_cast<uint64_t>(L));
                if (n % static_cast<uint64_t>(N) != 0) continue;
                const uint64_t c = n / static_cast<uint64_t>(N);
                EXPECT_EQ(kag[i].elements_sent, (N - 1) * c);
                EXPECT_EQ(kag[i].elements_received, (N - 1) * c);
                EXPECT_EQ(krs[i].elements_sent, (N - 1) * c);
                EXPECT_EQ(krs[i].elements_reduced, (N - 1) * c);
            }
        }
    }
}

// T_AG = log2(N) alpha + (N - 1) beta 4c and T_RS = log2(N) alpha + (N - 1)(beta + gamma) 4c:
// the ring's bandwidth term with log2 N latencies instead of N - 1.
TEST(recursive_gather, alpha_beta_time_is_log_latency_and_ring_bandwidth) {
    abg_params p;
    p.alpha = 5e-6;
    p.beta = 1.0 / 1.25e9;
    p.gamma = 1.0 / 40e9;
    const uint64_t n = 1 << 16;
    for (int N = 2; N <= 64; N *= 2) {
        const double L = floor_log2(N);
        const double c = 4.0 * static_cast<double>(n / static_cast<uint64_t>(N));
        const double ag = L * p.alpha + (N - 1) * p.beta * c;
        const double rs = L * p.alpha + (N - 1) * (p.beta + p.gamma) * c;
        // 1e-12 relative: summation order differs from the closed form's (log2 N terms).
        EXPECT_NEAR(alpha_beta_gamma_time(recursive_doubling_allgather(N, n), p), ag, 1e-12 * ag);
        EXPECT_NEAR(alpha_beta_gamma_time(recursive_halving_reduce_scatter(N, n), p), rs,
                    1e-12 * rs);
        // Same bytes as the ring, fewer latencies from N = 4 on.
        if (N >= 4) {
            EXPECT_LT(ag, alpha_beta_gamma_time(ring_allgather(N, n), p));
        }
    }
}

TEST(recursive_gather, needs_a_power_of_two) {
    EXPECT_THROW(recursive_doubling_allgather(6, 100), std::invalid_argument);
    EXPECT_THROW(recursive_halving_reduce_scatter(12, 100), std::invalid_argument);
    EXPECT_THROW(recursive_doubling_allgather(1, 100), std::invalid_argument);
    EXPECT_THROW(recursive_halving_reduce_scatter(4, 0), std::invalid_argument);
    collective_args a;
    a.ranks = 6;
    a.elements = 100;
    // The registry says so before the factory runs.
    EXPECT_THROW(collective_registry::global().make("recursive_doubling_allgather", a),
                 std::invalid_argument);
    EXPECT_EQ(
        describe_needs(collective_registry::global().get("recursive_halving_reduce_scatter").needs),
        "power-of-two N, N >= 2");
}

}  // namespace
}  // namespace trainvp::collectives
