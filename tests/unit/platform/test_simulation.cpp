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
