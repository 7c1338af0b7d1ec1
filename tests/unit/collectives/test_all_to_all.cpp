// The direct and pairwise-exchange all-to-alls (workloads/collectives/all_to_all.h): exact
// results on the two-half buffer, their counts and alpha-beta time.
#include <gtest/gtest.h>

#include <cstdint>

#include "tests/unit/collectives/collectives_test_support.h"
#include "workloads/collectives/all_to_all.h"

namespace trainvp::collectives {
namespace {

using testing::run_and_check_result;

// N = 2..12 with c = 5 elements per block: every rank holds every other rank's block for it,
// in source order; N (N - 1) messages of c over N (N - 1) directed links; the send half is
// only read.
TEST(all_to_all, direct_and_pairwise_are_exact) {
    for (int N = 2; N <= 12; ++N) {
        const uint64_t c = 5, n = c * static_cast<uint64_t>(N);
        for (const schedule& s : {direct_all_to_all(N, n), pairwise_all_to_all(N, n)}) {
            validate(s);
            EXPECT_EQ(s.elements, 2 * n);
            const auto counters = run_and_check_result(s, collective_result::ALL_TO_ALL);
            const cost_summary k = summarize(s);
            EXPECT_EQ(k.rounds,
                      s.algorithm == "direct_all_to_all" ? 1u : static_cast<uint32_t>(N - 1));
            EXPECT_EQ(k.directed_links, static_cast<std::size_t>(N * (N - 1)));
            EXPECT_EQ(k.elements_sent, static_cast<uint64_t>(N * (N - 1)) * c);
            for (int r = 0; r < N; ++r) {
                const std::size_t i = static_cast<std::size_t>(r);
                EXPECT_EQ(k.per_rank[i].messages_sent, static_cast<uint64_t>(N - 1));
                EXPECT_EQ(k.per_rank[i].rounds, k.rounds);
                EXPECT_EQ(counters[i].elements_sent, (N - 1) * c);
                EXPECT_EQ(counters[i].elements_received, (N - 1) * c);
            }
        }
    }
}

// In round k of the pairwise exchange rank r sends to r + k and receives from r - k.
TEST(all_to_all, pairwise_round_k_pairs_r_with_r_plus_k) {
    const int N = 7;
    const schedule s = pairwise_all_to_all(N, 7 * 3);
    for (int r = 0; r < N; ++r) {
        for (const step& st : s.steps[static_cast<std::size_t>(r)]) {
            const int k = static_cast<int>(st.round) + 1;
            EXPECT_EQ(st.peer, st.kind == step_kind::SEND ? (r + k) % N : (r - k + N) % N);
            // Send block peer from the send half; receive slot peer of the receive half.
            EXPECT_EQ(st.range.offset, (st.kind == step_kind::SEND ? 0u : 21u) +
                                           3u * static_cast<uint64_t>(st.peer));
        }
    }
}

// T_direct = alpha + beta 4 (N - 1) c (one round; each rank's N - 1 sends serialise on its
// link); T_pairwise = (N - 1)(alpha + beta 4c): the same bytes, N - 2 more latencies.
TEST(all_to_all, alpha_beta_time) {
    abg_params p;
    p.alpha = 5e-6;
    p.beta = 1.0 / 1.25e9;
    const uint64_t c = 4096;
    for (int N = 2; N <= 16; ++N) {
        const uint64_t n = c * static_cast<uint64_t>(N);
        const double d = p.alpha + p.beta * 4.0 * (N - 1) * c;
        const double w = (N - 1) * (p.alpha + p.beta * 4.0 * c);
        // 1e-12 relative: summation order only.
        EXPECT_NEAR(alpha_beta_gamma_time(direct_all_to_all(N, n), p), d, 1e-12 * d);
        EXPECT_NEAR(alpha_beta_gamma_time(pairwise_all_to_all(N, n), p), w, 1e-12 * w);
    }
}

TEST(all_to_all, needs_equal_blocks) {
    try {
        direct_all_to_all(3, 1000);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(),
                     "direct_all_to_all: 1000 elements do not split into 3 equal blocks (an "
                     "all-to-all needs a multiple of the ranks)");
    }
    EXPECT_THROW(pairwise_all_to_all(1, 10), std::invalid_argument);
    EXPECT_THROW(pairwise_all_to_all(4, 0), std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::collectives
