// validate() must catch broken schedules and say where.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tests/unit/collectives/collectives_test_support.h"

namespace trainvp::collectives {
namespace {

// Runs validate() and returns its message ("" when it passed).
std::string validation_error(const schedule& s) {
    try {
        validate(s);
    } catch (const std::logic_error& e) {
        return e.what();
    }
    return "";
}

std::size_t find_step(const schedule& s, int rank, step_kind kind) {
    const auto& rs = s.steps[static_cast<std::size_t>(rank)];
    for (std::size_t i = 0; i < rs.size(); ++i) {
        if (rs[i].kind == kind) return i;
    }
    return rs.size();
}

TEST(collectives_validate, accepts_a_ring) {
    EXPECT_EQ(validation_error(ring_allreduce(5, 17)), "");
}

TEST(collectives_validate, catches_a_missing_recv) {
    schedule s = ring_allreduce(4, 8);
    const std::size_t i = find_step(s, 2, step_kind::RECV_REDUCE);
    const int sender = s.steps[2][i].peer;
    s.steps[2].erase(s.steps[2].begin() + static_cast<std::ptrdiff_t>(i));
    const std::string msg = validation_error(s);
    EXPECT_NE(msg.find("no matching RECV"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank " + std::to_string(sender)), std::string::npos) << msg;
}

TEST(collectives_validate, catches_a_missing_send) {
    schedule s = ring_allreduce(4, 8);
    s.steps[1].erase(s.steps[1].begin() +
                     static_cast<std::ptrdiff_t>(find_step(s, 1, step_kind::SEND)));
    const std::string msg = validation_error(s);
    EXPECT_NE(msg.find("no matching SEND"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 2"), std::string::npos) << msg;  // the orphaned receiver
}

TEST(collectives_validate, catches_an_out_of_range_chunk) {
    schedule s = ring_allreduce(4, 8);
    s.steps[3][0].range.offset = 7;  // 7 + 2 > 8
    const std::string msg = validation_error(s);
    EXPECT_NE(msg.find("rank 3 step 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("out of range"), std::string::npos) << msg;
    s.steps[3][0].range = {UINT64_MAX, 2};  // must not wrap around
    EXPECT_NE(validation_error(s).find("out of range"), std::string::npos);
}

TEST(collectives_validate, catches_bad_peers) {
    schedule s = ring_allreduce(3, 3);
    s.steps[0][0].peer = 3;
    EXPECT_NE(validation_error(s).find("peer out of range"), std::string::npos);
    s.steps[0][0].peer = 0;
    EXPECT_NE(validation_error(s).find("peer is the rank itself"), std::string::npos);
}

TEST(collectives_validate, catches_rounds_going_back) {
    schedule s = ring_allreduce(3, 3);
    s.steps[1].back().round = 0;
    const std::string msg = validation_error(s);
    EXPECT_NE(msg.find("round goes back"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 1"), std::string::npos) << msg;
}

TEST(collectives_validate, catches_duplicate_tags_and_size_mismatch) {
    schedule dup = ring_allreduce(3, 3);
    std::size_t first = find_step(dup, 0, step_kind::SEND);
    step copy = dup.steps[0][first];
    dup.steps[0].insert(dup.steps[0].begin() + static_cast<std::ptrdiff_t>(first) + 1, copy);
    EXPECT_NE(validation_error(dup).find("duplicates"), std::string::npos);

    schedule size = ring_allreduce(3, 6);
    size.steps[0][find_step(size, 0, step_kind::SEND)].range.count = 1;
    EXPECT_NE(validation_error(size).find("size differs"), std::string::npos);
}

TEST(collectives_validate, catches_a_copy_that_overwrites_a_receive_of_the_same_round) {
    schedule s;
    s.algorithm = "clobber";
    s.ranks = 3;
    s.elements = 2;
    s.contributes = {true, true, true};
    s.steps = {
        {{step_kind::SEND, 2, {0, 2}, 0, 0}},
        {{step_kind::SEND, 2, {1, 1}, 0, 0}},
        {{step_kind::RECV_REDUCE, 0, {0, 2}, 0, 0}, {step_kind::RECV_COPY, 1, {1, 1}, 0, 0}}};
    const std::string msg = validation_error(s);
    EXPECT_NE(msg.find("rank 2 step 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("overwrites data received by step 0"), std::string::npos) << msg;
}

TEST(collectives_validate, catches_a_deadlock_where_everyone_receives_first) {
    // Rank 0 and rank 1 each wait in round 0 for the other's round-1 send.
    schedule s;
    s.algorithm = "recv_first";
    s.ranks = 2;
    s.elements = 1;
    s.contributes = {true, true};
    s.steps = {{{step_kind::RECV_COPY, 1, {0, 1}, 0, 0}, {step_kind::SEND, 1, {0, 1}, 1, 0}},
               {{step_kind::RECV_COPY, 0, {0, 1}, 0, 0}, {step_kind::SEND, 0, {0, 1}, 1, 0}}};
    const std::string msg = validation_error(s);
    EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 0 step 0"), std::string::npos) << msg;
    std::vector<std::vector<double>> buf = {{1}, {2}};
    EXPECT_THROW(execute(s, buf), std::logic_error);
}

TEST(collectives_validate, catches_a_ring_whose_receives_were_moved_before_its_sends) {
    // Split every ring round in two, receives first: nobody ever sends.
    schedule s = ring_allreduce(5, 10);
    for (auto& rs : s.steps) {
        for (step& st : rs) st.round = 2 * st.round + (st.kind == step_kind::SEND ? 1 : 0);
        std::stable_sort(rs.begin(), rs.end(),
                         [](const step& a, const step& b) { return a.round < b.round; });
    }
    const std::string msg = validation_error(s);
    EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
    EXPECT_NE(msg.find("5 of 5 ranks blocked"), std::string::npos) << msg;
}

TEST(collectives_validate, accepts_a_non_lockstep_schedule_that_cost_model_rejects) {
    // Rank 1 receives in its round 3 what rank 0 sends in round 0: runnable, but the lockstep
    // alpha-beta-gamma model has no single round to charge it to.
    schedule s;
    s.algorithm = "skewed";
    s.ranks = 2;
    s.elements = 1;
    s.contributes = {true, true};
    s.steps = {{{step_kind::SEND, 1, {0, 1}, 0, 0}, {step_kind::RECV_REDUCE, 1, {0, 1}, 1, 0}},
               {{step_kind::RECV_REDUCE, 0, {0, 1}, 3, 0}, {step_kind::SEND, 0, {0, 1}, 4, 0}}};
    EXPECT_EQ(validation_error(s), "");
    EXPECT_FALSE(is_lockstep(s));
    EXPECT_THROW(alpha_beta_gamma_time(s, {}), std::invalid_argument);
}

TEST(collectives_validate, catches_shape_mismatches) {
    schedule s = ring_allreduce(3, 3);
    s.contributes.pop_back();
    EXPECT_NE(validation_error(s).find("contributes"), std::string::npos);
    s = ring_allreduce(3, 3);
    s.steps.pop_back();
    EXPECT_NE(validation_error(s).find("step lists"), std::string::npos);
}

}  // namespace
}  // namespace trainvp::collectives
