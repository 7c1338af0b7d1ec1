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

std::string two_hosts(const std::string& host_extra, const std::string& nic,
                      const std::string& tos) {
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
    n[0].host:
      - {op: send, to: 1, bytes: 8MiB, tag: 1, tos: )" +
           tos + R"(}
    n[1].host:
      - {op: recv, from: 0, bytes: 8MiB, tag: 1}
)";
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
    expect_paced(
        run(", stack: {send_rate: 10Gb/s}", {"simulation.granularity=message"}, k_inceptionn, "0x28"),
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

}  // namespace
}  // namespace trainvp
