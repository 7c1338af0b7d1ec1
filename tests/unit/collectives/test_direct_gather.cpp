// The direct all-gather and reduce-scatter (workloads/collectives/direct_gather.h) alone: on
// real data with the functional executor (every rank ends with every block / the sum of its
// own block), their counts against closed forms, and their alpha-beta(-gamma) time.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/unit/collectives/collectives_test_support.h"
#include "workloads/collectives/direct_gather.h"

namespace trainvp::collectives {
namespace {

using testing::input_value;

// N = 2..9 and uneven blocks (n = 1000 is not a multiple of 3, 6, 7, 9): rank r's input holds
// its block and garbage elsewhere; afterwards every rank holds every rank's block.
TEST(direct_gather, allgather_gives_every_rank_every_block) {
    for (int N = 2; N <= 9; ++N) {
        const uint64_t n = 1000;
        const schedule s = direct_allgather(N, n);
        const auto blocks = partition(n, static_cast<uint64_t>(N));
        std::vector<std::vector<double>> buf(static_cast<std::size_t>(N),
                                             std::vector<double>(n, -1.0));
        for (int r = 0; r < N; ++r) {
            const chunk& b = blocks[static_cast<std::size_t>(r)];
            for (uint64_t e = b.offset; e < b.offset + b.count; ++e) {
                buf[static_cast<std::size_t>(r)][e] = input_value(r, e);
            }
        }
        const auto counters = execute(s, buf);
        for (int r = 0; r < N; ++r) {
            for (int owner = 0; owner < N; ++owner) {
                const chunk& b = blocks[static_cast<std::size_t>(owner)];
                for (uint64_t e = b.offset; e < b.offset + b.count; ++e) {
                    ASSERT_EQ(buf[static_cast<std::size_t>(r)][e], input_value(owner, e))
                        << "N " << N << " rank " << r << " element " << e;
                }
            }
            // (N - 1) b_r sent, n - b_r received, nothing added.
            const uint64_t br = blocks[static_cast<std::size_t>(r)].count;
            EXPECT_EQ(counters[static_cast<std::size_t>(r)].elements_sent, (N - 1) * br);
            EXPECT_EQ(counters[static_cast<std::size_t>(r)].elements_received, n - br);
            EXPECT_EQ(counters[static_cast<std::size_t>(r)].elements_reduced, 0u);
        }
        const cost_summary c = summarize(s);
        EXPECT_EQ(c.rounds, 1u);
        EXPECT_EQ(c.directed_links, static_cast<std::size_t>(N * (N - 1)));
        EXPECT_EQ(c.elements_sent, (N - 1) * n);
    }
}

// Every rank holds a different full vector; rank r ends with block r of their sum (the rest
// of its buffer is its own partial sums, untouched).
TEST(direct_gather, reduce_scatter_leaves_each_rank_the_sum_of_its_block) {
    for (int N = 2; N <= 9; ++N) {
        const uint64_t n = 1000;
        const schedule s = direct_reduce_scatter(N, n);
        const auto blocks = partition(n, static_cast<uint64_t>(N));
        std::vector<std::vector<double>> buf(static_cast<std::size_t>(N), std::vector<double>(n));
        for (int r = 0; r < N; ++r) {
            for (uint64_t e = 0; e < n; ++e)
                buf[static_cast<std::size_t>(r)][e] = input_value(r, e);
        }
        const auto counters = execute(s, buf);
        for (int r = 0; r < N; ++r) {
            const chunk& b = blocks[static_cast<std::size_t>(r)];
            for (uint64_t e = b.offset; e < b.offset + b.count; ++e) {
                double sum = 0;
                for (int q = 0; q < N; ++q) sum += input_value(q, e);
                ASSERT_EQ(buf[static_cast<std::size_t>(r)][e], sum) << "N " << N << " rank " << r;
            }
            EXPECT_EQ(counters[static_cast<std::size_t>(r)].elements_sent, n - b.count);
            EXPECT_EQ(counters[static_cast<std::size_t>(r)].elements_reduced, (N - 1) * b.count);
        }
    }
}

// One round: T = alpha + beta x 4 B x max(sent, received) (+ gamma x 4 B x reduced), each
// rank sending and receiving (N - 1) n / N elements when N divides n.
TEST(direct_gather, alpha_beta_gamma_time_is_one_round_of_n_minus_one_blocks) {
    abg_params p;
    p.alpha = 5e-6;
    p.beta = 1.0 / 6e9;
    p.gamma = 1.0 / 40e9;
    for (int N : {2, 4, 8}) {
        const uint64_t n = 128 * 256 * 25;  // paleo.md Table 4: pool5 of 128 samples per GPU
        const double block = 4.0 * static_cast<double>(n / static_cast<uint64_t>(N));
        EXPECT_NEAR(alpha_beta_gamma_time(direct_allgather(N, n), p),
                    p.alpha + p.beta * (N - 1) * block, 1e-15);
        EXPECT_NEAR(alpha_beta_gamma_time(direct_reduce_scatter(N, n), p),
                    p.alpha + (p.beta + p.gamma) * (N - 1) * block, 1e-15);
    }
    EXPECT_THROW(direct_allgather(1, 10), std::invalid_argument);
    EXPECT_THROW(direct_reduce_scatter(4, 0), std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::collectives
