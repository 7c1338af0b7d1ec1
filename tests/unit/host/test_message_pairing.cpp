// Sends meet receives before the run (workloads/ops/message_pairing.h): per (source,
// destination, tag) the k-th receive takes the k-th send, in the order entries were added.
#include <gtest/gtest.h>

#include "workloads/ops/message_pairing.h"

namespace {

using trainvp::ops::message_pairing;
using problem = message_pairing::problem;

message_pairing::entry msg(std::uint32_t src, std::uint32_t dst, std::uint32_t tag,
                           std::uint64_t bytes, std::size_t index) {
    return {src, dst, tag, bytes, index, nullptr};
}

TEST(message_pairing, every_message_received_in_order_is_clean) {
    message_pairing p;
    // A 3-node ring step each way, plus two messages of one channel with different sizes
    // received in the same order.
    for (std::uint32_t r = 0; r < 3; ++r) {
        p.add_send(msg(r, (r + 1) % 3, 0, 100, r));
        p.add_recv(msg((r + 2) % 3, r, 0, 100, 10 + r));
    }
    p.add_send(msg(0, 1, 5, 1, 20));
    p.add_send(msg(0, 1, 5, 2, 21));
    p.add_recv(msg(0, 1, 5, 1, 22));
    p.add_recv(msg(0, 1, 5, 2, 23));
    EXPECT_FALSE(p.first_mismatch().has_value());
}

TEST(message_pairing, a_receive_with_no_send_left_is_reported_with_the_channel_counts) {
    message_pairing p;
    p.add_send(msg(0, 1, 9, 8, 0));
    p.add_recv(msg(0, 1, 9, 8, 1));
    p.add_recv(msg(0, 1, 9, 8, 2));
    const auto m = p.first_mismatch();
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->kind, problem::UNANSWERED_RECV);
    ASSERT_TRUE(m->recv.has_value());
    EXPECT_EQ(m->recv->index, 2u);
    EXPECT_FALSE(m->send.has_value());
    EXPECT_EQ(m->sends, 1u);
    EXPECT_EQ(m->recvs, 2u);
}

TEST(message_pairing, tags_and_directions_are_separate_channels) {
    message_pairing p;
    p.add_send(msg(0, 1, 1, 8, 0));
    p.add_recv(msg(1, 0, 1, 8, 1));  // the other direction
    const auto m = p.first_mismatch();
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->kind, problem::UNANSWERED_RECV);
    EXPECT_EQ(m->recv->index, 1u);
    EXPECT_EQ(m->sends, 0u);
}

TEST(message_pairing, a_send_no_receive_takes_is_the_first_untaken_of_its_channel) {
    message_pairing p;
    p.add_send(msg(0, 1, 3, 8, 0));
    p.add_send(msg(0, 1, 3, 8, 1));
    p.add_send(msg(0, 1, 3, 8, 2));
    p.add_recv(msg(0, 1, 3, 8, 3));
    const auto m = p.first_mismatch();
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->kind, problem::UNTAKEN_SEND);
    EXPECT_EQ(m->send->index, 1u);
    EXPECT_EQ(m->sends, 3u);
    EXPECT_EQ(m->recvs, 1u);
}

TEST(message_pairing, sizes_are_compared_in_channel_order) {
    message_pairing p;
    p.add_send(msg(2, 0, 0, 100, 0));
    p.add_send(msg(2, 0, 0, 200, 1));
    p.add_recv(msg(2, 0, 0, 200, 2));  // takes the first send, of 100
    p.add_recv(msg(2, 0, 0, 100, 3));
    const auto m = p.first_mismatch();
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->kind, problem::SIZE);
    EXPECT_EQ(m->recv->index, 2u);
    EXPECT_EQ(m->send->index, 0u);
}

TEST(message_pairing, every_node_posts_each_all_reduce_once_with_one_size) {
    message_pairing clean;
    for (std::uint32_t n = 0; n < 3; ++n) {
        clean.add_allreduce(msg(n, 0, 1, 64, n));
        clean.add_allreduce(msg(n, 0, 2, 32, 10 + n));
    }
    EXPECT_FALSE(clean.first_mismatch({0, 1, 2}).has_value());

    message_pairing missing;  // node 2 never posts tag 1
    missing.add_allreduce(msg(0, 0, 1, 64, 0));
    missing.add_allreduce(msg(1, 0, 1, 64, 1));
    auto m = missing.first_mismatch({0, 1, 2});
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->kind, problem::ALLREDUCE_MISSING);
    EXPECT_EQ(m->send->index, 0u);
    EXPECT_EQ(m->missing, 2u);
    EXPECT_EQ(m->sends, 2u);
    // Without the nodes that take part, nothing is missing.
    EXPECT_FALSE(missing.first_mismatch().has_value());

    message_pairing twice;
    twice.add_allreduce(msg(0, 0, 1, 64, 0));
    twice.add_allreduce(msg(0, 0, 1, 64, 1));
    m = twice.first_mismatch({0});
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->kind, problem::ALLREDUCE_TWICE);
    EXPECT_EQ(m->recv->index, 1u);
    EXPECT_EQ(m->send->index, 0u);

    message_pairing size;
    size.add_allreduce(msg(0, 0, 1, 64, 0));
    size.add_allreduce(msg(1, 0, 1, 128, 1));
    m = size.first_mismatch({0, 1});
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->kind, problem::ALLREDUCE_SIZE);
    EXPECT_EQ(m->recv->index, 1u);
}

}  // namespace
