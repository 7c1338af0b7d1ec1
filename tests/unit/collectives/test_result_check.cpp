// check_result (workloads/collectives/result_check.h) finds what is wrong: a wrong element,
// a result kind the schedule does not give, and arguments that do not fit.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/unit/collectives/collectives_test_support.h"

namespace trainvp::collectives {
namespace {

using buffers = std::vector<std::vector<double>>;

buffers inputs(int ranks, uint64_t n) {
    buffers in(static_cast<std::size_t>(ranks), std::vector<double>(n));
    for (int r = 0; r < ranks; ++r) {
        for (uint64_t e = 0; e < n; ++e) in[static_cast<std::size_t>(r)][e] = 100.0 * r + e;
    }
    return in;
}

TEST(result_check, names_the_first_wrong_element) {
    const schedule s = ring_allreduce(3, 4);
    const buffers in = inputs(3, 4);
    buffers out = in;
    execute(s, out);
    EXPECT_EQ(check_result(s, collective_result::ALL_REDUCE, 0, in, out), "");
    out[2][3] += 1;
    // Element 3 sums 3 + 103 + 203 = 309.
    EXPECT_EQ(check_result(s, collective_result::ALL_REDUCE, 0, in, out),
              "ring (all-reduce, 3 ranks, 4 elements): rank 2 element 3 is 310, want 309");
}

// Each kind promises something the others' schedules do not give.
TEST(result_check, a_schedule_fails_the_results_it_does_not_give) {
    struct item {
        schedule s;
        collective_result gives, not_this;
    };
    const std::vector<item> items{
        {ring_allgather(4, 8), collective_result::ALL_GATHER, collective_result::BROADCAST},
        {ring_reduce_scatter(4, 8), collective_result::REDUCE_SCATTER,
         collective_result::ALL_REDUCE},
        {binomial_reduce(4, 8, 1), collective_result::REDUCE, collective_result::ALL_REDUCE},
        {binomial_broadcast(4, 8, 1), collective_result::BROADCAST, collective_result::REDUCE},
        {ring_allreduce(4, 8), collective_result::ALL_REDUCE, collective_result::BROADCAST},
        {pairwise_all_to_all(4, 8), collective_result::ALL_TO_ALL, collective_result::ALL_GATHER},
    };
    for (const item& it : items) {
        const buffers in = inputs(4, it.s.elements);
        buffers out = in;
        execute(it.s, out);
        EXPECT_EQ(check_result(it.s, it.gives, 1, in, out), "") << it.s.algorithm;
        EXPECT_NE(check_result(it.s, it.not_this, 1, in, out), "") << it.s.algorithm;
        // Nothing run: no kind holds on the inputs (every rank's data differs).
        EXPECT_NE(check_result(it.s, it.gives, 1, in, in), "") << it.s.algorithm;
    }
    // The root matters: a broadcast from 1 is not a broadcast from 2.
    const schedule b = binomial_broadcast(4, 8, 1);
    const buffers in = inputs(4, 8);
    buffers out = in;
    execute(b, out);
    EXPECT_NE(check_result(b, collective_result::BROADCAST, 2, in, out), "");
}

TEST(result_check, refuses_arguments_that_do_not_fit) {
    const schedule s = ring_allreduce(4, 8);
    const buffers in = inputs(4, 8);
    EXPECT_THROW(check_result(s, collective_result::BROADCAST, 4, in, in), std::invalid_argument);
    EXPECT_THROW(check_result(s, collective_result::ALL_REDUCE, 0, std::vector<int>{0, 9}, in, in),
                 std::invalid_argument);
    EXPECT_THROW(check_result(s, collective_result::ALL_REDUCE, 0, inputs(3, 8), in),
                 std::invalid_argument);
    // 8 elements are not 2 x a multiple of 3 ranks.
    EXPECT_THROW(
        check_result(s, collective_result::ALL_TO_ALL, 0, std::vector<int>{0, 1, 2}, in, in),
        std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::collectives
