// host.cpu's communication stack (`stack:`, ip/host/comm_stack.h) on a real path.  Two hosts,
// each with a fast NIC (400 Gb/s, jumbo frames) on its own memory, wired back to back by one
// link; node 0 sends B bytes to node 1.  With stack.send_rate S the message's bytes leave no
// faster than S (one progress thread drives a message), so the receive completes at B / S
// plus the path's latencies; with stack.recv_rate R on the receiver, at first byte + B / R;
// a message above stack.eager_limit waits stack.rendezvous before its data leaves.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/unit/nic/nic_pair.h"

namespace trainvp {
namespace {

// B = 8 MiB; R = 10 Gb/s: B / R = 8 x 2^20 x 8 / 1e10 s = 6710.8864 us.
constexpr double k_bytes = 8.0 * 1024 * 1024;
constexpr double k_b_over_r_ns = k_bytes * 8.0 / 10e9 * 1e9;

// Two nodes back to back; `ops` is the workload's op lists (n[0].host, n[1].host).
std::string node_pair(const std::string& host_extra, const std::string& nic,
                      const std::string& ops) {
    return R"(
templates:
  node:
    components:
      host: {type: host.cpu, node_id: "${index}" )" +
           host_extra + R"(}
      mem: {type: memory, bandwidth: 140.8GB/s, latency: 80ns, ports: 2}
      nic: {type: )" +
           nic + R"(, node_id: "${index}", rate: 400Gb/s, mtu: 9000B}
    connections:
      - host.mem -> mem.target[0]
      - host.nic -> nic.host
      - nic.notify -> host.nic_notify
      - nic.pcie -> mem.target[1]
components:
  n: {template: node, count: 2}
  link: {type: ethernet.link, rate: 400Gb/s, propagation: 10ns}
connections:
  - n[0].nic.eth_tx -> link.a_in
  - link.b_out -> n[1].nic.eth_rx
  - n[1].nic.eth_tx -> link.b_in
  - link.a_out -> n[0].nic.eth_rx
workload:
  ops:
)" + ops;
}

// Node 0 sends 8 MiB to node 1.
std::string two_hosts(const std::string& host_extra, const std::string& nic,
                      const std::string& tos) {
    return node_pair(host_extra, nic,
                     "    n[0].host:\n"
                     "      - {op: send, to: 1, bytes: 8MiB, tag: 1, tos: " +
                         tos +
                         "}\n"
                         "    n[1].host:\n"
                         "      - {op: recv, from: 0, bytes: 8MiB, tag: 1}\n");
}

double stat(const nlohmann::json& j, const std::string& block, const std::string& s) {
    return j["blocks"][block]["stats"][s]["value"].get<double>();
}

// The receive's completion (ns), the sender's comm-unit busy time and its progress thread's
// busy time (ns).
struct result {
    double received_ns, comm_busy_ns, stack_busy_ns;
};

result run(const std::string& host_extra, const std::vector<std::string>& sets = {},
           const std::string& nic = "nic.basic", const std::string& tos = "0") {
    const auto j = test::run_stats(two_hosts(host_extra, nic, tos), sets);
    return {stat(j, "n[1].host", "completion_time"), stat(j, "n[0].host", "comm_busy"),
            stat(j, "n[0].host", "stack_busy")};
}

// The path's latencies besides the pacing: the first frame's DMA read (8960 B at 140.8 GB/s
// + 80 ns: 0.14 us), its serialisation and the link (0.18 us + 10 ns), the last frame's DMA
// write (0.14 us): ~0.5 us (measured 0.354 us at both granularities).  1 us of room: the
// bound says "B / R plus latencies", not more.
constexpr double k_latency_ns = 1000.0;

// `expected_ns`: B / rate plus any wait before the data leaves.
void expect_paced(const result& r, double expected_ns, double latency_ns = k_latency_ns) {
    EXPECT_GE(r.received_ns, expected_ns);
    EXPECT_LE(r.received_ns, expected_ns + latency_ns);
    // The sending thread is busy while it moves the bytes (exactly B / rate, rounded to ps);
    // the comm unit only for the call (stack.send_overhead, 0 here).
    EXPECT_NEAR(r.stack_busy_ns, k_b_over_r_ns, 0.001);
    EXPECT_EQ(r.comm_busy_ns, 0.0);
}

TEST(comm_stack_path, packet_send_takes_bytes_over_rate) {
    expect_paced(run(", stack: {send_rate: 10Gb/s}"), k_b_over_r_ns);
}

TEST(comm_stack_path, message_granularity_send_takes_bytes_over_rate) {
    expect_paced(run(", stack: {send_rate: 10Gb/s}", {"simulation.granularity=message"}),
                 k_b_over_r_ns);
}

// One message is driven by one thread: two comm cores (two progress threads) do not make
// it faster (they let a send and a receive run side by side: tests/unit/host/
// test_comm_stack.cpp).
TEST(comm_stack_path, one_message_takes_one_thread) {
    expect_paced(run(", comm_cores: 2, stack: {send_rate: 10Gb/s}"), k_b_over_r_ns);
}

TEST(comm_stack_path, one_message_takes_one_thread_message_granularity) {
    expect_paced(
        run(", comm_cores: 2, stack: {send_rate: 10Gb/s}", {"simulation.granularity=message"}),
        k_b_over_r_ns);
}

// The receiver's thread binds: the receive completes at its first byte + B / R (the first
// frame is in memory ~0.35 us after the start), the sender unpaced.  (One simulation per
// process: one test per granularity.)
void expect_receive_paced(const result& r) {
    EXPECT_GE(r.received_ns, k_b_over_r_ns);
    EXPECT_LE(r.received_ns, k_b_over_r_ns + k_latency_ns);
    EXPECT_EQ(r.comm_busy_ns, 0.0);
    EXPECT_EQ(r.stack_busy_ns, 0.0);  // the sender's thread: free per byte
}

TEST(comm_stack_path, receive_takes_bytes_over_recv_rate) {
    expect_receive_paced(run(", stack: {recv_rate: 10Gb/s}"));
}

TEST(comm_stack_path, receive_takes_bytes_over_recv_rate_message_granularity) {
    expect_receive_paced(run(", stack: {recv_rate: 10Gb/s}", {"simulation.granularity=message"}));
}

// Eager and rendezvous sizes through the stack and the wire: 8 MiB is above the 64 KiB eager
// limit, so its data leaves stack.rendezvous (100 us) later; raising the limit above it makes
// it eager again (the closed form of expect_paced, no wait).
TEST(comm_stack_path, rendezvous_delays_a_large_message) {
    expect_paced(run(", stack: {send_rate: 10Gb/s, rendezvous: 100us}"), k_b_over_r_ns + 100000.0);
}

TEST(comm_stack_path, eager_message_does_not_wait) {
    expect_paced(run(", stack: {send_rate: 10Gb/s, rendezvous: 100us, eager_limit: 16MiB}"),
                 k_b_over_r_ns);
}

// stack.send_overhead holds the comm unit and delays the message by the same time.
TEST(comm_stack_path, send_overhead_is_on_the_unit_and_the_path) {
    const result r = run(", stack: {send_rate: 10Gb/s, send_overhead: 5us}");
    EXPECT_NEAR(r.comm_busy_ns, 5000.0, 0.001);
    EXPECT_GE(r.received_ns, k_b_over_r_ns + 5000.0);
    EXPECT_LE(r.received_ns, k_b_over_r_ns + 5000.0 + k_latency_ns);
}

// nic.inceptionn is nic.basic's TX engine with compression in front of the MAC: it paces the
// same way, on the bytes before compression (the software moves the raw gradient).  All 2-bit
// values (Table III's best case, 14x fewer wire bytes) and fast engines (1 GHz): unpaced, the
// compression engine's 32 B per cycle would take 262 us (measured 265.7 us end to end); the
// pacing holds the message to B / R (measured B / R + 0.71 us at both granularities).
// Latency room 2 us: the last frame's compression and decompression (~0.3 us each at 1 GHz)
// come on top.
const std::string k_inceptionn = "nic.inceptionn, histogram: [1, 0, 0, 0], clock: 1GHz";

TEST(comm_stack_path, inceptionn_nic_paces_the_raw_bytes) {
    expect_paced(run(", stack: {send_rate: 10Gb/s}", {}, k_inceptionn, "0x28"), k_b_over_r_ns,
                 2000.0);
}

TEST(comm_stack_path, inceptionn_nic_paces_the_raw_bytes_message_granularity) {
    expect_paced(run(", stack: {send_rate: 10Gb/s}", {"simulation.granularity=message"},
                     k_inceptionn, "0x28"),
                 k_b_over_r_ns, 2000.0);
}

// The default (0) is no software cost: the message goes at the NIC's rate (8 MiB in 936 full
// frames of 9038 wire bytes and one of 1718 B payload, at 400 Gb/s: 169.3 us), and the unit is
// free once the NIC holds the descriptor.  One simulation per process: the default and an
// explicit 0 are two tests against the same closed form (tools/snapshot_outputs.sh checks
// that every other config's outputs are byte-identical).
void expect_unpaced(const result& r) {
    EXPECT_EQ(r.comm_busy_ns, 0.0);
    EXPECT_EQ(r.stack_busy_ns, 0.0);
    const double wire_ns = (936.0 * 9038 + (k_bytes - 936.0 * 8960) + 78) * 8 / 400.0;
    EXPECT_GE(r.received_ns, wire_ns);
    EXPECT_LE(r.received_ns, wire_ns + k_latency_ns);
}

TEST(comm_stack_path, default_is_unpaced) { expect_unpaced(run("")); }

TEST(comm_stack_path, zero_is_unpaced) {
    expect_unpaced(run(", stack: {send_rate: 0Gb/s, recv_rate: 0Gb/s}"));
}

// The copies' memory traffic (stack.send_copy_traffic, recv_copy_traffic): with 1 byte of
// traffic per payload byte each way, the sender's memory reads the message twice (the copy out
// of the user buffer, then the NIC's DMA) and the receiver's writes it twice (the NIC's DMA,
// then the copy into the user buffer), exactly.  The time stays the stack's: the copies load
// the memory (140.8 GB/s here, against the threads' 1.25 GB/s), they do not pace the thread.
// With both threads at R the receiver's thread starts at the first frame, which leaves once
// the sender's thread has handed over its 8960 B payload (7.168 us), and takes B / R from
// then; 1 us of room for the path's latencies and the NIC's DMA meeting a copy chunk (0.47
// us each) at the memory.  A message that fits in stack.cache moves none.
const std::string k_both_rates = ", stack: {send_rate: 10Gb/s, recv_rate: 10Gb/s";

TEST(comm_stack_path, copies_move_the_message_through_memory_once_more) {
    const auto j = test::run_stats(two_hosts(
        k_both_rates + ", send_copy_traffic: 1, recv_copy_traffic: 1}", "nic.basic", "0"));
    EXPECT_EQ(stat(j, "n[0].host", "stack_memory_bytes"), k_bytes);
    EXPECT_EQ(stat(j, "n[0].host", "memory_bytes"), k_bytes);
    EXPECT_EQ(stat(j, "n[0].mem", "bytes_read"), 2 * k_bytes);
    EXPECT_EQ(stat(j, "n[1].host", "stack_memory_bytes"), k_bytes);
    EXPECT_EQ(stat(j, "n[1].mem", "bytes_written"), 2 * k_bytes);
    const double first_frame_ns = 8960.0 * 8 / 10e9 * 1e9;
    const double received = stat(j, "n[1].host", "completion_time");
    EXPECT_GE(received, first_frame_ns + k_b_over_r_ns);
    EXPECT_LE(received, first_frame_ns + k_b_over_r_ns + k_latency_ns);
}

TEST(comm_stack_path, a_message_in_the_cache_moves_no_copy_traffic) {
    const auto j =
        test::run_stats(two_hosts(", stack: {send_rate: 10Gb/s, recv_rate: 10Gb/s, "
                                  "send_copy_traffic: 1, recv_copy_traffic: 1, "
                                  "cache: 8MiB}",
                                  "nic.basic", "0"));
    EXPECT_EQ(stat(j, "n[0].host", "stack_memory_bytes"), 0.0);
    EXPECT_EQ(stat(j, "n[0].mem", "bytes_read"), k_bytes);  // the NIC's DMA only
    EXPECT_EQ(stat(j, "n[1].mem", "bytes_written"), k_bytes);
}

// Contention: node 0's memory (10 GB/s, its NIC's DMA on a memory of its own) serves a compute
// op's 4 MiB of reads while the send's copy reads the 8 MiB message, paced at the thread's
// 5 GB/s (40 Gb/s) for B / 5 GB/s = 1677.7 us.  Alone the compute op streams at 10 GB/s:
// 419.4 us (+- two 64 KiB chunk times, 13.1 us).  Beside the copy, bounds rather than a point
// (the time-ordered memory serves the compute op's 8 chunks reserved ahead before the copy's
// later arrivals, so the copy falls behind its pace while the op runs): the copy never issues
// ahead of its pace, so the op gets at least half the channel, T <= 4 MiB / 5 GB/s = 838.9 us;
// the copy has at most its window of 8 chunks (512 KiB) plus one chunk issued and not served,
// and the channel is never idle, so T x 10 GB/s >= 4 MiB + 5 GB/s x T - 576 KiB, T >= 720.9 us.
std::string contended(const std::string& stack) {
    return R"(
components:
  host0: {type: host.cpu, node_id: 0, stack: {send_rate: 40Gb/s)" +
           stack + R"(}}
  mem0: {type: memory, bandwidth: 10GB/s, latency: 80ns}
  dma0: {type: memory, bandwidth: 140.8GB/s, latency: 80ns}
  nic0: {type: nic.basic, node_id: 0, rate: 400Gb/s, mtu: 9000B}
  host1: {type: host.cpu, node_id: 1}
  mem1: {type: memory, bandwidth: 140.8GB/s, latency: 80ns, ports: 2}
  nic1: {type: nic.basic, node_id: 1, rate: 400Gb/s, mtu: 9000B}
  link: {type: ethernet.link, rate: 400Gb/s, propagation: 10ns}
connections:
  - host0.mem -> mem0.target[0]
  - host0.nic -> nic0.host
  - nic0.notify -> host0.nic_notify
  - nic0.pcie -> dma0.target[0]
  - host1.mem -> mem1.target[0]
  - host1.nic -> nic1.host
  - nic1.notify -> host1.nic_notify
  - nic1.pcie -> mem1.target[1]
  - nic0.eth_tx -> link.a_in
  - link.b_out -> nic1.eth_rx
  - nic1.eth_tx -> link.b_in
  - link.a_out -> nic0.eth_rx
workload:
  ops:
    host0:
      - {op: send, to: 1, bytes: 8MiB, tag: 1}
      - {op: compute, flops: 0, bytes: 4MiB, address: 16MiB}
    host1:
      - {op: recv, from: 0, bytes: 8MiB, tag: 1}
)";
}

// One simulation per process: the compute op alone and beside the copy are two tests.
constexpr double k_alone_ns = 4.0 * 1024 * 1024 / 10e9 * 1e9;  // 419.43 us
constexpr double k_two_chunks_ns = 2 * 65536.0 / 10e9 * 1e9;   // 13.1 us

TEST(comm_stack_path, compute_traffic_alone_streams_at_the_memory_bandwidth) {
    const auto j = test::run_stats(contended(""));
    EXPECT_NEAR(stat(j, "host0", "time_compute"), k_alone_ns, k_two_chunks_ns);
}

TEST(comm_stack_path, copies_take_memory_bandwidth_from_compute) {
    const auto j = test::run_stats(contended(", send_copy_traffic: 1"));
    const double t = stat(j, "host0", "time_compute");
    EXPECT_LE(t, 2 * k_alone_ns + k_two_chunks_ns);
    EXPECT_GE(t, (4.0 * 1024 * 1024 - 576.0 * 1024) / 5e9 * 1e9);
}

// Interrupt work on the compute cores (stack.irq_share): node 1 computes 1e10 FLOP at
// 1 TFLOP/s (10 ms) on its cpu unit while its comm unit receives the 8 MiB message, whose
// receive work is B / R = 6710.8864 us (R = 10 Gb/s) and which is in at ~6.72 ms, inside the
// compute op.  With irq_share 0.25 the compute op loses 0.25 x 6710.8864 us = 1677.7216 us,
// exactly (rounded to the ps).  Received after the compute op (its receive waits for it, and
// the message lands while the cores are idle), nothing is lost.  One simulation per process.
std::string receiving_while_computing(const std::string& sender_ops) {
    return node_pair(", peak: 1TFLOP/s, efficiency: 1, stack: {recv_rate: 10Gb/s, irq_share: 0.25}",
                     "nic.basic",
                     "    n[0].host:\n" + sender_ops +
                         "\n"
                         "    n[1].host:\n"
                         "      - {op: compute, flops: 1e10, name: c}\n"
                         "      - {op: recv, from: 0, bytes: 8MiB, tag: 1}\n");
}

constexpr double k_compute_ns = 1e7;                  // 1e10 FLOP / 1 TFLOP/s
constexpr double k_stolen_ns = 0.25 * k_b_over_r_ns;  // 1677.7216 us

TEST(comm_stack_path, interrupt_work_stretches_the_running_compute_op) {
    const auto j = test::run_stats(
        receiving_while_computing("      - {op: send, to: 1, bytes: 8MiB, tag: 1}"));
    EXPECT_NEAR(stat(j, "n[1].host", "time_compute"), k_compute_ns + k_stolen_ns, 0.001);
    EXPECT_NEAR(stat(j, "n[1].host", "irq_stolen"), k_stolen_ns, 0.001);
}

// The sender waits 11 ms before it sends (a delay op first), so the message lands on idle
// cores.
TEST(comm_stack_path, interrupt_work_on_idle_cores_costs_nothing) {
    const auto j = test::run_stats(
        receiving_while_computing("      - {op: delay, time: 11ms, name: wait}\n"
                                  "      - {op: send, to: 1, bytes: 8MiB, tag: 1, after: [wait]}"));
    EXPECT_NEAR(stat(j, "n[1].host", "time_compute"), k_compute_ns, 0.001);
    EXPECT_EQ(stat(j, "n[1].host", "irq_stolen"), 0.0);
}

}  // namespace
}  // namespace trainvp
