// host.cpu and accel.gpu: op timing against closed forms (term by term, to the picosecond),
// concurrency of units and deps across them, messages through a test NIC, GPU kernels and
// copies, contention on a shared memory, and the errors a host reports at elaboration.  Each
// TEST elaborates SystemC and so runs in its own process.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "ip/host/host_cpu.h"
#include "tests/support/sim_fixture.h"

namespace trainvp {
namespace {

using test::elaboration_error;
using test::make_sim;

struct run {
    std::unique_ptr<simulation> sim;
    run_result result;
    nlohmann::json stats;

    double stat(const std::string& block, const std::string& name) const {
        return stats["blocks"][block]["stats"][name]["value"].get<double>();
    }
    // A stat in ns as integer picoseconds.
    std::int64_t stat_ps(const std::string& block, const std::string& name) const {
        return std::llround(stat(block, name) * 1000.0);
    }
    std::uint64_t end_ps() const { return result.end_time.value(); }
};

run simulate(const std::string& yaml) {
    run r;
    r.sim = make_sim(yaml);
    r.sim->elaborate();
    r.result = r.sim->run();
    r.stats = nlohmann::json::parse(r.sim->stats_json(r.result));
    return r;
}

struct span_rec {
    std::int64_t start = -1;
    std::int64_t end = -1;
};

// Spans by "track/name" in integer picoseconds.
std::map<std::string, span_rec> spans(const simulation& sim) {
    auto j = nlohmann::json::parse(sim.timeline_json());
    std::map<std::pair<int, int>, std::string> tracks;
    for (const auto& e : j["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name") {
            tracks[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
        }
    }
    std::map<std::string, span_rec> out;
    for (const auto& e : j["traceEvents"]) {
        if (e["ph"] != "X") continue;
        const std::string track = tracks[{e["pid"].get<int>(), e["tid"].get<int>()}];
        const std::int64_t start = std::llround(e["ts"].get<double>() * 1e6);
        const std::int64_t dur = std::llround(e["dur"].get<double>() * 1e6);
        out[track + "/" + e["name"].get<std::string>()] = span_rec{start, start + dur};
    }
    return out;
}

// A host with its own memory (25.6 GB/s, 80 ns: one DDR4-3200 channel, the memory defaults).
std::string host_with_memory(const std::string& host_params, const std::string& ops) {
    return R"(
simulation: {stall_timeout: 10ms}
components:
  host: {type: host.cpu, )" +
           host_params + R"(}
  mem: {type: memory, bandwidth: 25.6GB/s, latency: 80ns}
connections:
  - host.mem -> mem.target
workload:
  ops:
    host:
)" + ops;
}

// 64 KiB at 25.6 GB/s.
constexpr std::int64_t k_chunk_ps = 2560000;
constexpr std::int64_t k_latency_ps = 80000;

TEST(host, compute_time_is_flops_over_peak_times_efficiency_exact_to_the_ps) {
    auto r = simulate(host_with_memory("peak: 1TFLOP/s, efficiency: 80%, cores: 28",
                                       "      - {op: compute, flops: 1234567891}\n"));
    EXPECT_EQ(r.result.status, run_status::FINISHED);
    // 1234567891 / (1e12 x 0.8) s = 1543209863.75 ps, rounded to the nearest ps.
    EXPECT_EQ(r.end_ps(), 1543209864u);
    EXPECT_EQ(r.stat_ps("host", "completion_time"), 1543209864);
    EXPECT_EQ(r.stat("host", "flops"), 1234567891.0);
    EXPECT_EQ(r.stat("host", "ops_compute"), 1.0);
    EXPECT_EQ(r.stat("host", "memory_bytes"), 0.0);
}

TEST(host, two_comm_cores_of_28_slow_compute_by_exactly_28_over_26) {
    auto r = simulate(R"(
components:
  all: {type: host.cpu, peak: 1TFLOP/s, cores: 28, comm_cores: 0}
  split: {type: host.cpu, peak: 1TFLOP/s, cores: 28, comm_cores: 2}
  m0: {type: memory}
  m1: {type: memory}
connections: [all.mem -> m0.target, split.mem -> m1.target]
workload:
  ops:
    all: [{op: compute, flops: 2.6e7}]
    split: [{op: compute, flops: 2.6e7}]
)");
    const std::int64_t all = r.stat_ps("all", "completion_time");
    const std::int64_t split = r.stat_ps("split", "completion_time");
    EXPECT_EQ(all, 26000000);    // 2.6e7 FLOP / 1 TFLOP/s
    EXPECT_EQ(split, 28000000);  // on 26 of 28 cores: x 28/26
    EXPECT_EQ(split * 26, all * 28);
}

TEST(host, compute_time_is_memory_time_plus_flop_time) {
    // paleo.md eq. 1: memory then compute.  1 MiB in 16 chunks of 64 KiB, 8 in flight: the
    // window covers the latency (80 ns < 7 chunks), so the memory streams: 16 x 2.56 us + 80 ns.
    auto r = simulate(host_with_memory("peak: 1TFLOP/s, memory_chunk: 64KiB, memory_outstanding: 8",
                                       "      - {op: compute, flops: 1e9, bytes: 1MiB}\n"));
    const std::int64_t memory = 16 * k_chunk_ps + k_latency_ps;
    const std::int64_t compute = 1000000000;  // 1e9 / 1e12 s
    EXPECT_EQ(r.end_ps(), static_cast<std::uint64_t>(memory + compute));
    EXPECT_EQ(r.stat("host", "memory_bytes"), 1048576.0);
    EXPECT_EQ(r.stat("mem", "reads"), 16.0);
    EXPECT_EQ(r.stat("mem", "writes"), 0.0);
}

TEST(host, latency_bound_memory_traffic_with_one_chunk_in_flight) {
    // One chunk at a time: each pays transfer + latency.
    auto r = simulate(host_with_memory("peak: 1TFLOP/s, memory_chunk: 64KiB, memory_outstanding: 1",
                                       "      - {op: compute, flops: 0, bytes: 256KiB}\n"));
    EXPECT_EQ(r.end_ps(), static_cast<std::uint64_t>(4 * (k_chunk_ps + k_latency_ps)));
}

TEST(host, sum_time_follows_its_flop_and_traffic_formulas) {
    // 3 buffers of 256 KiB = 65536 fp32 values: (3-1) x 65536 adds; (3+1) x 256 KiB of traffic
    // = 16 chunks (12 reads, 4 writes) streamed; at 1 GFLOP/s.
    auto r = simulate(
        host_with_memory("peak: 1GFLOP/s", "      - {op: sum, bytes: 256KiB, inputs: 3}\n"));
    const std::int64_t memory = 16 * k_chunk_ps + k_latency_ps;
    const std::int64_t compute = 131072000;  // 131072 FLOP / 1e9 FLOP/s
    EXPECT_EQ(r.end_ps(), static_cast<std::uint64_t>(memory + compute));
    EXPECT_EQ(r.stat("host", "flops"), 131072.0);
    EXPECT_EQ(r.stat("host", "memory_bytes"), 4.0 * 262144.0);
    EXPECT_EQ(r.stat("mem", "reads"), 12.0);
    EXPECT_EQ(r.stat("mem", "writes"), 4.0);
    EXPECT_EQ(r.stat("host", "ops_sum"), 1.0);
    EXPECT_EQ(r.stat_ps("host", "time_sum"), memory + compute);
}

TEST(host, update_time_follows_sgd_with_momentum) {
    // 128 KiB = 32768 weights: 4 FLOPs each; 5 passes (read w, g, v; write w, v) = 10 chunks.
    auto r = simulate(host_with_memory("peak: 1GFLOP/s", "      - {op: update, bytes: 128KiB}\n"));
    const std::int64_t memory = 10 * k_chunk_ps + k_latency_ps;
    const std::int64_t compute = 131072000;  // 4 x 32768 FLOP / 1e9 FLOP/s
    EXPECT_EQ(r.end_ps(), static_cast<std::uint64_t>(memory + compute));
    EXPECT_EQ(r.stat("mem", "reads"), 6.0);
    EXPECT_EQ(r.stat("mem", "writes"), 4.0);
    EXPECT_EQ(r.stat_ps("host", "time_update"), memory + compute);
}

TEST(host, stream_bandwidth_paces_an_ops_memory_traffic) {
    // The update of 128 KiB: 10 chunks of 64 KiB.  At 6.4 GB/s chunk k issues at k x 10.24 us
    // (four times a chunk's 2.56 us at the memory's 25.6 GB/s), so the last one issues at
    // 9 x 10.24 us and completes a chunk time and the latency later.
    auto r = simulate(host_with_memory("peak: 1GFLOP/s, stream_bandwidth: 6.4GB/s",
                                       "      - {op: update, bytes: 128KiB}\n"));
    const std::int64_t memory = 9 * 4 * k_chunk_ps + k_chunk_ps + k_latency_ps;
    const std::int64_t compute = 131072000;
    EXPECT_EQ(r.end_ps(), static_cast<std::uint64_t>(memory + compute));
}

TEST(host, sum_on_the_comm_cores_runs_at_their_share_of_peak) {
    // comm: 2 of 28 cores of 28 GFLOP/s = 2 GFLOP/s.  1000 values, 3 inputs: 2000 adds = 1 us;
    // traffic 4 passes of 4000 B, one chunk each: 4 x 156.25 ns + 80 ns.
    auto r = simulate(host_with_memory("peak: 28GFLOP/s, cores: 28, comm_cores: 2",
                                       "      - {op: sum, bytes: 4000B, inputs: 3, unit: comm}\n"));
    EXPECT_EQ(r.end_ps(), 4u * 156250u + 80000u + 1000000u);
    EXPECT_EQ(r.stat("host", "cpu_busy"), 0.0);
    EXPECT_EQ(r.stat_ps("host", "comm_busy"), 4 * 156250 + 80000 + 1000000);
}

TEST(host, units_overlap_and_after_waits_across_units) {
    // cpu: c1 [0, 10us], c3 after d1 -> after c1 in unit order: [10, 12us].
    // comm: d1 [0, 4us], d2 after c1: [10, 13us].
    auto r = simulate(host_with_memory("peak: 1TFLOP/s", R"(
      - {op: compute, flops: 1e7, name: c1}
      - {op: delay, time: 4us, unit: comm, name: d1}
      - {op: delay, time: 3us, unit: comm, name: d2, after: [c1]}
      - {op: compute, flops: 2e6, name: c3, after: d1}
)"));
    auto s = spans(*r.sim);
    EXPECT_EQ(s["host.cpu/c1"].start, 0);
    EXPECT_EQ(s["host.cpu/c1"].end, 10000000);
    EXPECT_EQ(s["host.comm/d1"].start, 0);
    EXPECT_EQ(s["host.comm/d1"].end, 4000000);
    EXPECT_EQ(s["host.comm/d2"].start, 10000000);
    EXPECT_EQ(s["host.comm/d2"].end, 13000000);
    EXPECT_EQ(s["host.cpu/c3"].start, 10000000);
    EXPECT_EQ(s["host.cpu/c3"].end, 12000000);
    EXPECT_EQ(r.end_ps(), 13000000u);
    EXPECT_EQ(r.stat_ps("host", "cpu_busy"), 12000000);
    EXPECT_EQ(r.stat_ps("host", "comm_busy"), 7000000);
    EXPECT_EQ(r.stat("host", "ops_delay"), 2.0);
}

// Two hosts (node ids 0 and 1) on the test NIC: 10 Gb/s per sender, 1 us from the end of a
// send to RECEIVED.  125 kB take 100 us on the wire.
std::string two_hosts(const std::string& a_params, const std::string& b_params,
                      const std::string& a_ops, const std::string& b_ops,
                      const std::string& nic_params = "") {
    return R"(
simulation: {stall_timeout: 1ms}
components:
  a: {type: host.cpu, node_id: 0, peak: 1TFLOP/s, )" +
           a_params + R"(}
  b: {type: host.cpu, node_id: 1, peak: 1TFLOP/s, )" +
           b_params + R"(}
  ma: {type: memory}
  mb: {type: memory}
  net: {type: test.nic_loopback, ports: 2, bandwidth: 10Gb/s, latency: 1us)" +
           nic_params + R"(}
connections:
  - a.mem -> ma.target
  - b.mem -> mb.target
  - a.nic -> net.host[0]
  - b.nic -> net.host[1]
  - net.notify[0] -> a.nic_notify
  - net.notify[1] -> b.nic_notify
workload:
  ops:
    a:
)" + a_ops +
           "    b:\n" + b_ops;
}

TEST(host, send_after_a_compute_starts_when_the_compute_ends) {
    // a: c1 1 us; s1 posted at 1 us + 100 ns overhead = 1.1 us, on the wire until 101.1 us
    // (SEND_DONE); c2 after s1 starts at 101.1 us.  b receives at 102.1 us.
    auto r = simulate(two_hosts("stack: {send_overhead: 100ns}", "",
                                R"(
      - {op: compute, flops: 1e6, name: c1}
      - {op: send, to: 1, bytes: 125kB, tag: 3, name: s1, after: [c1]}
      - {op: compute, flops: 1e6, name: c2, after: [s1]}
)",
                                "      - {op: recv, from: 0, bytes: 125kB, tag: 3, name: r1}\n"));
    EXPECT_EQ(r.result.status, run_status::FINISHED);
    auto s = spans(*r.sim);
    EXPECT_EQ(s["a.comm/s1"].start, 1000000);
    EXPECT_EQ(s["a.comm/s1"].end, 1100000);  // the unit is free once the NIC has the descriptor
    EXPECT_EQ(s["a.cpu/c2"].start, 101100000);
    EXPECT_EQ(s["a.cpu/c2"].end, 102100000);
    EXPECT_EQ(s["b.comm/r1"].start, 0);
    EXPECT_EQ(s["b.comm/r1"].end, 102100000);
    EXPECT_EQ(r.stat_ps("a", "completion_time"), 102100000);
    EXPECT_EQ(r.stat_ps("b", "completion_time"), 102100000);
    EXPECT_EQ(r.stats["blocks"]["a"]["stats"]["send_latency"]["mean"].get<double>(), 100000.0);
    EXPECT_EQ(r.stat("a", "bytes_sent"), 125000.0);
    EXPECT_EQ(r.stat("b", "bytes_received"), 125000.0);
    EXPECT_EQ(r.stat("b", "unexpected"), 0.0);
}

const char* k_send_at_0 = "      - {op: send, to: 1, bytes: 125kB, tag: 7}\n";

TEST(host, recv_posted_before_the_message_arrives_completes_at_the_arrival) {
    // Sent at 0: on the wire until 100 us, RECEIVED at 101 us; posted at 0 with 2 us overhead.
    auto r = simulate(two_hosts("", "stack: {recv_overhead: 2us}", k_send_at_0,
                                "      - {op: recv, from: 0, bytes: 125kB, tag: 7, name: r}\n"));
    auto s = spans(*r.sim);
    EXPECT_EQ(s["b.comm/r"].end, 101000000);
    EXPECT_EQ(r.stat("b", "unexpected"), 0.0);
    EXPECT_EQ(r.stats["blocks"]["b"]["stats"]["recv_wait"]["mean"].get<double>(), 99000.0);
}

TEST(host, recv_posted_before_arrival_with_notifications_from_the_nic_thread) {
    // The same with the NIC calling nic_notify at the event's time (no annotated delay).
    auto r = simulate(two_hosts("", "stack: {recv_overhead: 2us}", k_send_at_0,
                                "      - {op: recv, from: 0, bytes: 125kB, tag: 7, name: r}\n",
                                ", timed: true"));
    EXPECT_EQ(spans(*r.sim)["b.comm/r"].end, 101000000);
    EXPECT_EQ(r.stat_ps("a", "completion_time"), 100000000);
}

TEST(host, recv_posted_after_the_message_arrived_takes_it_from_the_unexpected_queue) {
    // Arrived at 101 us; posted at 200 us: done after its 2 us overhead.
    auto r = simulate(two_hosts("", "stack: {recv_overhead: 2us}", k_send_at_0, R"(
      - {op: delay, time: 200us, unit: comm}
      - {op: recv, from: 0, bytes: 125kB, tag: 7, name: r}
)"));
    auto s = spans(*r.sim);
    EXPECT_EQ(s["b.comm/r"].start, 200000000);
    EXPECT_EQ(s["b.comm/r"].end, 202000000);
    EXPECT_EQ(r.stat("b", "unexpected"), 1.0);
}

TEST(host, recv_matches_by_source_and_tag_in_arrival_order) {
    // a sends tag 1 then tag 2 (each 100 us on the wire): RECEIVED at 101 us and 201 us.  b
    // receives tag 2 first, then tag 1 (which waited in the unexpected queue).
    auto r = simulate(two_hosts("", "", R"(
      - {op: send, to: 1, bytes: 125kB, tag: 1}
      - {op: send, to: 1, bytes: 125kB, tag: 2}
)",
                                R"(
      - {op: recv, from: 0, bytes: 125kB, tag: 2, name: r2}
      - {op: recv, from: 0, bytes: 125kB, tag: 1, name: r1}
)"));
    auto s = spans(*r.sim);
    EXPECT_EQ(s["b.comm/r2"].end, 201000000);
    EXPECT_EQ(s["b.comm/r1"].start, 201000000);
    EXPECT_EQ(s["b.comm/r1"].end, 201000000);
    EXPECT_EQ(r.stat("b", "unexpected"), 1.0);
}

// Two hosts that each wait for the other's message before sending their own: every send has
// its receive (the validation phase pairs them), but the lists deadlock, which only the run
// shows.
const std::string k_deadlock_a =
    "      - {op: recv, from: 1, bytes: 1kB, tag: 8, name: ra}\n"
    "      - {op: send, to: 1, bytes: 1kB, tag: 9}\n";
const std::string k_deadlock_b =
    "      - {op: recv, from: 0, bytes: 1kB, tag: 9, name: r}\n"
    "      - {op: send, to: 0, bytes: 1kB, tag: 8}\n";

TEST(host, recv_that_never_arrives_is_reported_as_a_stall) {
    auto r = simulate(two_hosts("", "", k_deadlock_a, k_deadlock_b));
    EXPECT_EQ(r.result.status, run_status::STALLED);
    EXPECT_EQ(r.result.stall_report,
              "stall: no progress since 0 s (for 1 ms, stall_timeout) while blocks hold work:\n"
              "  a (host.cpu): comm: op 'ra' (recv) waits for its message from node 1 with tag 8 "
              "(posted at 0 s), 1 more after it\n"
              "  b (host.cpu): comm: op 'r' (recv) waits for its message from node 0 with tag 9 "
              "(posted at 0 s), 1 more after it");
}

TEST(host, without_the_timeline_a_stall_report_still_names_the_op) {
    // The host then keeps no op names; it asks its op stream for the name it reports.
    std::string config =
        two_hosts("", "", k_deadlock_a, "      - {op: compute, flops: 1}\n" + k_deadlock_b);
    const std::string sim = "simulation: {stall_timeout: 1ms}";
    config.replace(config.find(sim), sim.size(),
                   "simulation: {stall_timeout: 1ms, timeline: false}");
    auto r = simulate(config);
    EXPECT_EQ(r.result.status, run_status::STALLED);
    EXPECT_EQ(r.result.stall_report,
              "stall: no progress since 1 ps (for 1 ms, stall_timeout) while blocks hold work:\n"
              "  a (host.cpu): comm: op 'ra' (recv) waits for its message from node 1 with tag 8 "
              "(posted at 0 s), 1 more after it\n"
              "  b (host.cpu): comm: op 'r' (recv) waits for its message from node 0 with tag 9 "
              "(posted at 0 s), 1 more after it");
}

// A host with a GPU whose copy engine reaches its own memory `pm`.
std::string host_gpu(const std::string& gpu_params, const std::string& pm_params,
                     const std::string& ops) {
    return R"(
simulation: {stall_timeout: 100ms}
components:
  host: {type: host.cpu, peak: 1TFLOP/s}
  mem: {type: memory}
  gpu: {type: accel.gpu, )" +
           gpu_params + R"(}
  pm: {type: memory, )" +
           pm_params + R"(}
connections:
  - host.mem -> mem.target
  - host.accel -> gpu.ctrl
  - gpu.pcie -> pm.target
workload:
  ops:
    host:
)" + ops;
}

TEST(host, gpu_kernel_takes_launch_plus_flops_over_rate_plus_bytes_over_memory_bandwidth) {
    auto r = simulate(
        host_gpu("peak: 10TFLOP/s, efficiency: 50%, memory_bandwidth: 500GB/s, launch: 5us", "",
                 "      - {op: gpu_compute, flops: 1e10, bytes: 1GB, name: k}\n"));
    // 5 us + 1e10 / 5e12 s + 1e9 B / 5e11 B/s = 5 us + 2 ms + 2 ms.
    EXPECT_EQ(r.end_ps(), 4005000000u);
    auto s = spans(*r.sim);
    EXPECT_EQ(s["host.gpu/k"].end, 4005000000);
    EXPECT_EQ(s["gpu/kernel"].end, 4005000000);
    EXPECT_EQ(r.stat("gpu", "kernels"), 1.0);
    EXPECT_EQ(r.stat("gpu", "flops"), 1e10);
    EXPECT_EQ(r.stat("host", "ops_gpu_compute"), 1.0);
}

// A measured pass on the gpu unit (a delay op, as training with forward_time on a GPU makes)
// runs on the accelerator as a kernel of exactly that time: no launch, flops or bytes model,
// and the GPU's compute engine shows it (compute_busy, kernels).
TEST(host, a_delay_on_the_gpu_unit_is_a_kernel_of_that_duration) {
    auto r = simulate(host_gpu("launch: 5us", "",
                               "      - {op: delay, time: 3ms, unit: gpu, name: fwd}\n"
                               "      - {op: gpu_compute, flops: 1e9, name: k, after: [fwd]}\n"));
    // 3 ms, then 5 us + 1e9 FLOP at the default peak.
    auto s = spans(*r.sim);
    EXPECT_EQ(s["host.gpu/fwd"].end, 3000000000);
    EXPECT_EQ(r.stat("gpu", "kernels"), 2.0);
    EXPECT_NEAR(r.stat("gpu", "compute_busy"), 3e6 + (static_cast<double>(r.end_ps()) - 3e9) / 1e3,
                1e-6);
    EXPECT_GT(r.stat("gpu", "compute_utilisation"), 0.99);
}

TEST(host, copy_to_gpu_is_the_dma_closed_form_when_the_window_covers_the_latency) {
    // 1 MiB in 256 bursts of 4 KiB (256 ns each at 16 GB/s), 4 in flight: latency 500 ns <
    // 3 bursts, so the copy streams: setup + 256 x 256 ns + 500 ns.
    auto r = simulate(host_gpu("copy_burst: 4KiB, copy_outstanding: 4, copy_setup: 2us",
                               "bandwidth: 16GB/s, latency: 500ns",
                               "      - {op: copy_to_gpu, bytes: 1MiB, address: 1MiB}\n"));
    EXPECT_EQ(r.end_ps(), 2000000u + 256u * 256000u + 500000u);
    EXPECT_EQ(r.stat("pm", "reads"), 256.0);
    EXPECT_EQ(r.stat("gpu", "bytes_to_gpu"), 1048576.0);
    EXPECT_EQ(r.stat("gpu", "copy_bursts"), 256.0);
    EXPECT_EQ(r.stat("host", "bytes_to_gpu"), 1048576.0);
}

TEST(host, copy_rate_paces_the_copy_engine_below_its_path) {
    // As above, paced at 4 GB/s: burst k issues at setup + k x 1024 ns (four bursts' time at
    // the path's 16 GB/s), the last at 255 x 1024 ns, done a burst time and the latency later.
    auto r = simulate(
        host_gpu("copy_burst: 4KiB, copy_outstanding: 4, copy_setup: 2us, copy_rate: 4GB/s",
                 "bandwidth: 16GB/s, latency: 500ns",
                 "      - {op: copy_to_gpu, bytes: 1MiB, address: 1MiB}\n"));
    EXPECT_EQ(r.end_ps(), 2000000u + 255u * 1024000u + 256000u + 500000u);
}

TEST(host, copy_to_host_with_one_burst_in_flight_is_latency_bound) {
    // Each burst waits for the previous: setup + 256 x (256 ns + 500 ns).
    auto r = simulate(host_gpu("copy_burst: 4KiB, copy_outstanding: 1, copy_setup: 2us",
                               "bandwidth: 16GB/s, latency: 500ns",
                               "      - {op: copy_to_host, bytes: 1MiB}\n"));
    EXPECT_EQ(r.end_ps(), 2000000u + 256u * (256000u + 500000u));
    EXPECT_EQ(r.stat("pm", "writes"), 256.0);
    EXPECT_EQ(r.stat("gpu", "bytes_to_host"), 1048576.0);
}

TEST(host, gpu_kernel_and_copies_overlap_on_their_engines) {
    // k: 1 ms kernel; c0 copies in during it; c1 copies out after k.  A copy of 1 MiB in one
    // 1 MiB burst at 16 GB/s takes 65.536 us + 500 ns.
    auto r = simulate(host_gpu("peak: 1TFLOP/s, copy_burst: 1MiB, copy_outstanding: 1",
                               "bandwidth: 16GB/s, latency: 500ns", R"(
      - {op: gpu_compute, flops: 1e9, name: k}
      - {op: copy_to_gpu, bytes: 1MiB, name: c0}
      - {op: copy_to_host, bytes: 1MiB, name: c1, after: [k]}
)"));
    const std::int64_t copy = 65536000 + 500000;
    auto s = spans(*r.sim);
    EXPECT_EQ(s["host.gpu/k"].end, 1000000000);
    EXPECT_EQ(s["host.copy/c0"].start, 0);
    EXPECT_EQ(s["host.copy/c0"].end, copy);
    EXPECT_EQ(s["host.copy/c1"].start, 1000000000);
    EXPECT_EQ(s["host.copy/c1"].end, 1000000000 + copy);
    EXPECT_EQ(r.stat_ps("host", "gpu_busy"), 1000000000);
    EXPECT_EQ(r.stat_ps("host", "copy_busy"), 2 * copy);
    EXPECT_EQ(r.stat_ps("gpu", "copy_busy"), 2 * copy);
}

TEST(host, compute_traffic_contends_with_a_gpu_copy_on_a_shared_memory) {
    // The copy (16 bursts of 64 KiB, all in flight) reserves the memory for 16 x 2.56 us from
    // 0; the compute's 16 chunks, issued at 1 ns, queue behind it and stream: they end at
    // 32 x 2.56 us + 80 ns, then 1 us of compute.
    auto r = simulate(R"(
simulation: {stall_timeout: 100ms}
components:
  host: {type: host.cpu, peak: 1TFLOP/s, memory_chunk: 64KiB, memory_outstanding: 8}
  gpu: {type: accel.gpu, copy_burst: 64KiB, copy_outstanding: 16}
  mem: {type: memory, bandwidth: 25.6GB/s, latency: 80ns, ports: 2}
connections:
  - host.mem -> mem.target[0]
  - gpu.pcie -> mem.target[1]
  - host.accel -> gpu.ctrl
workload:
  ops:
    host:
      - {op: copy_to_gpu, bytes: 1MiB, name: c}
      - {op: delay, time: 1ns}
      - {op: compute, flops: 1e6, bytes: 1MiB, address: 1GiB, name: f}
)");
    auto s = spans(*r.sim);
    EXPECT_EQ(s["host.copy/c"].end, 16 * k_chunk_ps + k_latency_ps);
    EXPECT_EQ(s["host.cpu/f"].start, 1000);
    EXPECT_EQ(s["host.cpu/f"].end, 32 * k_chunk_ps + k_latency_ps + 1000000);
    EXPECT_EQ(r.stat("mem", "reads"), 32.0);
}

TEST(host, an_unknown_dep_is_an_input_error) {
    EXPECT_EQ(elaboration_error(host_with_memory("", R"(
      - {op: compute, flops: 1, name: fwd}
      - {op: compute, flops: 1, after: [fdw]}
)")),
              "t.yaml:13:41: error: workload.ops.host[1].after[0]: no op named 'fdw' before this "
              "one (did you mean 'fwd'?)");
}

TEST(host, a_gpu_op_without_an_accelerator_is_an_input_error_naming_the_op) {
    EXPECT_EQ(elaboration_error(host_with_memory("", R"(
      - {op: compute, flops: 1}
      - {op: gpu_compute, flops: 1e9, name: fwd}
)")),
              "t.yaml:13:9: error: workload.ops.host[1]: op 'fwd' (gpu_compute) runs on the "
              "accelerator, but host.accel is not bound (connect it to an accelerator's ctrl "
              "socket)");
}

TEST(host, a_send_without_a_nic_is_an_input_error_naming_the_op) {
    EXPECT_EQ(elaboration_error(host_with_memory("", "      - {op: send, to: 1, bytes: 1MB}\n")),
              "t.yaml:11:9: error: workload.ops.host[0]: op [0] (send) needs a NIC, but host.nic "
              "is not bound");
}

TEST(host, a_recv_without_nic_notifications_is_an_input_error) {
    // The NIC's notifications go to another host.
    EXPECT_EQ(elaboration_error(R"(
components:
  host: {type: host.cpu}
  mem: {type: memory}
  other: {type: host.cpu}
  mem2: {type: memory}
  net: {type: test.nic_loopback, ports: 1}
connections:
  - host.mem -> mem.target
  - other.mem -> mem2.target
  - host.nic -> net.host[0]
  - net.notify[0] -> other.nic_notify
workload:
  ops:
    host: [{op: recv, from: 0, bytes: 1kB}]
)"),
              "t.yaml:15:12: error: workload.ops.host[0]: op [0] (recv) needs a NIC, but "
              "host.nic_notify is not bound (the NIC could not report completions)");
}

TEST(host, work_on_the_comm_unit_needs_comm_cores) {
    EXPECT_EQ(elaboration_error(host_with_memory(
                  "comm_cores: 0", "      - {op: update, bytes: 4MB, unit: comm, name: u}\n")),
              "t.yaml:11:9: error: workload.ops.host[0]: op 'u' (update) runs on unit comm, but "
              "host has comm_cores: 0");
}

TEST(host, comm_cores_must_leave_a_compute_core) {
    EXPECT_EQ(elaboration_error(host_with_memory("cores: 4, comm_cores: 4", "      []\n")),
              "t.yaml:4:48: error: host.comm_cores: 4 comm cores leave no compute core of 4 cores");
}

TEST(host, a_host_without_ops_finishes_at_once) {
    auto r = simulate(host_with_memory("", "      []\n"));
    EXPECT_EQ(r.result.status, run_status::FINISHED);
    EXPECT_EQ(r.end_ps(), 0u);
}

}  // namespace
}  // namespace trainvp

namespace trainvp {
namespace {

// Soak (ip/host/README.md): a training run's hosts hold the iterations they are running, not
// the whole run.  Paper configs with 50 iterations: every host's most ops held at once stays
// within 3 iterations' worth (the one it runs, the previous one while the next one's forward
// ops wait for its updates, and the next one a unit has reached), while the run does every op.
struct soak_run {
    std::unique_ptr<simulation> sim;
    run_result result;
};

soak_run run_paper(const std::string& config, int iterations, bool breakdown = true) {
    platform_loader loader(registry::global());
    std::vector<std::string> sets = {"workload.training.iterations=" + std::to_string(iterations),
                                     "simulation.timeline=false"};
    if (!breakdown) sets.push_back("simulation.breakdown=false");
    soak_run r;
    r.sim = std::make_unique<simulation>(
        loader.load(std::string(TRAINVP_SOURCE_DIR) + "/configs/papers/" + config, sets),
        registry::global());
    r.sim->elaborate();
    r.result = r.sim->run();
    return r;
}

void expect_bounded_window(const soak_run& r, int iterations) {
    ASSERT_EQ(r.result.status, run_status::FINISHED) << r.result.error;
    int hosts = 0;
    for (ip_module* b : r.sim->blocks()) {
        const auto* h = dynamic_cast<const ip::host_cpu*>(b);
        if (h == nullptr) continue;
        ++hosts;
        ASSERT_EQ(h->total_ops() % static_cast<std::size_t>(iterations), 0u) << h->path();
        const std::size_t per_iteration = h->total_ops() / static_cast<std::size_t>(iterations);
        EXPECT_GT(per_iteration, 0u) << h->path();
        EXPECT_LE(h->max_live_ops(), 3 * per_iteration) << h->path();
        std::cout << h->path() << ": " << per_iteration << " ops per iteration, at most "
                  << h->max_live_ops() << " held at once\n";
        // At the end only the last chunks are left (the last is never dropped: no next one).
        EXPECT_LE(h->live_ops(), 2 * per_iteration) << h->path();
        EXPECT_TRUE(h->finished()) << h->path();
    }
    EXPECT_GT(hosts, 1);
}

TEST(host_soak, ring_hdc_50_iterations_holds_at_most_3_iterations_of_ops) {
    const soak_run r = run_paper("inceptionn/inc_hdc.yaml", 50);
    expect_bounded_window(r, 50);
    ASSERT_TRUE(r.result.has_breakdown) << r.result.breakdown.error;
    EXPECT_GT(r.result.breakdown.total_ps, 0u);
}

TEST(host_soak, worker_aggregator_hdc_50_iterations_holds_at_most_3_iterations_of_ops) {
    const soak_run r = run_paper("inceptionn/wa_hdc.yaml", 50);
    expect_bounded_window(r, 50);
    EXPECT_TRUE(r.result.has_breakdown) << r.result.breakdown.error;
}

TEST(host_soak, without_the_breakdown_nothing_is_recorded) {
    const soak_run r = run_paper("inceptionn/inc_hdc.yaml", 5, false);
    expect_bounded_window(r, 5);
    EXPECT_FALSE(r.result.has_breakdown);
}

}  // namespace
}  // namespace trainvp

namespace trainvp {
namespace {

// A stream of `chunks` chunks of one compute op each; chunk `bad` waits for op `dep`.
class chain_source : public ops::op_source {
public:
    chain_source(std::size_t chunks, std::size_t bad, std::size_t dep)
        : m_chunks(chunks), m_bad(bad), m_dep(dep) {}
    std::size_t chunks() const override { return m_chunks; }
    std::vector<ops::op> take(std::size_t c) override {
        ops::op o;
        o.kind = ops::op_kind::COMPUTE;
        o.flops = 1e6;
        if (c > 0) o.after = {c - 1};
        if (c == m_bad) o.after = {m_dep};
        return {o};
    }
    std::size_t size() const override { return m_chunks; }
    std::array<std::size_t, ops::k_op_units> unit_sizes() const override {
        return {m_chunks, 0, 0, 0};
    }
    std::string name_of(std::size_t) override { return {}; }

private:
    std::size_t m_chunks, m_bad, m_dep;
};

run run_source(std::unique_ptr<ops::op_source> src) {
    run r;
    r.sim = make_sim(R"(
simulation: {stall_timeout: 10ms}
components:
  host: {type: host.cpu}
  mem: {type: memory, bandwidth: 25.6GB/s, latency: 80ns}
connections:
  - host.mem -> mem.target
)");
    r.sim->elaborate();
    dynamic_cast<ip::host_cpu*>(r.sim->block("host"))
        ->accept_source(std::move(src), source_loc{}, "test");
    r.result = r.sim->run();
    return r;
}

TEST(host_soak, chunks_are_dropped_as_they_finish) {
    const run r = run_source(std::make_unique<chain_source>(20, 20, 0));
    ASSERT_EQ(r.result.status, run_status::FINISHED) << r.result.error;
    const auto* h = dynamic_cast<const ip::host_cpu*>(r.sim->block("host"));
    EXPECT_EQ(h->total_ops(), 20u);
    // The running chunk and the one before it (kept until the next one's deps on it are done).
    EXPECT_EQ(h->max_live_ops(), 2u);
}

TEST(host_soak, an_op_waiting_for_a_dropped_chunk_is_an_internal_error) {
    // Chunk 3 may wait for chunks 2 and 3 only; op 0 is in chunk 0 (long dropped).
    const run r = run_source(std::make_unique<chain_source>(5, 3, 0));
    EXPECT_EQ(r.result.status, run_status::FAILED);
    EXPECT_NE(r.result.error.find("op 3 waits for op 0, before the previous chunk of its stream"),
              std::string::npos)
        << r.result.error;
}

}  // namespace
}  // namespace trainvp
