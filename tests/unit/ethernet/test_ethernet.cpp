// Ethernet link, switch and endpoint: closed-form timing (exact to the picosecond where the
// model is deterministic), incast with drop and pause, bad params, stats and VCD; the framing
// every frame sender shares, the binder's line-rate check and the ToS reader.  Each TEST
// elaborates SystemC and so runs in its own process.
//
// Symbols in the closed forms:
//   wire = payload + 78 B (Ethernet 14 + FCS 4 + preamble 8 + gap 12 + IPv4 20 + TCP 20)
//   ser  = wire * 8 / rate          (10 Gb/s: 800 ps per byte)
//   prop = the link's propagation   lat = the switch's port-to-port latency
//   hdr  = header * 8 / rate        (the bytes a cut-through port waits for)
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/params.h"
#include "core/tos.h"
#include "ip/ethernet/framing.h"
#include "tests/support/sim_fixture.h"
#include "tests/support/test_util.h"

namespace trainvp {
namespace {

using nlohmann::json;

constexpr std::uint64_t k_overhead = 78;      // B, the endpoint's l3l4_header + l2_overhead
constexpr std::uint64_t k_ps_per_byte = 800;  // at 10 Gb/s
constexpr std::uint64_t k_prop = 10000;       // ps, the link's default (2 m at ~5 ns/m)
constexpr std::uint64_t k_lat = 1000000;      // ps, the switch's default latency (1 us)
constexpr std::uint64_t k_header = 22;        // B, the switch's default header

std::uint64_t ser_10g(std::uint64_t payload) { return (payload + k_overhead) * k_ps_per_byte; }

struct outcome {
    run_result r;
    json stats;
};

outcome run(const std::string& yaml, const std::vector<std::string>& sets = {}) {
    auto sim = test::make_sim(yaml, sets);
    sim->elaborate();
    outcome o;
    o.r = sim->run();
    o.stats = json::parse(sim->stats_json(o.r));
    return o;
}

const json& stat(const outcome& o, const std::string& block, const std::string& name) {
    const json& b = o.stats["blocks"][block];
    EXPECT_TRUE(b["stats"].contains(name)) << block << "." << name;
    return b["stats"][name];
}
double value(const outcome& o, const std::string& block, const std::string& name) {
    return stat(o, block, name)["value"].get<double>();
}
std::uint64_t count(const outcome& o, const std::string& block, const std::string& name) {
    return stat(o, block, name)["value"].get<std::uint64_t>();
}

// The invariant every switch keeps in every run: bytes in = bytes out + bytes dropped, in
// total and summed over the ports.
void expect_switch_conserves(const outcome& o, const std::string& sw, std::size_t ports) {
    std::uint64_t in = 0, out = 0, dropped = 0;
    for (std::size_t i = 0; i < ports; ++i) {
        const std::string idx = "[" + std::to_string(i) + "]";
        in += count(o, sw, "bytes_in" + idx);
        out += count(o, sw, "bytes_out" + idx);
        dropped += count(o, sw, "bytes_dropped" + idx);
    }
    EXPECT_EQ(in, out + dropped) << sw;
    EXPECT_EQ(count(o, sw, "received_bytes"), in);
    EXPECT_EQ(count(o, sw, "forwarded_bytes"), out);
    EXPECT_EQ(count(o, sw, "dropped_bytes"), dropped);
}

// Two endpoints on one link: a (node 0) sends to b (node 1).
std::string point_to_point(const std::string& a_params, const std::string& b_params,
                           const std::string& link_params = "") {
    return R"(
components:
  a: {type: ethernet.endpoint, node_id: 0, )" +
           a_params + R"(}
  b: {type: ethernet.endpoint, node_id: 1, )" +
           b_params + R"(}
  cable: {type: ethernet.link)" +
           (link_params.empty() ? "" : ", " + link_params) + R"(}
connections:
  - a.tx -> cable.a_in
  - cable.b_out -> b.rx
  - b.tx -> cable.b_in
  - cable.a_out -> a.rx
)";
}

// `n` endpoints on one switch, each through its own link; node i on port i.  Senders and the
// receiver are set with --set overrides.
std::string star(std::size_t n, const std::string& switch_params = "") {
    return R"(
simulation: {stall_timeout: 1ms}
templates:
  host:
    components:
      ep:
        type: ethernet.endpoint
        node_id: ${index}
      cable: {type: ethernet.link}
    connections:
      - ep.tx -> cable.a_in
      - cable.a_out -> ep.rx
components:
  node: {template: host, count: )" +
           std::to_string(n) + R"(}
  sw: {type: ethernet.switch, ports: )" +
           std::to_string(n) + (switch_params.empty() ? "" : ", " + switch_params) + R"(}
connections:
  - node[*].cable.b_out -> sw.rx[*]
  - sw.tx[*] -> node[*].cable.b_in
)";
}

// ---------------------------------------------------------------------------------------------
// 1. Link

TEST(ethernet_link, one_frame_arrives_after_serialisation_and_propagation) {
    // Ready at 1 us; last bit at the receiver = ready + wire*8/rate + prop.
    auto o = run(point_to_point("dst: 1, frames: 1, payload: 1000B, start: 1us", "expect: 1"));
    ASSERT_EQ(o.r.status, run_status::FINISHED);
    const std::uint64_t ready = 1000000, ser = ser_10g(1000);  // 1078 B * 800 ps = 862.4 ns
    EXPECT_EQ(ser, 862400u);
    EXPECT_EQ(o.r.end_time.value(), ready + ser + k_prop);
    const json& lat = stat(o, "b", "latency");
    EXPECT_EQ(lat["count"], 1);
    EXPECT_DOUBLE_EQ(lat["max"].get<double>(), static_cast<double>(ser + k_prop) / 1000.0);
    EXPECT_EQ(count(o, "cable", "frames_ab"), 1u);
    EXPECT_EQ(count(o, "cable", "bytes_ab"), 1078u);
    EXPECT_EQ(count(o, "cable", "frames_ba"), 0u);
    EXPECT_EQ(count(o, "b", "bytes_received"), 1078u);
    EXPECT_EQ(count(o, "b", "payload_received"), 1000u);
}

TEST(ethernet_link, back_to_back_frames_pipeline_at_line_rate) {
    // N frames, each handed over when the previous one's serialisation ends: the last bit of
    // the last frame arrives at N*ser + prop, and the link never waits or idles.
    const std::uint64_t n = 10, ser = ser_10g(1460);
    auto o = run(point_to_point("dst: 1, frames: 10", "expect: 10"));
    ASSERT_EQ(o.r.status, run_status::FINISHED);
    EXPECT_EQ(o.r.end_time.value(), n * ser + k_prop);
    EXPECT_DOUBLE_EQ(value(o, "cable", "busy_time_ab"), static_cast<double>(n * ser) / 1000.0);
    EXPECT_EQ(stat(o, "cable", "wait_ab")["max"].get<double>(), 0.0);
    EXPECT_EQ(value(o, "cable", "blocked_time_ab"), 0.0);
    // Every frame sees the same latency: ser + prop.
    EXPECT_DOUBLE_EQ(stat(o, "b", "latency")["max"].get<double>(), (ser + k_prop) / 1000.0);
    EXPECT_DOUBLE_EQ(stat(o, "b", "latency")["min"].get<double>(), (ser + k_prop) / 1000.0);
}

TEST(ethernet_link, pacing_rate_spaces_the_frames) {
    // Offered at 5 Gb/s on a 10 Gb/s link: a frame every 2*ser; the last is ready at
    // (N-1)*2*ser and lands ser + prop later.
    const std::uint64_t n = 5, ser = ser_10g(1460);
    auto o = run(point_to_point("dst: 1, frames: 5, rate: 5Gb/s", "expect: 5"));
    EXPECT_EQ(o.r.end_time.value(), (n - 1) * 2 * ser + ser + k_prop);
    EXPECT_DOUBLE_EQ(stat(o, "b", "latency")["max"].get<double>(), (ser + k_prop) / 1000.0);
}

TEST(ethernet_link, directions_are_independent) {
    // Both ends send N frames at once: full duplex, so neither direction slows the other.
    const std::uint64_t n = 4, ser = ser_10g(1460);
    auto o = run(point_to_point("dst: 1, frames: 4, expect: 4", "dst: 0, frames: 4, expect: 4"));
    EXPECT_EQ(o.r.end_time.value(), n * ser + k_prop);
    EXPECT_EQ(count(o, "cable", "frames_ab"), n);
    EXPECT_EQ(count(o, "cable", "frames_ba"), n);
    EXPECT_DOUBLE_EQ(value(o, "cable", "busy_time_ba"), static_cast<double>(n * ser) / 1000.0);
}

TEST(ethernet_link, rate_and_propagation_set_the_timing) {
    // 100 Gb/s: 80 ps per byte; 100 m of fibre at 5 ns/m = 500 ns.
    auto o = run(point_to_point("dst: 1, frames: 3, payload: 9000B", "expect: 3",
                                "rate: 100Gb/s, propagation: 500ns"));
    const std::uint64_t ser = (9000 + k_overhead) * 80;
    EXPECT_EQ(o.r.end_time.value(), 3 * ser + 500000);
}

TEST(ethernet_link, short_frames_are_padded_to_the_minimum_frame) {
    // A 1 B payload still takes 84 B on the wire: 64 B minimum frame + preamble + gap.
    auto o = run(point_to_point("dst: 1, frames: 1, payload: 1B", "expect: 1"));
    EXPECT_EQ(o.r.end_time.value(), 84u * k_ps_per_byte + k_prop);
    EXPECT_EQ(count(o, "cable", "bytes_ab"), 84u);
}

TEST(ethernet_link, slow_pacing_is_not_a_stall) {
    // 1 Mb/s offered: a frame every 1538 * 8 us = 12.304 ms, far beyond the 1 ms stall_timeout;
    // the endpoint announces each scheduled send, so the watchdog stays quiet.
    const std::uint64_t gap = 1538ull * 8 * 1000000, ser = ser_10g(1460);
    auto o = run("simulation: {stall_timeout: 1ms}\n" +
                 point_to_point("dst: 1, frames: 3, rate: 1Mb/s", "expect: 3"));
    ASSERT_EQ(o.r.status, run_status::FINISHED) << o.r.stall_report;
    EXPECT_EQ(o.r.end_time.value(), 2 * gap + ser + k_prop);
}

// ---------------------------------------------------------------------------------------------
// 2. Through a switch

TEST(ethernet_switch, store_and_forward_one_frame) {
    // A -> link -> switch -> link -> B: T = ser + prop + lat + ser + prop.
    auto o = run(star(2), {"node[0].ep.dst=1", "node[0].ep.frames=1", "node[1].ep.expect=1"});
    ASSERT_EQ(o.r.status, run_status::FINISHED);
    const std::uint64_t ser = ser_10g(1460);
    EXPECT_EQ(o.r.end_time.value(), ser + k_prop + k_lat + ser + k_prop);
    EXPECT_DOUBLE_EQ(stat(o, "node[1].ep", "latency")["max"].get<double>(),
                     (2 * ser + 2 * k_prop + k_lat) / 1000.0);
    EXPECT_EQ(count(o, "sw", "frames_in[0]"), 1u);
    EXPECT_EQ(count(o, "sw", "frames_out[1]"), 1u);
    expect_switch_conserves(o, "sw", 2);
}

TEST(ethernet_switch, store_and_forward_pipeline) {
    // Frame k (from 0) is fully in the switch at (k+1)*ser + prop, leaves lat later on an egress
    // that has just finished frame k-1, and lands at (k+2)*ser + 2*prop + lat.  Last: k = N-1.
    const std::uint64_t n = 20, ser = ser_10g(1460);
    auto o = run(star(2), {"node[0].ep.dst=1", "node[0].ep.frames=20", "node[1].ep.expect=20"});
    EXPECT_EQ(o.r.end_time.value(), (n + 1) * ser + 2 * k_prop + k_lat);
    // No frame waited for the egress link, so the queue never held anything.
    EXPECT_EQ(stat(o, "node[1].cable", "wait_ba")["max"].get<double>(), 0.0);
    EXPECT_EQ(value(o, "sw", "max_queue[1]"), 0.0);
    expect_switch_conserves(o, "sw", 2);
}

TEST(ethernet_switch, cut_through_forwards_after_the_header) {
    // The header (22 B) is in hdr = 22*800 ps after the first bit; the frame leaves lat later
    // and ends ser after that (its tail, arriving at the same rate, is never outrun):
    //   T_ct = prop + hdr + lat + ser + prop,  T_saf - T_ct = ser - hdr.
    auto o = run(star(2, "forwarding: cut_through"),
                 {"node[0].ep.dst=1", "node[0].ep.frames=1", "node[1].ep.expect=1"});
    const std::uint64_t ser = ser_10g(1460), hdr = k_header * k_ps_per_byte;
    const std::uint64_t t_ct = k_prop + hdr + k_lat + ser + k_prop;
    const std::uint64_t t_saf = ser + k_prop + k_lat + ser + k_prop;
    EXPECT_EQ(o.r.end_time.value(), t_ct);
    EXPECT_EQ(t_saf - t_ct, ser - hdr);
    expect_switch_conserves(o, "sw", 2);
}

TEST(ethernet_switch, cut_through_pipeline) {
    // Frame k's first bit reaches the switch at k*ser + prop; it lands at
    // k*ser + prop + hdr + lat + ser + prop.  Last: k = N-1 -> N*ser + 2*prop + hdr + lat.
    const std::uint64_t n = 20, ser = ser_10g(1460), hdr = k_header * k_ps_per_byte;
    auto o = run(star(2, "forwarding: cut_through"),
                 {"node[0].ep.dst=1", "node[0].ep.frames=20", "node[1].ep.expect=20"});
    EXPECT_EQ(o.r.end_time.value(), n * ser + 2 * k_prop + hdr + k_lat);
}

TEST(ethernet_switch, cut_through_cannot_outrun_a_slower_ingress) {
    // Ingress 10 Gb/s, egress 40 Gb/s: the egress could send the frame in ser/4, but its tail
    // arrives at the ingress rate, so the frame ends when the tail is in (+ lat):
    //   T = ser_10g + prop + lat + prop, not prop + hdr + lat + ser_40g + prop.
    auto o = run(star(2, "forwarding: cut_through"),
                 {"node[0].ep.dst=1", "node[0].ep.frames=1", "node[1].ep.expect=1",
                  "node[1].cable.rate=40Gb/s"});
    const std::uint64_t ser = ser_10g(1460);
    EXPECT_EQ(o.r.end_time.value(), ser + k_prop + k_lat + k_prop);
}

TEST(ethernet_switch, two_switches_in_series) {
    // A - sw1 - sw2 - B over three links, store-and-forward twice: frame k lands at
    // (k+3)*ser + 3*prop + 2*lat; the last (k = N-1) at (N+2)*ser + 3*prop + 2*lat.
    auto o = run(R"(
components:
  a: {type: ethernet.endpoint, node_id: 0, dst: 1, frames: 8}
  b: {type: ethernet.endpoint, node_id: 1, expect: 8}
  la: {type: ethernet.link}
  mid: {type: ethernet.link}
  lb: {type: ethernet.link}
  sw1: {type: ethernet.switch, ports: 2}
  sw2: {type: ethernet.switch, ports: 2}
connections:
  - a.tx -> la.a_in
  - la.a_out -> a.rx
  - la.b_out -> sw1.rx[0]
  - sw1.tx[0] -> la.b_in
  - sw1.tx[1] -> mid.a_in
  - mid.a_out -> sw1.rx[1]
  - mid.b_out -> sw2.rx[0]
  - sw2.tx[0] -> mid.b_in
  - sw2.tx[1] -> lb.a_in
  - lb.a_out -> sw2.rx[1]
  - lb.b_out -> b.rx
  - b.tx -> lb.b_in
)");
    ASSERT_EQ(o.r.status, run_status::FINISHED);
    const std::uint64_t n = 8, ser = ser_10g(1460);
    EXPECT_EQ(o.r.end_time.value(), (n + 2) * ser + 3 * k_prop + 2 * k_lat);
    expect_switch_conserves(o, "sw1", 2);
    expect_switch_conserves(o, "sw2", 2);
}

TEST(ethernet_switch, addresses_map_node_ids_to_ports) {
    // Node ids 10 and 20 on ports 0 and 1.
    auto o = run(star(2, "addresses: [10, 20]"),
                 {"node[0].ep.node_id=10", "node[1].ep.node_id=20", "node[0].ep.dst=20",
                  "node[0].ep.frames=2", "node[1].ep.expect=2"});
    ASSERT_EQ(o.r.status, run_status::FINISHED);
    EXPECT_EQ(count(o, "sw", "frames_out[1]"), 2u);
    EXPECT_EQ(count(o, "node[1].ep", "frames_received"), 2u);
}

TEST(ethernet_switch, a_frame_for_an_unknown_node_is_a_simulation_error_naming_it) {
    auto sim = test::make_sim(star(2), {"node[0].ep.dst=7", "node[0].ep.frames=1"});
    sim->elaborate();
    const run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FAILED);
    EXPECT_NE(r.error.find("sw: a frame from node 0 (rx[0]) is addressed to node 7, which no "
                           "port reaches"),
              std::string::npos)
        << r.error;
}

// ---------------------------------------------------------------------------------------------
// 3. Incast: 4 senders -> 1 receiver at equal rates

constexpr std::uint64_t k_incast_frames = 200;  // per sender

std::vector<std::string> incast_sets(bool receiver_expects_all) {
    std::vector<std::string> s;
    for (int i = 0; i < 4; ++i) {
        s.push_back("node[" + std::to_string(i) + "].ep.dst=4");
        s.push_back("node[" + std::to_string(i) + "].ep.frames=" + std::to_string(k_incast_frames));
    }
    if (receiver_expects_all)
        s.push_back("node[4].ep.expect=" + std::to_string(4 * k_incast_frames));
    return s;
}

TEST(ethernet_incast, drop_mode_saturates_the_egress_and_accounts_for_every_byte) {
    // 16 KiB output queue: 10 full frames (10 * 1538 = 15380 B) fit, an 11th does not.
    auto o = run(star(5, "queue: 16KiB, overflow: drop"), incast_sets(false));
    ASSERT_EQ(o.r.status, run_status::FINISHED);
    const std::uint64_t wire = 1460 + k_overhead, ser = ser_10g(1460);

    // Bytes: every byte sent was delivered or dropped, exactly.
    std::uint64_t sent = 0, dropped_seen_by_senders = 0;
    for (int i = 0; i < 4; ++i) {
        const std::string ep = "node[" + std::to_string(i) + "].ep";
        sent += count(o, ep, "bytes_sent");
        dropped_seen_by_senders += count(o, ep, "bytes_dropped");
    }
    const std::uint64_t delivered = count(o, "node[4].ep", "bytes_received");
    const std::uint64_t dropped = count(o, "sw", "bytes_dropped[4]");
    EXPECT_EQ(sent, 4 * k_incast_frames * wire);
    EXPECT_GT(dropped, 0u);
    EXPECT_GT(count(o, "sw", "frames_dropped[4]"), 0u);
    EXPECT_EQ(sent, delivered + dropped);
    EXPECT_EQ(dropped_seen_by_senders, dropped);
    expect_switch_conserves(o, "sw", 5);
    // No drop without a full queue: the largest occupancy is within one frame of the capacity.
    EXPECT_LE(value(o, "sw", "max_queue[4]"), 16384.0);
    EXPECT_GT(value(o, "sw", "max_queue[4]"), 16384.0 - static_cast<double>(wire));

    // The receiver's egress link (node[4].cable, B->A) is busy without a gap from the first
    // frame's start (ser + prop + lat: the first frame stored and forwarded) until its last
    // frame ends (the run's end - prop).  Tolerance 1e-9: busy time is a sum of ns in doubles.
    const double busy_ns = value(o, "node[4].cable", "busy_time_ba");
    const double first_start_ns = static_cast<double>(ser + k_prop + k_lat) / 1000.0;
    const double last_end_ns = static_cast<double>(o.r.end_time.value() - k_prop) / 1000.0;
    EXPECT_NEAR(busy_ns / (last_end_ns - first_start_ns), 1.0, 1e-9);
    // It carried exactly the delivered frames.
    EXPECT_EQ(count(o, "node[4].cable", "bytes_ba"), delivered);
    // Over the whole run the figure is a little lower (the first frame's trip and the last
    // frame's flight are idle time): (T - 2*prop - ser - lat) / T.
    const double t_ns = static_cast<double>(o.r.end_time.value()) / 1000.0;
    EXPECT_NEAR(value(o, "node[4].cable", "utilisation_ba"),
                (t_ns - (2 * k_prop + ser + k_lat) / 1000.0) / t_ns, 1e-9);
    EXPECT_EQ(value(o, "sw", "paused_time"), 0.0);
}

TEST(ethernet_incast, pause_mode_loses_nothing_and_ends_at_the_egress_line_rate) {
    auto o = run(star(5, "queue: 16KiB, overflow: pause"), incast_sets(true));
    ASSERT_EQ(o.r.status, run_status::FINISHED);
    const std::uint64_t wire = 1460 + k_overhead, ser = ser_10g(1460);
    const std::uint64_t frames = 4 * k_incast_frames;

    EXPECT_EQ(count(o, "node[4].ep", "frames_received"), frames);
    EXPECT_EQ(count(o, "node[4].ep", "bytes_received"), frames * wire);
    EXPECT_EQ(count(o, "sw", "dropped_bytes"), 0u);
    expect_switch_conserves(o, "sw", 5);
    EXPECT_GT(value(o, "sw", "paused_time"), 0.0);
    std::uint64_t pauses = 0;
    for (int i = 0; i < 4; ++i) {
        const std::string idx = "[" + std::to_string(i) + "]";
        pauses += count(o, "sw", "pause_events" + idx);
        EXPECT_GT(value(o, "sw", "pause_time" + idx), 0.0) << idx;
        // The pause reached the senders: their links were held after frames.
        EXPECT_GT(value(o, "node[" + std::to_string(i) + "].cable", "blocked_time_ab"), 0.0);
    }
    EXPECT_GT(pauses, 0u);
    EXPECT_LE(value(o, "sw", "max_queue[4]"), 16384.0);

    // Total time: the egress carries all 4N frames back to back at its line rate, starting
    // when the first frame is stored and forwarded:
    //   T = (ser + prop + lat) + (total bytes / egress rate) + prop
    //     = (4N + 1) * ser + lat + 2 * prop.
    // Exact, because the queue holds more than one frame (16 KiB > 2 * 1538 B) and PAUSE
    // refills it the moment a frame leaves, so the egress never idles; the small terms
    // (ser + lat + 2 prop = 3.25 us) are the pipeline fill and the last frame's flight.
    EXPECT_EQ(o.r.end_time.value(), frames * ser + ser + k_lat + 2 * k_prop);
}

TEST(ethernet_incast, pause_holds_each_sender_for_its_share_of_the_egress) {
    // The pause reaches the senders through their links: each link is held idle (blocked)
    // exactly as long as the switch paused frames from it, and with 4 senders sharing one
    // egress each link is busy about 1/4 of the time it is in use.
    auto o = run(star(5, "queue: 16KiB, overflow: pause"), incast_sets(true));
    for (int i = 0; i < 4; ++i) {
        const std::string cable = "node[" + std::to_string(i) + "].cable";
        const double busy = value(o, cable, "busy_time_ab");
        const double blocked = value(o, cable, "blocked_time_ab");
        // Both are sums of per-frame ns values in doubles: equal to 1e-6 ns.
        EXPECT_NEAR(blocked, value(o, "sw", "pause_time[" + std::to_string(i) + "]"), 1e-6);
        // Tolerance 0.01: the frames that filled the queue before the first pause were not
        // held, and the senders finish in turn over the last round (measured 0.253-0.254).
        EXPECT_NEAR(busy / (busy + blocked), 0.25, 0.01) << cable;
        EXPECT_EQ(count(o, cable, "frames_ab"), k_incast_frames);
    }
}

// Senders with different frame sizes: frames reach the shared port out of call order (a
// small frame handed over after a large one is ready first); the accounting stays exact.
std::vector<std::string> mixed_sizes(bool receiver_expects_all) {
    std::vector<std::string> s = incast_sets(receiver_expects_all);
    for (const char* p : {"node[0].ep.payload=100B", "node[1].ep.payload=9000B",
                          "node[2].ep.payload=500B", "node[3].ep.payload=1460B"}) {
        s.push_back(p);
    }
    return s;
}

std::uint64_t sent_by_senders(const outcome& o) {
    std::uint64_t sent = 0;
    for (int i = 0; i < 4; ++i)
        sent += count(o, "node[" + std::to_string(i) + "].ep", "bytes_sent");
    return sent;
}

TEST(ethernet_incast, mixed_frame_sizes_with_drop_account_for_every_byte) {
    auto o = run(star(5, "queue: 32KiB, overflow: drop"), mixed_sizes(false));
    ASSERT_EQ(o.r.status, run_status::FINISHED);
    EXPECT_GT(count(o, "sw", "dropped_bytes"), 0u);
    EXPECT_EQ(sent_by_senders(o),
              count(o, "node[4].ep", "bytes_received") + count(o, "sw", "dropped_bytes"));
    EXPECT_LE(value(o, "sw", "max_queue[4]"), 32768.0);
    expect_switch_conserves(o, "sw", 5);
}

TEST(ethernet_incast, mixed_frame_sizes_with_pause_deliver_everything) {
    auto o = run(star(5, "queue: 32KiB, overflow: pause"), mixed_sizes(true));
    ASSERT_EQ(o.r.status, run_status::FINISHED);
    EXPECT_EQ(count(o, "sw", "dropped_bytes"), 0u);
    EXPECT_EQ(count(o, "node[4].ep", "bytes_received"), sent_by_senders(o));
    EXPECT_LE(value(o, "sw", "max_queue[4]"), 32768.0);
    EXPECT_GT(value(o, "sw", "paused_time"), 0.0);
    // The egress is the bottleneck: T >= the first frame's arrival (the 100 B sender's 178 B
    // frame) + lat + all bytes at 10 Gb/s + prop.  Tolerance, one 9078 B frame time (7.26 us):
    // an egress serves frames in the order they are handed to it (loosely timed), and the
    // 9000 B sender's first frame, handed over at t = 0, is ready 7.26 - 0.14 us after the
    // small ones; small frames handed over later queue behind it, so the egress idles once
    // for up to that long (measured 6.98 us).  See ip/ethernet/README.md.
    const double t = static_cast<double>(o.r.end_time.value());
    const double lower = static_cast<double>(178 * k_ps_per_byte + k_prop + k_lat +
                                             sent_by_senders(o) * k_ps_per_byte + k_prop);
    EXPECT_GE(t, lower);
    EXPECT_LE(t, lower + 9078.0 * k_ps_per_byte);
    expect_switch_conserves(o, "sw", 5);
}

TEST(ethernet_incast, frames_lost_to_drops_leave_the_receiver_waiting_and_the_watchdog_says_so) {
    // Drops are counted, never silent: a receiver that expects every frame cannot finish, and
    // the stall report names it and what it misses.
    auto o = run(star(5, "queue: 16KiB, overflow: drop"), incast_sets(true));
    ASSERT_EQ(o.r.status, run_status::STALLED);
    const std::uint64_t lost = count(o, "sw", "frames_dropped[4]");
    ASSERT_GT(lost, 0u);
    EXPECT_NE(o.r.stall_report.find("node[4].ep (ethernet.endpoint): " + std::to_string(lost) +
                                    " of 800 expected frames not received"),
              std::string::npos)
        << o.r.stall_report;
}

// ---------------------------------------------------------------------------------------------
// 4. Bad params

// One elaboration per TEST: SystemC elaborates once per process.

TEST(ethernet_params, link_rate_zero_is_out_of_range) {
    EXPECT_EQ(test::elaboration_error(point_to_point("dst: 1, frames: 1", ""), {"cable.rate=0"}),
              "--set cable.rate: error: cable.rate: '0' is out of range [1Gb/s, 400Gb/s]");
}

TEST(ethernet_params, link_rate_above_400g_is_out_of_range) {
    EXPECT_EQ(test::elaboration_error(point_to_point("dst: 1, frames: 1", "", "rate: 500Gb/s")),
              "t.yaml:5:38: error: cable.rate: '500Gb/s' is out of range [1Gb/s, 400Gb/s]");
}

TEST(ethernet_params, unknown_forwarding_mode) {
    EXPECT_EQ(test::elaboration_error(star(2, "forwarding: cut_thru")),
              "t.yaml:15:53: error: sw.forwarding: 'cut_thru' is not one of store_and_forward, "
              "cut_through");
}

TEST(ethernet_params, unknown_overflow_policy_has_a_did_you_mean) {
    EXPECT_EQ(test::elaboration_error(star(2, "overflow: pasue")),
              "t.yaml:15:51: error: sw.overflow: 'pasue' is not one of drop, pause (did you mean "
              "'pause'?)");
}

TEST(ethernet_params, addresses_need_one_entry_per_port) {
    EXPECT_EQ(test::elaboration_error(star(2, "addresses: [3]")),
              "t.yaml:15:52: error: sw.addresses: has 1 entries but the switch has 2 ports; "
              "give one node id per port");
}

TEST(ethernet_params, addresses_must_be_distinct) {
    EXPECT_EQ(test::elaboration_error(star(2, "addresses: [3, 3]")),
              "t.yaml:15:56: error: sw.addresses[1]: node 3 is already on port 0");
}

TEST(ethernet_params, addresses_must_be_whole_numbers) {
    EXPECT_EQ(test::elaboration_error(star(2, "addresses: [3, 1.5]")),
              "t.yaml:15:56: error: sw.addresses[1]: a node id is a whole number in "
              "[0, 2^32-1]");
}

TEST(ethernet_params, sender_needs_a_destination) {
    EXPECT_EQ(test::elaboration_error(point_to_point("frames: 3", "")),
              "t.yaml:3:52: error: a.dst: frames: 3 needs a destination node id (dst >= 0)");
}

TEST(ethernet_params, switch_ports_are_bounded) {
    EXPECT_EQ(test::elaboration_error(star(2), {"sw.ports=5000"}),
              "--set sw.ports: error: sw.ports: '5000' is out of range [2, 4096]");
}

TEST(ethernet_params, switch_ports_are_required) {
    EXPECT_EQ(test::elaboration_error(R"(
components:
  sw: {type: ethernet.switch}
)"),
              "t.yaml:3:14: error: sw.ports: missing required param (Ports in use; every rx[i] "
              "and tx[i] must be connected)");
}

// ---------------------------------------------------------------------------------------------
// 5. Outputs

TEST(ethernet_outputs, stats_json_has_per_port_switch_stats_with_units) {
    auto o = run(star(3), {"node[0].ep.dst=2", "node[0].ep.frames=5", "node[1].ep.dst=2",
                           "node[1].ep.frames=5", "node[2].ep.expect=10"});
    const json& sw = o.stats["blocks"]["sw"];
    EXPECT_EQ(sw["type"], "ethernet.switch");
    const type_info* t = registry::global().find("ethernet.switch");
    ASSERT_NE(t, nullptr);
    for (const auto& s : t->stats) {
        const bool per_port =
            s.name.find("_in") != std::string::npos || s.name.find("_out") != std::string::npos ||
            s.name.find("pause_") == 0 || s.name == "frames_dropped" || s.name == "bytes_dropped" ||
            s.name == "max_queue" || s.name == "queue_delay";
        if (per_port) {
            for (int i = 0; i < 3; ++i) {
                const std::string n = s.name + "[" + std::to_string(i) + "]";
                ASSERT_TRUE(sw["stats"].contains(n)) << n;
                EXPECT_EQ(sw["stats"][n]["unit"], s.unit) << n;
            }
        } else {
            ASSERT_TRUE(sw["stats"].contains(s.name)) << s.name;
        }
    }
    EXPECT_EQ(count(o, "sw", "frames_in[0]"), 5u);
    EXPECT_EQ(count(o, "sw", "frames_in[1]"), 5u);
    EXPECT_EQ(count(o, "sw", "frames_out[2]"), 10u);
    EXPECT_EQ(count(o, "sw", "bytes_out[2]"), 10u * 1538u);
    // Two senders share the egress: half of the frames waited.
    EXPECT_GT(value(o, "sw", "max_queue[2]"), 0.0);
    EXPECT_GT(stat(o, "sw", "queue_delay[2]")["max"].get<double>(), 0.0);
    expect_switch_conserves(o, "sw", 3);
    for (const char* s : {"frames_ab", "bytes_ba", "utilisation_ab", "wait_ba", "busy_time_ab",
                          "blocked_time_ba"}) {
        EXPECT_TRUE(o.stats["blocks"]["node[0].cable"]["stats"].contains(s)) << s;
    }
}

TEST(ethernet_outputs, vcd_has_queue_and_busy_signals) {
    auto dir = test::temp_dir("eth_vcd");
    auto sim = test::make_sim(star(3, "queue: 16KiB"),
                              {"node[0].ep.dst=2", "node[0].ep.frames=5", "node[1].ep.dst=2",
                               "node[1].ep.frames=5", "node[2].ep.expect=10"});
    sim->elaborate();
    sim->trace_to((dir / "waves.vcd.part").string());
    run_result r = sim->run();
    ASSERT_EQ(r.status, run_status::FINISHED);
    sim->write_outputs(dir.string(), r);
    const std::string vcd = test::read_file(dir / "waves.vcd");
    for (const char* tag : {"$scope module sw $end", " queue_0 ", " queue_2 ", " busy_ab ",
                            " busy_ba ", " in_flight "}) {
        EXPECT_NE(vcd.find(tag), std::string::npos) << tag;
    }
    // The second frame to reach port 2's queue (two arrive together at ser + prop + lat)
    // waits there for one serialisation: the queue rises to 1538 B at that time.
    const std::uint64_t ser = ser_10g(1460);
    const std::string at = "\n#" + std::to_string(ser + k_prop + k_lat) + "\n";
    EXPECT_NE(vcd.find(at), std::string::npos) << at;
    // Levels are VCD reals (viewers show them in decimal).
    EXPECT_NE(vcd.find("\nr1538 "), std::string::npos) << "1538 B in a queue";
}

// ---------------------------------------------------------------------------------------------
// 6. Framing (ip/ethernet/framing.h), shared by the NICs, the FPGA card and the endpoint

// A block's framing as its declare() sets it up: `values` over the spec's defaults.
struct framed : ip::framing {};
framed framing_of(const ip::framing::spec& s,
                  const std::vector<std::pair<std::string, std::string>>& values = {}) {
    param_list<framed> d;
    ip::framing::declare(d, s);
    std::vector<param_value> v;
    for (const auto& [name, text] : values) {
        v.push_back({name, config_node::scalar_node(text, source_loc{"t.yaml", 1, 1})});
    }
    framed f;
    params("x", v).apply(f, d.params());
    return f;
}

ip::framing::spec nic_spec() {
    ip::framing::spec s;
    s.mtu = "1500B";
    s.mtu_min = "576B";
    s.mtu_max = "9216B";
    return s;
}

TEST(ethernet_framing, frames_payload_and_wire_bytes) {
    const framed f = framing_of(nic_spec());
    EXPECT_EQ(f.frame_payload(), 1460u);  // the TCP MSS of a 1500 B MTU
    EXPECT_EQ(f.frames(0), 1u);           // an empty message is one frame
    EXPECT_EQ(f.frames(1460), 1u);
    EXPECT_EQ(f.frames(1461), 2u);
    EXPECT_EQ(f.frame_wire(1460), 1538u);  // + 40 B IPv4/TCP + 38 B Ethernet
    EXPECT_EQ(f.frame_wire(0), 84u);       // padded to the minimum frame
    EXPECT_EQ(f.frame_wire(6), 84u);
    EXPECT_EQ(f.frame_wire(7), 85u);
    EXPECT_EQ(f.transfer_wire(1460), f.frame_wire(1460));
    EXPECT_EQ(f.transfer_wire(2920), 2 * f.frame_wire(1460));
    EXPECT_EQ(f.min_wire(), 84u);
}

TEST(ethernet_framing, frames_without_ip_headers) {
    // fpga.allreduce's inter-card frames: 9000 B of payload, no IP/TCP headers.
    ip::framing::spec s = nic_spec();
    s.mtu_max = "65536B";
    const framed f = framing_of(s, {{"mtu", "9000B"}, {"l3l4_header", "0B"}});
    EXPECT_EQ(f.frame_payload(), 9000u);
    EXPECT_EQ(f.transfer_wire(9000), 9038u);
    // Two frames in one transfer, the last of 1 B: counted unpadded (framing.h).
    EXPECT_EQ(f.transfer_wire(9001), 9001u + 2 * 38);
}

TEST(ethernet_framing, the_mtu_must_exceed_the_l3l4_headers) {
    ip::framing::spec s = nic_spec();
    s.mtu_min = "1B";
    const framed f = framing_of(s, {{"mtu", "40B"}});
    params p("node[0].nic", {});
    p.set_where(source_loc{"t.yaml", 3, 9});
    try {
        f.check(p, p.path());
        FAIL() << "no error";
    } catch (const input_error& e) {
        EXPECT_STREQ(e.what(),
                     "t.yaml:3:9: error: node[0].nic.mtu: the MTU must exceed l3l4_header");
    }
}

TEST(ethernet_framing, the_endpoint_frame_is_its_payload_with_headers_and_l2_overhead) {
    // 1000 B + 0 B of IP/TCP + 30 B outside the MTU: 1030 B on the wire.
    auto o =
        run(point_to_point("dst: 1, frames: 1, payload: 1000B, l3l4_header: 0B, "
                           "l2_overhead: 30B",
                           "expect: 1"));
    ASSERT_EQ(o.r.status, run_status::FINISHED);
    EXPECT_EQ(count(o, "cable", "bytes_ab"), 1030u);
    EXPECT_EQ(o.r.end_time.value(), 1030 * k_ps_per_byte + k_prop);
}

TEST(ethernet_framing, the_endpoint_pads_to_its_min_wire) {
    auto o = run(point_to_point("dst: 1, frames: 1, payload: 1B, min_wire: 100B", "expect: 1"));
    ASSERT_EQ(o.r.status, run_status::FINISHED);
    EXPECT_EQ(count(o, "cable", "bytes_ab"), 100u);
}

// ---------------------------------------------------------------------------------------------
// 7. Line rates: a NIC and the link it is bound to serialise at one rate (platform/binder.cpp)

std::string nic_on_link(const std::string& nic, const std::string& link) {
    return R"(
components:
  nic: {type: nic.basic)" +
           nic + R"(}
  cable: {type: ethernet.link)" +
           link + R"(}
connections:
  - nic.eth_tx -> cable.a_in
  - cable.a_out -> nic.eth_rx
)";
}

TEST(ethernet_line_rate, a_nic_faster_than_its_link_is_an_input_error) {
    EXPECT_EQ(test::elaboration_error(nic_on_link(", rate: 40Gb/s", ", rate: 10Gb/s")),
              "t.yaml:3:32: error: nic.rate: 40Gb/s does not match cable.rate (10Gb/s, at "
              "t.yaml:4:38) across 'nic.eth_tx -> cable.a_in': both ends of a link serialise "
              "frames at one line rate");
}

TEST(ethernet_line_rate, the_value_the_config_gives_is_blamed) {
    // nic.basic keeps its default 10 Gb/s; the link's 25 Gb/s is what the config says.
    EXPECT_EQ(test::elaboration_error(nic_on_link("", ", rate: 25Gb/s")),
              "t.yaml:4:38: error: cable.rate: 25Gb/s does not match nic.rate (10Gb/s, its "
              "default) across 'nic.eth_tx -> cable.a_in': both ends of a link serialise frames "
              "at one line rate");
}

TEST(ethernet_line_rate, equal_rates_in_other_units_bind) {
    // 40 Gb/s = 5 GB/s: the rates are compared as values, not as text.  The NIC's other
    // sockets are left unbound, which is the next error.
    const std::string e = test::elaboration_error(nic_on_link(", rate: 40Gb/s", ", rate: 5GB/s"));
    EXPECT_NE(e.find("not bound"), std::string::npos) << e;
}

TEST(ethernet_line_rate, an_endpoint_has_no_line_rate_of_its_own) {
    // The endpoint's `rate` is an offered rate (0 = as fast as the link takes frames).
    auto o = run(point_to_point("dst: 1, frames: 1, payload: 1000B, rate: 1Gb/s", "expect: 1",
                                "rate: 40Gb/s"));
    EXPECT_EQ(o.r.status, run_status::FINISHED);
}

// ---------------------------------------------------------------------------------------------
// 8. The ToS a frame carries, as configs write it (core/tos.h: send ops and the training section)

std::string tos_error(const std::string& text) {
    try {
        parse_tos(config_node::scalar_node(text, source_loc{"t.yaml", 2, 7}), "x.tos");
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

TEST(ethernet_tos, decimal_or_hex) {
    const source_loc at{"t.yaml", 2, 7};
    EXPECT_EQ(parse_tos(config_node::scalar_node("40", at), "x.tos"), k_tos_compressible);
    EXPECT_EQ(parse_tos(config_node::scalar_node("0x28", at), "x.tos"), k_tos_compressible);
    EXPECT_EQ(parse_tos(config_node::scalar_node("0XfF", at), "x.tos"), 255);
    EXPECT_EQ(parse_tos(config_node::scalar_node("0", at), "x.tos"), 0);
}

TEST(ethernet_tos, a_bad_tos_names_its_key) {
    EXPECT_EQ(tos_error("0x100"), "t.yaml:2:7: error: x.tos: '0x100' is out of range [0, 255]");
    EXPECT_EQ(tos_error("256"), "t.yaml:2:7: error: x.tos: '256' is out of range [0, 255]");
    EXPECT_EQ(tos_error("0x2g"), "t.yaml:2:7: error: x.tos: '0x2g' is not an integer");
    EXPECT_EQ(tos_error("4.5"), "t.yaml:2:7: error: x.tos: '4.5' is not an integer");
}

}  // namespace
}  // namespace trainvp
