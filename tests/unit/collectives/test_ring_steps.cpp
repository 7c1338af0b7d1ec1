// ring_allreduce_steps: one rank's steps made alone are exactly that rank's steps of the whole
// schedule (kinds, peers, ranges, rounds, tags, order), for flat and pipelined rings, even and
// uneven sizes, and fewer elements than ranks (empty blocks).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "workloads/collectives/ring.h"
#include "workloads/collectives/schedule_builder.h"

namespace trainvp::collectives {
namespace {

void expect_same(const std::vector<step>& a, const std::vector<step>& b, const std::string& where) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].kind, b[i].kind) << where << " step " << i;
        EXPECT_EQ(a[i].peer, b[i].peer) << where << " step " << i;
        EXPECT_EQ(a[i].range, b[i].range) << where << " step " << i;
        EXPECT_EQ(a[i].round, b[i].round) << where << " step " << i;
        EXPECT_EQ(a[i].tag, b[i].tag) << where << " step " << i;
    }
}

TEST(ring_allreduce_steps, equal_the_whole_schedules_rows) {
    for (int n : {2, 3, 4, 5, 7, 8, 16}) {
        for (uint64_t e : {1ull, 3ull, 16ull, 1000ull, 1001ull}) {
            for (uint32_t segments : {1u, 2u, 3u}) {
                const schedule s = ring_allreduce(n, e, segments);
                for (int r = 0; r < n; ++r) {
                    expect_same(ring_allreduce_steps(n, e, r, segments),
                                s.steps[static_cast<std::size_t>(r)],
                                "n " + std::to_string(n) + " e " + std::to_string(e) +
                                    " segments " + std::to_string(segments) + " rank " +
                                    std::to_string(r));
                }
            }
        }
    }
}

TEST(ring_allreduce_steps, refuses_what_ring_allreduce_refuses_and_a_rank_out_of_range) {
    EXPECT_THROW(ring_allreduce_steps(1, 10, 0), std::invalid_argument);
    EXPECT_THROW(ring_allreduce_steps(4, 0, 0), std::invalid_argument);
    EXPECT_THROW(ring_allreduce_steps(4, 10, 0, 0), std::invalid_argument);
    EXPECT_THROW(ring_allreduce_steps(4, 10, 4), std::invalid_argument);
    EXPECT_THROW(ring_allreduce_steps(4, 10, -1), std::invalid_argument);
}

// The builder's tag counter (one list of peers per source rank) numbers each pair's messages
// 0, 1, 2, ... whatever the order the pairs are used in.
TEST(schedule_builder, tags_count_each_pairs_messages) {
    schedule_builder b("t", 4, 8);
    b.transfer(0, 1, {0, 2}, step_kind::RECV_REDUCE, 0);
    b.transfer(0, 2, {2, 2}, step_kind::RECV_REDUCE, 0);
    b.transfer(0, 1, {4, 2}, step_kind::RECV_REDUCE, 1);
    b.transfer(1, 0, {0, 2}, step_kind::RECV_COPY, 1);
    b.transfer(0, 2, {6, 2}, step_kind::RECV_REDUCE, 2);
    b.transfer(0, 1, {6, 2}, step_kind::RECV_REDUCE, 2);
    const schedule s = b.finish();
    std::vector<uint32_t> tags;
    for (const step& st : s.steps[0]) {
        if (st.kind == step_kind::SEND) tags.push_back(st.tag);
    }
    EXPECT_EQ(tags, (std::vector<uint32_t>{0, 0, 1, 1, 2}));
    EXPECT_EQ(s.steps[0][3].kind, step_kind::RECV_COPY);  // round 1: 1 -> 0, the pair's first
    EXPECT_EQ(s.steps[0][3].tag, 0u);
}

}  // namespace
}  // namespace trainvp::collectives
