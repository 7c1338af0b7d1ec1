// Every algorithm, every rank count 2..17 and 64, even and uneven sizes: every rank ends with
// exactly the elementwise sum, validate() passes, and the executor's counters agree with the
// static cost summary.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "tests/unit/collectives/collectives_test_support.h"

namespace trainvp::collectives {
namespace {

using testing::run_and_check;

struct algorithm_case {
    const char* name;
    std::function<schedule(int, uint64_t)> build;  // (N, elements)
};

// A factorisation of n into its prime factors, smallest first: as many ring levels as possible.
std::vector<int> prime_factors(int n) {
    std::vector<int> out;
    for (int f = 2; f * f <= n; ++f) {
        while (n % f == 0) {
            out.push_back(f);
            n /= f;
        }
    }
    if (n > 1) out.push_back(n);
    return out;
}

// The most square rows x cols with rows <= cols.
std::pair<int, int> near_square(int n) {
    int rows = 1;
    for (int r = 1; r * r <= n; ++r) {
        if (n % r == 0) rows = r;
    }
    return {rows, n / rows};
}

const std::vector<algorithm_case>& cases() {
    static const std::vector<algorithm_case> all = {
        {"ring", [](int n, uint64_t e) { return ring_allreduce(n, e); }},
        {"ring_pipelined3", [](int n, uint64_t e) { return ring_allreduce(n, e, 3); }},
        {"binomial_tree", [](int n, uint64_t e) { return binomial_tree_allreduce(n, e); }},
        {"halving_doubling", [](int n, uint64_t e) { return halving_doubling_allreduce(n, e); }},
        {"recursive_doubling",
         [](int n, uint64_t e) { return recursive_doubling_allreduce(n, e); }},
        {"double_binary_tree", [](int n, uint64_t e) { return double_binary_tree(n, e); }},
        {"multi_tree", [](int n, uint64_t e) { return multi_tree(n, e); }},
        {"multi_tree_k4_d3", [](int n, uint64_t e) { return multi_tree(n, e, 4, 3); }},
        {"worker_aggregator", [](int n, uint64_t e) { return worker_aggregator(n, e); }},
        {"worker_aggregator_binomial",
         [](int n, uint64_t e) {
             return worker_aggregator(n, e, {0, aggregator_return::BINOMIAL});
         }},
        {"worker_aggregator_fanin3",
         [](int n, uint64_t e) {
             return worker_aggregator(n, e, {3, aggregator_return::TREE});
         }},
        {"worker_aggregator_fanin2_binomial",
         [](int n, uint64_t e) {
             return worker_aggregator(n, e, {2, aggregator_return::BINOMIAL});
         }},
        {"hierarchical_ring",
         [](int n, uint64_t e) { return hierarchical_ring(prime_factors(n), e); }},
        {"ring_2d",
         [](int n, uint64_t e) {
             const auto [rows, cols] = near_square(n);
             return ring_2d(rows, cols, e);
         }},
    };
    return all;
}

class all_reduce_test : public ::testing::TestWithParam<std::tuple<std::size_t, int>> {};

TEST_P(all_reduce_test, every_rank_ends_with_the_exact_sum) {
    const algorithm_case& c = cases()[std::get<0>(GetParam())];
    const int n = std::get<1>(GetParam());
    const uint64_t un = static_cast<uint64_t>(n);
    // A million-element vector for a spread of small N (2, primes, powers of two, 17); a
    // smaller prime size elsewhere and at N = 64, so the whole binary stays around 10 s.
    const bool large = n == 2 || n == 3 || n == 5 || n == 8 || n == 16 || n == 17;
    const std::vector<uint64_t> sizes = {1, un - 1, un + 3, large ? 1000003u : 10007u};
    for (uint64_t elements : sizes) {
        SCOPED_TRACE(std::string(c.name) + " N=" + std::to_string(n) +
                     " elements=" + std::to_string(elements));
        const schedule s = c.build(n, elements);
        ASSERT_NO_THROW(validate(s));
        EXPECT_TRUE(is_lockstep(s));
        const auto counters = run_and_check<double>(s);
        const cost_summary cost = summarize(s);
        ASSERT_EQ(counters.size(), cost.per_rank.size());
        for (std::size_t r = 0; r < counters.size(); ++r) {
            SCOPED_TRACE("rank " + std::to_string(r));
            EXPECT_EQ(counters[r].steps, s.steps[r].size());
            EXPECT_EQ(counters[r].rounds, cost.per_rank[r].rounds);
            EXPECT_EQ(counters[r].elements_sent, cost.per_rank[r].elements_sent);
            EXPECT_EQ(counters[r].elements_received, cost.per_rank[r].elements_received);
            EXPECT_EQ(counters[r].elements_reduced, cost.per_rank[r].elements_reduced);
        }
        // Dropping empty transfers keeps the schedule valid and correct.
        const schedule compact = without_empty_transfers(s);
        ASSERT_NO_THROW(validate(compact));
        if (elements < 1000) run_and_check<double>(compact);
    }
}

TEST_P(all_reduce_test, runs_on_float_too) {
    const algorithm_case& c = cases()[std::get<0>(GetParam())];
    const int n = std::get<1>(GetParam());
    // Small integers stay exact in float.
    const schedule s = c.build(n, static_cast<uint64_t>(2 * n + 5));
    run_and_check<float>(s);
}

std::vector<int> rank_counts() {
    std::vector<int> out;
    for (int n = 2; n <= 17; ++n) out.push_back(n);
    out.push_back(64);
    return out;
}

std::vector<std::size_t> case_indices() {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < cases().size(); ++i) out.push_back(i);
    return out;
}

INSTANTIATE_TEST_SUITE_P(collectives, all_reduce_test,
                         ::testing::Combine(::testing::ValuesIn(case_indices()),
                                            ::testing::ValuesIn(rank_counts())),
                         [](const ::testing::TestParamInfo<all_reduce_test::ParamType>& info) {
                             return std::string(cases()[std::get<0>(info.param)].name) + "_N" +
                                    std::to_string(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace trainvp::collectives
