// ip/host/comm_stack: a message's cost in the host's communication software, against closed
// forms (times in ps).  B / rate is rounded to the picosecond (units::bandwidth), so the sums
// below are exact.
#include <gtest/gtest.h>

#include <cstdint>

#include "ip/host/comm_stack.h"

namespace trainvp::ip {
namespace {

constexpr std::uint64_t k_us = 1000000;  // ps

// 10 Gb/s = 1.25 GB/s: 1.25 MB take 1 ms = 10^9 ps; 1 B takes 800 ps.
comm_stack_params stack_params() {
    comm_stack_params p;
    p.send_overhead = units::duration{2 * k_us};
    p.recv_overhead = units::duration{3 * k_us};
    p.send_rate = units::bandwidth{1.25e9};
    p.recv_rate = units::bandwidth{1.25e9};
    p.eager_limit = units::data_size{65536};
    p.rendezvous = units::duration{20 * k_us};
    return p;
}

TEST(comm_stack, eager_send_leaves_after_the_call_at_the_thread_rate) {
    comm_stack s(stack_params(), 1);
    const auto t = s.send(100, 65536);  // at the limit: still eager
    EXPECT_EQ(t.handed_ps, 100 + 2 * k_us);
    EXPECT_EQ(t.start_ps, t.handed_ps);
    EXPECT_EQ(t.end_ps, t.start_ps + 65536 * 800);
    EXPECT_DOUBLE_EQ(t.pace_bytes_per_s, 1.25e9);
    EXPECT_EQ(s.busy_ps(), 65536u * 800);
}

TEST(comm_stack, rendezvous_send_waits_for_the_handshake) {
    comm_stack s(stack_params(), 1);
    const auto t = s.send(0, 65537);
    EXPECT_EQ(t.handed_ps, 2 * k_us);  // the unit is free after the call, not the handshake
    EXPECT_EQ(t.start_ps, 22 * k_us);
    EXPECT_EQ(t.end_ps, 22 * k_us + 65537 * 800);
}

TEST(comm_stack, free_stack_costs_only_the_overheads) {
    comm_stack_params p = stack_params();
    p.send_rate = units::bandwidth{0.0};
    p.recv_rate = units::bandwidth{0.0};
    comm_stack s(p, 1);
    const auto t = s.send(0, 1 << 20);
    EXPECT_EQ(t.start_ps, 22 * k_us);
    EXPECT_EQ(t.end_ps, t.start_ps);
    EXPECT_EQ(t.pace_bytes_per_s, 0.0);
    // A message is taken when it has landed.
    EXPECT_EQ(s.receive(5 * k_us, 9 * k_us, 1 << 20), 9 * k_us);
    EXPECT_EQ(s.busy_ps(), 0u);
}

// Through the stack alone: the wire delivers 1 MB in 0.1 ms (faster than the thread), so the
// thread binds: first byte + B / recv_rate.
TEST(comm_stack, receive_bound_by_the_thread) {
    comm_stack s(stack_params(), 1);
    const std::uint64_t b = 1000000;  // 0.8 ms at 1.25 GB/s
    EXPECT_EQ(s.receive(10 * k_us, 110 * k_us, b), 10 * k_us + b * 800);
}

// With the wire binding (1 MB arriving over 2 ms), the receive ends with its last byte.
TEST(comm_stack, receive_bound_by_the_wire) {
    comm_stack s(stack_params(), 1);
    EXPECT_EQ(s.receive(10 * k_us, 2010 * k_us, 1000000), 2010 * k_us);
}

// A ring step on one thread (inceptionn.md Alg. 1 lines 10-12 as MPI runs them): the thread
// hands its block over, then takes the neighbour's, which arrived meanwhile at the sender's
// pace: the step takes B / send_rate + B / recv_rate.
TEST(comm_stack, ring_step_on_one_thread_adds_send_and_receive) {
    comm_stack s(stack_params(), 1);
    const std::uint64_t b = 1000000;
    const auto t = s.send(0, b);
    const std::uint64_t first = t.start_ps + 1 * k_us;  // the neighbour's equally paced block
    const std::uint64_t last = t.end_ps + 1 * k_us;
    EXPECT_EQ(s.receive(first, last, b), t.end_ps + b * 800);
    EXPECT_EQ(t.end_ps + b * 800, 22 * k_us + 2 * b * 800);
}

// Two threads: the send and the receive run side by side; the step takes max, not the sum.
TEST(comm_stack, ring_step_on_two_threads_overlaps) {
    comm_stack s(stack_params(), 2);
    const std::uint64_t b = 1000000;
    const auto t = s.send(0, b);
    const std::uint64_t first = t.start_ps + 1 * k_us;
    const std::uint64_t last = t.end_ps + 1 * k_us;
    EXPECT_EQ(s.receive(first, last, b), std::max(last, first + b * 800));
}

// An aggregator receives four messages at once through one link (a quarter of it each) on one
// thread: the thread takes them as they land; the last completes at max(wire, 4 B / rate).
TEST(comm_stack, concurrent_receives_share_the_thread) {
    const std::uint64_t b = 1000000;
    {
        // Wire 4 MB at 1 GB/s = 4 ms > 4 x 0.8 ms: the wire binds.
        comm_stack s(stack_params(), 1);
        const std::uint64_t last = 4000 * k_us;
        std::uint64_t done = 0;
        for (int k = 0; k < 4; ++k) done = std::max(done, s.receive(0, last, b));
        EXPECT_EQ(done, last);
    }
    {
        // Wire 4 B / 10 GB/s = 0.4 ms < 3.2 ms: the thread binds, 4 B / recv_rate after the
        // first byte (at 1 us).
        comm_stack s(stack_params(), 1);
        std::uint64_t done = 0;
        for (int k = 0; k < 4; ++k) done = std::max(done, s.receive(k_us, 400 * k_us, b));
        EXPECT_EQ(done, k_us + 4 * b * 800);
    }
}

// Sums on the progress thread (stack.sum_bandwidth): a sum of 2 inputs of B bytes moves 3 B
// (two reads, one write) at one core's bandwidth, from the cache when its 2 B of inputs fit.
comm_stack_params sum_params() {
    comm_stack_params p = stack_params();
    p.sum_bandwidth = units::bandwidth{10e9};         // 10 GB/s: 1 B takes 100 ps
    p.sum_cached_bandwidth = units::bandwidth{40e9};  // 40 GB/s: 1 B takes 25 ps
    p.cache = units::data_size{4000000};              // 4 MB: two 2 MB inputs fit
    return p;
}

TEST(comm_stack, sums_are_not_the_stacks_without_a_bandwidth) {
    EXPECT_FALSE(comm_stack(stack_params(), 1).runs_sums());
    EXPECT_TRUE(comm_stack(sum_params(), 1).runs_sums());
}

TEST(comm_stack, sum_from_dram_at_one_cores_bandwidth) {
    comm_stack s(sum_params(), 1);
    const std::uint64_t b = 3000000;  // 2 x 3 MB = 6 MB > 4 MB: from DRAM
    const auto t = s.sum(5 * k_us, b, 2);
    EXPECT_FALSE(t.cached);
    EXPECT_EQ(t.start_ps, 5 * k_us);
    EXPECT_EQ(t.end_ps, 5 * k_us + 3 * b * 100);
    EXPECT_DOUBLE_EQ(t.bytes_per_s, 10e9);
    EXPECT_EQ(s.busy_ps(), 3 * b * 100);
}

TEST(comm_stack, sum_in_the_cache_when_its_inputs_fit) {
    comm_stack s(sum_params(), 1);
    const std::uint64_t b = 2000000;  // 2 x 2 MB = 4 MB: fits (at the limit)
    const auto t = s.sum(0, b, 2);
    EXPECT_TRUE(t.cached);
    EXPECT_EQ(t.end_ps, 3 * b * 25);
    // Three inputs of 2 MB (6 MB) do not fit: 4 B moved at the DRAM rate.
    const auto u = s.sum(0, b, 3);
    EXPECT_FALSE(u.cached);
    EXPECT_EQ(u.end_ps - u.start_ps, 4 * b * 100);
}

// The sum takes the thread that sends and receives: a ring step on one thread is
// B / send_rate + B / recv_rate + 3 B / sum bandwidth; on two threads the sum queues behind
// the receive on the receiving thread, while the other thread's send runs beside them.
TEST(comm_stack, ring_step_with_its_sum_on_one_and_two_threads) {
    const std::uint64_t b = 1000000;  // inputs 2 MB: cached, 25 ps per byte moved
    {
        comm_stack s(sum_params(), 1);
        const auto t = s.send(0, b);
        const std::uint64_t got = s.receive(t.start_ps + k_us, t.end_ps + k_us, b);
        const auto sum = s.sum(got, b, 2);
        EXPECT_EQ(sum.end_ps, 22 * k_us + 2 * b * 800 + 3 * b * 25);
    }
    {
        comm_stack s(sum_params(), 2);
        const auto t = s.send(0, b);
        const std::uint64_t first = t.start_ps + k_us, last = t.end_ps + k_us;
        const std::uint64_t got = s.receive(first, last, b);
        EXPECT_EQ(got, std::max(last, first + b * 800));
        const auto sum = s.sum(got, b, 2);
        EXPECT_EQ(sum.end_ps, got + 3 * b * 25);
    }
}

// The copies' DRAM traffic: bytes x send_copy_traffic or recv_copy_traffic, rounded to the
// byte, none for a message that fits in the cache (the same `cache` as the sums').
TEST(comm_stack, copy_traffic_per_payload_byte_outside_the_cache) {
    comm_stack_params p = stack_params();
    comm_stack none(p, 1);
    EXPECT_FALSE(none.copies_move_memory());
    EXPECT_EQ(none.copy_traffic(10000000, true), 0u);
    p.send_copy_traffic = 1.0;
    p.recv_copy_traffic = 2.5;
    comm_stack s(p, 1);
    EXPECT_TRUE(s.copies_move_memory());
    EXPECT_EQ(s.copy_traffic(10000000, true), 10000000u);
    EXPECT_EQ(s.copy_traffic(10000000, false), 25000000u);
    EXPECT_EQ(s.copy_traffic(3, false), 8u);  // 7.5 B rounds to 8
    p.cache = units::data_size{4000000};
    comm_stack cached(p, 1);
    EXPECT_EQ(cached.copy_traffic(4000000, true), 0u);          // at the limit: in the cache
    EXPECT_EQ(cached.copy_traffic(4000001, false), 10000003u);  // 10000002.5 rounds up
}

// A receive reports the thread time it reserved: the thread that could start it first (the
// other one is sending) from its first byte, for B / recv_rate.
TEST(comm_stack, receive_reports_its_thread_and_work) {
    comm_stack s(stack_params(), 2);
    const auto t = s.send(0, 1000000);
    EXPECT_EQ(t.thread, 0u);
    comm_stack::work w;
    const std::uint64_t got = s.receive(5 * k_us, 6 * k_us, 1000000, &w);
    EXPECT_EQ(w.thread, 1u);
    EXPECT_EQ(w.start_ps, 5 * k_us);
    EXPECT_EQ(w.end_ps, 5 * k_us + 1000000u * 800);
    EXPECT_EQ(got, w.end_ps);
    // Free per byte: no thread time, the work is empty at the last byte.
    comm_stack free_stack(comm_stack_params{}, 1);
    free_stack.receive(5 * k_us, 6 * k_us, 1000000, &w);
    EXPECT_EQ(w.start_ps, 6 * k_us);
    EXPECT_EQ(w.end_ps, 6 * k_us);
}

}  // namespace
}  // namespace trainvp::ip
