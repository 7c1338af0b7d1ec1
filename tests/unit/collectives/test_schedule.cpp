// The data model's helpers, the builder and the executor's semantics on hand-made schedules.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "tests/unit/collectives/collectives_test_support.h"

namespace trainvp::collectives {
namespace {

TEST(collectives_partition, first_remainder_chunks_are_one_larger) {
    const auto p = partition(10, 4);
    ASSERT_EQ(p.size(), 4u);
    EXPECT_EQ(p[0], (chunk{0, 3}));
    EXPECT_EQ(p[1], (chunk{3, 3}));
    EXPECT_EQ(p[2], (chunk{6, 2}));
    EXPECT_EQ(p[3], (chunk{8, 2}));
}

TEST(collectives_partition, more_parts_than_elements_gives_empty_tail_chunks) {
    const auto p = partition(chunk{5, 2}, 4);
    EXPECT_EQ(p[0], (chunk{5, 1}));
    EXPECT_EQ(p[1], (chunk{6, 1}));
    EXPECT_EQ(p[2], (chunk{7, 0}));
    EXPECT_EQ(p[3], (chunk{7, 0}));
    EXPECT_THROW(partition(3, 0), std::invalid_argument);
}

TEST(collectives_overlaps, half_open_ranges_and_empty_ranges) {
    EXPECT_TRUE(overlaps({0, 4}, {3, 1}));
    EXPECT_FALSE(overlaps({0, 4}, {4, 1}));
    EXPECT_FALSE(overlaps({2, 0}, {0, 10}));
}

TEST(collectives_group_by_round, groups_consecutive_steps_of_a_round) {
    std::vector<step> steps = {{step_kind::SEND, 1, {0, 1}, 0, 0},
                               {step_kind::RECV_COPY, 1, {1, 1}, 0, 0},
                               {step_kind::SEND, 1, {0, 1}, 3, 1}};
    const auto g = group_by_round(steps);
    ASSERT_EQ(g.size(), 2u);
    EXPECT_EQ(g[0].round, 0u);
    EXPECT_EQ(g[0].begin, 0u);
    EXPECT_EQ(g[0].end, 2u);
    EXPECT_EQ(g[1].round, 3u);
    EXPECT_EQ(g[1].begin, 2u);
    EXPECT_EQ(g[1].end, 3u);
}

TEST(collectives_schedule_builder, numbers_messages_per_pair_and_orders_by_round) {
    schedule_builder b("t", 3, 8);
    b.transfer(0, 1, {0, 4}, step_kind::RECV_REDUCE, 2);
    b.transfer(0, 1, {4, 4}, step_kind::RECV_COPY, 0);
    b.transfer(2, 1, {0, 4}, step_kind::RECV_REDUCE, 1);
    const schedule s = b.finish();
    ASSERT_EQ(s.steps[0].size(), 2u);
    EXPECT_EQ(s.steps[0][0].round, 0u);  // sorted by round
    EXPECT_EQ(s.steps[0][0].tag, 1u);    // tags follow emission order on the pair
    EXPECT_EQ(s.steps[0][1].tag, 0u);
    EXPECT_EQ(s.steps[1].size(), 3u);
    EXPECT_EQ(s.steps[1][1].peer, 2);
    EXPECT_EQ(s.steps[1][1].tag, 0u);  // the (2, 1) pair counts separately
    EXPECT_NO_THROW(validate(s));
    EXPECT_THROW(schedule_builder("t", 0, 1), std::invalid_argument);
}

TEST(collectives_execute, sends_carry_the_data_as_it_stood_at_round_start) {
    // Both ranks swap the whole vector and add it in, in the same round: each send must carry
    // the value from before the other's data landed, so both end with a + b (not 2a + b).
    schedule_builder b("swap", 2, 3);
    b.transfer(0, 1, {0, 3}, step_kind::RECV_REDUCE, 0);
    b.transfer(1, 0, {0, 3}, step_kind::RECV_REDUCE, 0);
    const schedule s = b.finish();
    std::vector<std::vector<double>> buf = {{1, 2, 3}, {10, 20, 30}};
    const auto c = execute(s, buf);
    EXPECT_EQ(buf[0], (std::vector<double>{11, 22, 33}));
    EXPECT_EQ(buf[1], (std::vector<double>{11, 22, 33}));
    EXPECT_EQ(c[0].elements_sent, 3u);
    EXPECT_EQ(c[0].elements_reduced, 3u);
    EXPECT_EQ(c[0].rounds, 1u);
    EXPECT_EQ(c[0].steps, 2u);
}

TEST(collectives_execute, overlapping_receives_of_a_round_apply_in_step_order) {
    // Rank 2 lists COPY from 1 before REDUCE from 0 on the same range.  The walker delivers
    // rank 0's message first (ranks are visited in order), so the executor must hold it back
    // until the copy landed: result 5 + 7, not 5 (copy last) or 2 + 5 + 7.
    schedule s;
    s.algorithm = "ordered";
    s.ranks = 3;
    s.elements = 1;
    s.contributes = {true, true, true};
    s.steps = {
        {{step_kind::SEND, 2, {0, 1}, 0, 0}},
        {{step_kind::SEND, 2, {0, 1}, 0, 0}},
        {{step_kind::RECV_COPY, 1, {0, 1}, 0, 0}, {step_kind::RECV_REDUCE, 0, {0, 1}, 0, 0}}};
    std::vector<std::vector<double>> buf = {{7}, {5}, {2}};
    execute(s, buf);
    EXPECT_EQ(buf[2][0], 12.0);
}

TEST(collectives_execute, zeroes_non_contributing_ranks_and_checks_buffers) {
    schedule s = worker_aggregator(2, 4);
    auto buf = testing::make_inputs<double>(s);
    execute(s, buf);
    EXPECT_EQ(buf[2], testing::expected_sum<double>(s));

    std::vector<std::vector<double>> too_few(2, std::vector<double>(4));
    EXPECT_THROW(execute(s, too_few), std::invalid_argument);
    std::vector<std::vector<double>> wrong_size(3, std::vector<double>(5));
    EXPECT_THROW(execute(s, wrong_size), std::invalid_argument);
}

TEST(collectives_execute, is_deterministic_on_float) {
    // Float sums depend on order; two runs must still agree bit for bit.
    const schedule s = double_binary_tree(7, 1001);
    std::vector<std::vector<float>> a(7, std::vector<float>(1001));
    for (int r = 0; r < 7; ++r) {
        for (int e = 0; e < 1001; ++e) a[r][e] = 0.1f * static_cast<float>(r + 1) / (e + 1);
    }
    auto b = a;
    execute(s, a);
    execute(s, b);
    EXPECT_EQ(a, b);
}

TEST(collectives_without_empty_transfers, drops_only_empty_messages) {
    const schedule s = ring_allreduce(5, 2);  // 3 of 5 blocks are empty
    const schedule c = without_empty_transfers(s);
    std::size_t kept = 0;
    for (const auto& rs : c.steps) {
        for (const step& st : rs) {
            EXPECT_GT(st.range.count, 0u);
            ++kept;
        }
    }
    EXPECT_LT(kept, 5u * 2u * 2u * 4u);
    EXPECT_NO_THROW(validate(c));
    testing::run_and_check<double>(c);
}

}  // namespace
}  // namespace trainvp::collectives
