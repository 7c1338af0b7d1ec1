// host.cpu's message matcher alone (pure C++): message ids handed out in order and SEND_DONEs
// taken in any order, posted receives matched by source node and tag in unit order, and the
// unexpected queue matched first come first served.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "ip/host/message_matcher.h"

namespace trainvp::ip {
namespace {

using arrival = message_matcher::arrival;
using pending_send = message_matcher::pending_send;
constexpr std::size_t k_none = message_matcher::k_none;

pending_send send_of(std::size_t op, std::uint64_t bytes = 100) {
    pending_send p;
    p.op = op;
    p.started_ps = 10 * op;
    p.bytes = bytes;
    p.address = 0x1000 + op;
    p.tos = 0x28;
    return p;
}

arrival arrival_of(std::uint32_t peer, std::uint32_t tag, std::uint64_t msg_id) {
    arrival a;
    a.peer = peer;
    a.tag = tag;
    a.bytes = 64;
    a.at_ps = 1000 + msg_id;
    a.msg_id = msg_id;
    return a;
}

TEST(message_matcher, hands_out_message_ids_in_order_and_completes_sends_in_any_order) {
    message_matcher m;
    EXPECT_EQ(m.post_send(send_of(3)), 0u);
    EXPECT_EQ(m.post_send(send_of(5)), 1u);
    EXPECT_EQ(m.post_send(send_of(9)), 2u);
    EXPECT_EQ(m.sends_pending(), 3u);
    EXPECT_EQ(m.pending_send_ops(), (std::vector<std::size_t>{3, 5, 9}));

    pending_send p;
    ASSERT_TRUE(m.complete_send(1, p));
    EXPECT_EQ(p.op, 5u);
    EXPECT_EQ(p.started_ps, 50u);
    EXPECT_EQ(p.address, 0x1005u);
    EXPECT_EQ(p.tos, 0x28);
    EXPECT_EQ(m.sends_pending(), 2u);
    EXPECT_EQ(m.pending_send_ops(), (std::vector<std::size_t>{3, 9}));
    EXPECT_FALSE(m.complete_send(1, p)) << "completed twice";
    EXPECT_FALSE(m.complete_send(3, p)) << "never sent";
    ASSERT_TRUE(m.complete_send(0, p));
    EXPECT_EQ(p.op, 3u);
    EXPECT_FALSE(m.complete_send(0, p)) << "below the table's base";
    EXPECT_EQ(m.post_send(send_of(11)), 3u);
    ASSERT_TRUE(m.complete_send(2, p));
    EXPECT_EQ(p.op, 9u);
    ASSERT_TRUE(m.complete_send(3, p));
    EXPECT_EQ(p.op, 11u);
    EXPECT_EQ(m.sends_pending(), 0u);
    EXPECT_TRUE(m.pending_send_ops().empty());
}

TEST(message_matcher, streams_many_sends_through_a_short_table) {
    message_matcher m;
    pending_send p;
    // A window of 8 in flight, each completed in turn: ids keep counting from where they were.
    for (std::size_t i = 0; i < 8; ++i) m.post_send(send_of(i));
    for (std::uint64_t id = 0; id < 100000; ++id) {
        ASSERT_TRUE(m.complete_send(id, p));
        ASSERT_EQ(p.op, id);
        m.post_send(send_of(id + 8));
    }
    EXPECT_EQ(m.sends_pending(), 8u);
    EXPECT_EQ(m.pending_send_ops().front(), 100000u);
}

TEST(message_matcher, matches_an_arrival_to_the_unit_whose_receive_it_is) {
    message_matcher m;
    arrival out;
    EXPECT_FALSE(m.post_recv(1, 40, 2, 7, out));  // comm: from node 2, tag 7
    EXPECT_FALSE(m.post_recv(0, 41, 3, 7, out));  // cpu: from node 3, tag 7
    EXPECT_EQ(m.receive(2, 8), k_none) << "other tag";
    EXPECT_EQ(m.receive(4, 7), k_none) << "other node";
    EXPECT_EQ(m.receive(3, 7), 0u);
    EXPECT_EQ(m.receive(3, 7), k_none) << "its receive was taken";
    EXPECT_EQ(m.receive(2, 7), 1u);
    EXPECT_EQ(m.unexpected(), 0u) << "receive() leaves queuing to the caller";
}

TEST(message_matcher, matches_the_lowest_unit_first) {
    message_matcher m;
    arrival out;
    m.post_recv(3, 1, 5, 5, out);
    m.post_recv(1, 2, 5, 5, out);
    EXPECT_EQ(m.receive(5, 5), 1u);
    EXPECT_EQ(m.receive(5, 5), 3u);
}

TEST(message_matcher, queues_unexpected_messages_first_come_first_matched) {
    message_matcher m;
    m.add_unexpected(arrival_of(2, 7, 10));
    m.add_unexpected(arrival_of(3, 7, 11));
    arrival second = arrival_of(2, 7, 12);
    second.data = std::make_shared<std::vector<std::uint8_t>>(4, 0xab);
    m.add_unexpected(second);
    EXPECT_EQ(m.unexpected(), 3u);
    EXPECT_EQ(m.first_unexpected().msg_id, 10u);

    arrival out;
    ASSERT_TRUE(m.post_recv(1, 50, 2, 7, out));
    EXPECT_EQ(out.msg_id, 10u);
    EXPECT_EQ(out.at_ps, 1010u);
    EXPECT_EQ(out.bytes, 64u);
    ASSERT_TRUE(m.post_recv(1, 51, 2, 7, out));
    EXPECT_EQ(out.msg_id, 12u);
    ASSERT_TRUE(out.data);
    EXPECT_EQ(out.data->size(), 4u);
    EXPECT_EQ(m.unexpected(), 1u);
    EXPECT_EQ(m.first_unexpected().peer, 3u);
    // Taken from the queue, the receive is not posted: a later arrival is not matched to it.
    EXPECT_EQ(m.receive(2, 7), k_none);
    // Nothing queued from node 2 now: the next receive is posted.
    EXPECT_FALSE(m.post_recv(1, 52, 2, 7, out));
    EXPECT_EQ(m.receive(2, 7), 1u);
}

}  // namespace
}  // namespace trainvp::ip
