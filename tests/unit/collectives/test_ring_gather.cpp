// The ring all-gather, ring reduce-scatter and pipelined chain broadcast
// (workloads/collectives/ring_gather.h): exact results on data for uneven blocks and every
// root, their counts against closed forms, and their alpha-beta(-gamma) time.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/unit/collectives/collectives_test_support.h"
#include "workloads/collectives/ring_gather.h"

namespace trainvp::collectives {
namespace {

using testing::block_size;
using testing::run_and_check_result;

abg_params params() {
    abg_params p;
    p.alpha = 5e-6;
    p.beta = 1.0 / 1.25e9;  // 10 Gb/s
    p.gamma = 1.0 / 40e9;
    return p;
}

// Relative tolerance of the time comparisons: the model sums one term per round in a
// different order than the closed form; 1e-12 is far above double rounding over <= 40 terms
// and far below any one-message error (alpha / T > 1e-3 here).
double tol(double t) { return 1e-12 * t; }

// N = 2..17, n = 1000 (uneven for most N): every rank ends with every block; rank r sends
// every block but r + 1's (N - 1 messages), receives every block but its own.
TEST(ring_gather, allgather_is_exact_with_ring_counts) {
    const uint64_t n = 1000;
    for (int N = 2; N <= 17; ++N) {
        const schedule s = ring_allgather(N, n);
        validate(s);
        const auto counters = run_and_check_result(s, collective_result::ALL_GATHER);
        const cost_summary c = summarize(s);
        EXPECT_EQ(c.rounds, static_cast<uint32_t>(N - 1));
        EXPECT_EQ(c.directed_links, static_cast<std::size_t>(N));
        EXPECT_EQ(c.elements_sent, (N - 1) * n);
        for (int r = 0; r < N; ++r) {
            const auto& k = counters[static_cast<std::size_t>(r)];
            const uint64_t u = static_cast<uint64_t>(N);
            EXPECT_EQ(k.elements_sent, n - block_size(n, u, static_cast<uint64_t>((r + 1) % N)));
            EXPECT_EQ(k.elements_received, n - block_size(n, u, static_cast<uint64_t>(r)));
            EXPECT_EQ(k.elements_reduced, 0u);
            EXPECT_EQ(c.per_rank[static_cast<std::size_t>(r)].messages_sent,
                      static_cast<uint64_t>(N - 1));
        }
    }
}

// Rank r ends with block r of the sum: it sends every block but its own and adds every block
// but block r - 1 (which it sends first, unreduced).
TEST(ring_gather, reduce_scatter_is_exact_with_ring_counts) {
    const uint64_t n = 1000;
    for (int N = 2; N <= 17; ++N) {
        const schedule s = ring_reduce_scatter(N, n);
        validate(s);
        const auto counters = run_and_check_result(s, collective_result::REDUCE_SCATTER);
        const cost_summary c = summarize(s);
        EXPECT_EQ(c.rounds, static_cast<uint32_t>(N - 1));
        EXPECT_EQ(c.reduce_rounds, static_cast<uint32_t>(N - 1));
        EXPECT_EQ(c.elements_sent, (N - 1) * n);
        const uint64_t u = static_cast<uint64_t>(N);
        for (int r = 0; r < N; ++r) {
            const auto& k = counters[static_cast<std::size_t>(r)];
            EXPECT_EQ(k.elements_sent, n - block_size(n, u, static_cast<uint64_t>(r)));
            EXPECT_EQ(k.elements_reduced,
                      n - block_size(n, u, static_cast<uint64_t>((r + N - 1) % N)));
        }
    }
}

// N divides n (c = n / N): T_AG = (N - 1)(alpha + beta 4c), T_RS = (N - 1)(alpha + (beta +
// gamma) 4c): the two halves of inceptionn.md §VIII-D's ring formula.
TEST(ring_gather, alpha_beta_time_is_n_minus_one_steps_of_one_block) {
    const abg_params p = params();
    for (int N : {2, 3, 4, 8, 16}) {
        const uint64_t n = 48 * 1024;  // a multiple of every N above
        const double c = 4.0 * static_cast<double>(n / static_cast<uint64_t>(N));
        const double ag = (N - 1) * (p.alpha + p.beta * c);
        const double rs = (N - 1) * (p.alpha + (p.beta + p.gamma) * c);
        EXPECT_NEAR(alpha_beta_gamma_time(ring_allgather(N, n), p), ag, tol(ag));
        EXPECT_NEAR(alpha_beta_gamma_time(ring_reduce_scatter(N, n), p), rs, tol(rs));
        // Together they cost what the ring all-reduce costs.
        const double ar = alpha_beta_gamma_time(ring_allreduce(N, n), p);
        EXPECT_NEAR(ag + rs, ar, tol(ar));
    }
    EXPECT_THROW(ring_allgather(1, 10), std::invalid_argument);
    EXPECT_THROW(ring_reduce_scatter(3, 0), std::invalid_argument);
}

// N in {2, 3, 5, 8, 17} x S in {1, 2, 4, 7} x three roots: every rank ends with the root's
// vector; N + S - 2 rounds; every rank but the chain's last (root - 1) sends n in S messages,
// every rank but the root receives n.
TEST(ring_gather, chain_broadcast_is_exact_in_n_plus_s_minus_2_rounds) {
    const uint64_t n = 1000;  // not a multiple of 7: uneven segments
    for (int N : {2, 3, 5, 8, 17}) {
        for (uint32_t S : {1u, 2u, 4u, 7u}) {
            for (int root : {0, N / 2, N - 1}) {
                const schedule s = chain_broadcast(N, n, root, S);
                validate(s);
                const auto counters = run_and_check_result(s, collective_result::BROADCAST, root);
                const cost_summary c = summarize(s);
                EXPECT_EQ(c.rounds, static_cast<uint32_t>(N) + S - 2);
                EXPECT_EQ(c.elements_sent, (N - 1) * n);
                EXPECT_EQ(c.directed_links, static_cast<std::size_t>(N - 1));
                for (int r = 0; r < N; ++r) {
                    const bool last = r == (root + N - 1) % N;
                    EXPECT_EQ(c.per_rank[static_cast<std::size_t>(r)].messages_sent, last ? 0u : S);
                    EXPECT_EQ(counters[static_cast<std::size_t>(r)].elements_sent, last ? 0 : n);
                    EXPECT_EQ(counters[static_cast<std::size_t>(r)].elements_received,
                              r == root ? 0 : n);
                }
            }
        }
    }
}

// S divides n: T = (N + S - 2)(alpha + beta 4n / S): for large n the pipelined chain beats
// the binomial tree's ceil(log2 N)(alpha + beta 4n), which is why large broadcasts use it.
TEST(ring_gather, chain_broadcast_alpha_beta_time) {
    const abg_params p = params();
    const uint64_t n = 1 << 20;
    for (int N : {2, 5, 16}) {
        for (uint32_t S : {1u, 4u, 64u}) {
            const double t = (N + S - 2) * (p.alpha + p.beta * 4.0 * static_cast<double>(n / S));
            EXPECT_NEAR(alpha_beta_gamma_time(chain_broadcast(N, n, 1 % N, S), p), t, tol(t));
        }
    }
    // 16 ranks, 4 MiB: 78 rounds of 64 KiB against 4 rounds of 4 MiB.
    EXPECT_LT(alpha_beta_gamma_time(chain_broadcast(16, n, 0, 64), p),
              alpha_beta_gamma_time(binomial_broadcast(16, n, 0), p));
    EXPECT_THROW(chain_broadcast(4, 10, 4, 1), std::invalid_argument);
    EXPECT_THROW(chain_broadcast(4, 10, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::collectives
