// noc.interposer through `trainvp run`: the uniform-random experiment at near-zero load
// (0.005 flits/node/cycle) has the zero-load latency of the hand formula, on the ARIES link
// and router parameters (aries.md §V: 2 pipeline stages, 10 ns links at 1 GHz = 10 cycles,
// 8-flit packets on 68 B flits, one flit per cycle per link):
//
//     T0 = H (s + L) + s + (F - 1)      cycles
//
// with H the mean hop count of uniform random traffic on a k x k mesh under dimension-order
// routing, destinations uniform among the N - 1 other nodes: E|dx| over all ordered pairs is
// (k^2 - 1) / (3k) per dimension, pairs with themselves (H = 0) are N of N^2, so
// H = 2 (k^2 - 1) / (3k) * N / (N - 1) = 2k / 3.
// Tolerance 5 % (the issue's): at 0.005 the queueing delay is a fraction of a cycle, and the
// sample mean of H over ~500-800 packets is within ~2 % (sd ~0.6 %) of 2k/3.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_util.h"

namespace trainvp {
namespace {

test::command_result trainvp(const std::string& args) {
    return test::run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN + " " +
                             args);
}

nlohmann::json run_noc(const std::string& name, const std::string& sets) {
    auto dir = test::temp_dir(name);
    auto r = trainvp("run configs/examples/noc_mesh_uniform.yaml --quiet --out " + dir.string() +
                     " " + sets);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(test::read_file(dir / "stats.json"))["blocks"]["noc"]["stats"];
}

void check_zero_load(int k, const std::string& measure) {
    const auto s = run_noc(
        "noc_zero_load_" + std::to_string(k),
        "--set noc.size=" + std::to_string(k) +
            " --set noc.traffic.injection_rate=0.005 --set noc.traffic.measure_cycles=" + measure);
    const double stages = 2, link = 10, flits = 8;
    const double hops = 2.0 * k / 3.0;
    const double t0 = hops * (stages + link) + stages + (flits - 1);
    const double latency = s["latency"]["mean"];
    EXPECT_GT(s["latency"]["count"].get<double>(), 300);
    EXPECT_NEAR(latency, t0, 0.05 * t0) << k << "x" << k;
    // Against the hops the measured packets actually took: only queueing remains.
    const double t0_sample = s["hops"]["mean"].get<double>() * (stages + link) + stages + flits - 1;
    EXPECT_NEAR(latency, t0_sample, 0.02 * t0_sample);
    EXPECT_NEAR(s["hops"]["mean"].get<double>(), hops, 0.03 * hops);
    EXPECT_EQ(s["unfinished_packets"]["value"], 0);
    EXPECT_NEAR(s["accepted_throughput"]["value"].get<double>(), 0.005, 0.001);
}

TEST(noc_uniform, zero_load_latency_8x8_is_the_hand_formula) { check_zero_load(8, "20000"); }

TEST(noc_uniform, zero_load_latency_4x4_is_the_hand_formula) { check_zero_load(4, "60000"); }

TEST(noc_uniform, beyond_saturation_the_run_stops_and_says_so) {
    // Uniform traffic on a k x k mesh cannot exceed the bisection bound of 4/k = 0.5
    // flits/node/cycle at k = 8 (Dally & Towles 2004, ch. 3).
    const auto s = run_noc("noc_saturated",
                           "--set noc.traffic.injection_rate=0.8 --set "
                           "noc.traffic.measure_cycles=2000 --set noc.traffic.drain_cycles=3000");
    EXPECT_EQ(s["saturated"]["value"], 1.0);
    EXPECT_GT(s["unfinished_packets"]["value"].get<double>(), 0);
    EXPECT_LT(s["accepted_throughput"]["value"].get<double>(), 0.5);
}

TEST(noc_uniform, vcd_has_buffer_occupancy_and_mux_signals_per_router) {
    auto dir = test::temp_dir("noc_vcd");
    auto r = trainvp(
        "run configs/examples/noc_mesh_uniform.yaml --quiet --vcd --out " + dir.string() +
        " --set noc.size=4 --set noc.traffic.measure_cycles=500 --set noc.traffic.warmup_cycles=0");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string vcd = test::read_file(dir / "waves.vcd");
    EXPECT_NE(vcd.find("buffer_0"), std::string::npos);
    EXPECT_NE(vcd.find("buffer_79"), std::string::npos);  // router 15, port 4
    EXPECT_NE(vcd.find("mux_63"), std::string::npos);     // router 15, port -y
}

}  // namespace
}  // namespace trainvp

namespace trainvp {
namespace {

TEST(noc_collective, ring_through_trainvp_run_has_table_1_steps_and_links) {
    auto dir = test::temp_dir("noc_ring");
    auto r = trainvp("run configs/examples/noc_ring_allreduce.yaml --quiet --out " + dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto s =
        nlohmann::json::parse(test::read_file(dir / "stats.json"))["blocks"]["noc"]["stats"];
    const int n = 16;
    EXPECT_EQ(s["collective_rounds"]["value"], 2 * (n - 1));  // reduce-scatter N - 1
    EXPECT_EQ(s["channels_used"]["value"], n);                // Table I: N links
    // Each round moves a block of 256 KiB / 16 = 16 KiB = ceil(16384 / 68) = 241 flits over
    // one link in 31 packets of 8 flits (the last 1 flit): a round lasts the zero-load time of
    // its first packet over one hop, (s + L) + s = 14 cycles, plus 240 cycles for the other
    // flits at one per cycle, plus 1 cycle to start the next round (tests/unit/noc
    // test_collective.cpp derives it).  Total 2 (N - 1) rounds - 1 cycle, at 1 ns a cycle.
    const double round = 14 + 240 + 1;
    EXPECT_DOUBLE_EQ(s["collective_time"]["value"].get<double>(), 2 * (n - 1) * round - 1);
}

}  // namespace
}  // namespace trainvp
