// The simulation driver: param values checked when blocks are built, the stall watchdog,
// max_time, and warm-up.  Each TEST elaborates SystemC and so runs in its own process.
#include <gtest/gtest.h>

#include "tests/support/sim_fixture.h"

namespace trainvp {
namespace {

using test::elaboration_error;
using test::make_sim;

const std::string k_pair = R"(
components:
  gen: {type: traffic.generator, message_size: 4KiB, messages: 10}
  mem: {type: memory}
connections: [gen.out -> mem.target]
)";

TEST(simulation, param_value_errors_point_at_the_value) {
    EXPECT_EQ(elaboration_error(R"(
components:
  gen: {type: traffic.generator, message_size: 4KiB}
  mem: {type: memory, bandwidth: 10ns}
connections: [gen.out -> mem.target]
)"),
              "t.yaml:4:34: error: mem.bandwidth: '10ns' is a time, but a bandwidth is expected, "
              "e.g. 10Gb/s (units b/s, Mb/s, Gb/s, Gbps, B/s, MB/s, GB/s)");
}

TEST(simulation, param_value_from_set_points_at_set) {
    EXPECT_EQ(elaboration_error(k_pair, {"mem.latency=10 parsecs"}),
              "--set mem.latency: error: mem.latency: unknown unit 'parsecs' in '10 parsecs'; a "
              "time is written e.g. 10ns (units ps, ns, us, ms, s)");
}

TEST(simulation, out_of_range_param) {
    EXPECT_EQ(elaboration_error(k_pair, {"mem.bandwidth=100TB/s"}),
              "--set mem.bandwidth: error: mem.bandwidth: '100TB/s' is out of range [1MB/s, "
              "10TB/s]");
}

TEST(simulation, missing_required_param) {
    EXPECT_EQ(elaboration_error(R"(
components:
  gen: {type: traffic.generator}
  mem: {type: memory}
connections: [gen.out -> mem.target]
)"),
              "t.yaml:3:15: error: gen.message_size: missing required param (Bytes per message)");
}

TEST(simulation, wrong_choice) {
    EXPECT_EQ(elaboration_error(k_pair, {"gen.command=wirte"}),
              "--set gen.command: error: gen.command: 'wirte' is not one of write, read (did you "
              "mean 'write'?)");
}

TEST(simulation, stall_is_reported_with_the_blocks_that_hold_work) {
    auto sim = make_sim(R"(
simulation: {stall_timeout: 50us}
components:
  worker: {type: test.stuck_driver, items: 3, busy_for: 20us}
)");
    sim->elaborate();
    run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::STALLED);
    // Last progress at 20 us: the watchdog reports exactly one stall_timeout later.
    EXPECT_EQ(r.end_time, sc_core::sc_time(70, sc_core::SC_US));
    EXPECT_EQ(r.stall_report,
              "stall: no progress since 20 us (for 50 us, stall_timeout) while blocks hold work:\n"
              "  worker (test.stuck_driver): 3 items waiting for an event nobody sends");
}

// host.cpu's units and nic.basic's TX engine are methods: a target they call that waits
// (not loosely timed) fails the run with a message naming the block and the rule.
TEST(simulation, a_target_that_waits_fails_the_run_clearly) {
    auto sim = make_sim(R"(
components:
  host: {type: host.cpu}
  mem: {type: test.waiting_memory}
connections: [host.mem -> mem.target]
workload:
  ops:
    host:
      - {op: compute, flops: 1000, bytes: 4KiB}
)");
    sim->elaborate();
    run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FAILED);
    EXPECT_EQ(r.error,
              "host: a block it called waits inside b_transport, but its engine is an "
              "event-driven method: targets must be loosely timed (annotate the delay instead of "
              "waiting; docs/adding-ip.md)");
}

TEST(simulation, max_time_stops_an_unfinished_run) {
    auto sim =
        make_sim(k_pair, {"simulation.max_time=1us", "gen.messages=100000", "gen.outstanding=1"});
    sim->elaborate();
    run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::MAX_TIME);
    EXPECT_EQ(r.end_time, sc_core::sc_time(1, sc_core::SC_US));
}

TEST(simulation, finishes_when_every_driver_finished) {
    auto sim = make_sim(k_pair);
    sim->elaborate();
    run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FINISHED);
    // 10 x 4 KiB at 25.6 GB/s (default) + 80 ns latency.
    EXPECT_EQ(r.end_time.value(), 10u * 160000u + 80000u);
}

TEST(simulation, warmup_resets_statistics) {
    // Messages every 1 us (4 KiB at 32.768 Gb/s); warm-up at 5.5 us drops messages 0..5.
    auto sim = make_sim(k_pair, {"simulation.warmup=5.5us", "gen.rate=32.768Gb/s"});
    sim->elaborate();
    sim->run();
    const std::string json = sim->stats_json(run_result{});
    EXPECT_NE(json.find("\"messages\": {\n          \"value\": 4,"), std::string::npos) << json;
}

}  // namespace
}  // namespace trainvp

namespace trainvp::test {
namespace {

// Ten frames from a to b through a stage; lose_every 3 loses frames 3, 6 and 9 without a trace.
const char* k_leaky = R"(
simulation: {stall_timeout: 1ms}
components:
  a: {type: ethernet.endpoint, node_id: 0, dst: 1, frames: 10}
  b: {type: ethernet.endpoint, node_id: 1}
  link: {type: ethernet.link}
  stage: {type: test.leaky_stage}
connections:
  - a.tx -> link.a_in
  - link.b_out -> stage.rx
  - stage.tx -> b.rx
  - b.tx -> link.b_in
  - link.a_out -> a.rx
)";

TEST(audit, a_finished_run_that_loses_nothing_passes) {
    auto sim = make_sim(k_leaky);
    sim->elaborate();
    const run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FINISHED) << r.error;
    EXPECT_TRUE(r.audited);
    EXPECT_GE(r.audit_checks, 6u);  // the link's two directions and the stage, frames and bytes
    EXPECT_TRUE(r.audit_violations.empty());
}

TEST(audit, a_lost_frame_fails_the_run_naming_the_block_and_the_counts) {
    auto sim = make_sim(k_leaky, {"stage.lose_every=3"});
    sim->elaborate();
    const run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FAILED);
    ASSERT_EQ(r.audit_violations.size(), 2u);
    EXPECT_EQ(r.audit_violations[0],
              "stage: rx to tx: frames in = out + dropped (in 10, out 7, dropped 0)");
    EXPECT_EQ(r.error.rfind("the end-of-run audit found 2 broken invariants: stage: rx to tx: "
                            "frames in = out + dropped (in 10, out 7, dropped 0); stage: rx to tx: "
                            "bytes in",
                            0),
              0u)
        << r.error;
    const std::string json = sim->stats_json(r);
    EXPECT_NE(json.find("\"audit_violations\": 2"), std::string::npos) << json;
}

TEST(audit, an_unfinished_run_is_not_audited) {
    auto sim = make_sim(k_leaky, {"stage.lose_every=3", "simulation.max_time=10ns"});
    sim->elaborate();
    const run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::MAX_TIME);
    EXPECT_FALSE(r.audited);
    EXPECT_NE(sim->stats_json(r).find("\"audit\": \"not run (the run did not finish)\""),
              std::string::npos);
}

}  // namespace
}  // namespace trainvp::test
