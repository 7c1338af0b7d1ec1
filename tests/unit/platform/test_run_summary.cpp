// The run summary (traces/run_summary.h) on hand-made values: human units, folding of identical
// per-node lines, the mean/min/max line of many differing blocks, --quiet's headline, --json.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "traces/run_summary.h"

namespace trainvp {
namespace {

TEST(run_summary, values_in_human_units_with_4_significant_digits) {
    EXPECT_EQ(run_summary::format_value(6.30872e8, "ns", "completion_time"), "630.9 ms");
    EXPECT_EQ(run_summary::format_value(160080, "ns", "completion_time"), "160.1 us");
    EXPECT_EQ(run_summary::format_value(0.0793155, "1", "utilisation"), "7.9 %");
    EXPECT_EQ(run_summary::format_value(9.4213e9, "B/s", "throughput"), "9.421 GB/s");
    EXPECT_EQ(run_summary::format_value(2.5e6, "B", "dropped_bytes"), "2.5 MB");
    EXPECT_EQ(run_summary::format_value(0, "B", "dropped_bytes"), "0 B");
    EXPECT_EQ(run_summary::format_value(0, "ns", "paused_time"), "0 s");
    EXPECT_EQ(run_summary::format_value(5.578807, "1", "compression_ratio"), "5.579");
    EXPECT_EQ(run_summary::format_value(1.5e9, "pJ", "energy"), "1.5 mJ");
    EXPECT_EQ(run_summary::format_value(0.25, "flit/node/cycle", "offered_load"),
              "0.25 flit/node/cycle");
}

run_summary four_nodes() {
    run_summary s;
    s.status = "finished";
    s.simulated_s = 0.6309;
    s.wall_s = 1.0;
    s.has_iteration = true;
    s.iteration_s = 0.6309;
    s.breakdown = {{"forward", 0.1}, {"comm", 0.5309}};
    for (int i = 0; i < 4; ++i) {
        const std::string n = "node[" + std::to_string(i) + "]";
        s.stats.push_back({"host.cpu", n + ".host", "completion_time", "ns", 6.30872e8});
        s.stats.push_back({"pcie.link", n + ".gpu_pcie", "up_utilisation", "1", 0.02});
        s.stats.push_back({"pcie.link", n + ".pcie", "up_utilisation", "1", i == 2 ? 0.2 : 0.1});
    }
    s.stats.push_back({"ethernet.switch", "switch", "dropped_bytes", "B", 0});
    return s;
}

TEST(run_summary, identical_per_node_lines_fold_and_group_by_type_after_the_breakdown) {
    const std::string t = four_nodes().text();
    EXPECT_EQ(t,
              "status                 finished\n"
              "simulated time         630.9 ms\n"
              "wall time              1.000 s (0.631 simulated s per wall s)\n"
              "iteration time         630.9 ms\n"
              "  forward              100 ms        15.9 %\n"
              "  comm                 530.9 ms      84.1 %\n"
              "host.cpu\n"
              "  node[0..3].host.completion_time  630.9 ms\n"
              "pcie.link\n"
              "  node[0..3].gpu_pcie.up_utilisation  2.0 %\n"
              "  node[0..1].pcie.up_utilisation      10.0 %\n"
              "  node[2].pcie.up_utilisation         20.0 %\n"
              "  node[3].pcie.up_utilisation         10.0 %\n"
              "ethernet.switch\n"
              "  switch.dropped_bytes  0 B\n");
}

TEST(run_summary, many_differing_blocks_give_one_mean_min_max_line) {
    run_summary s;
    s.status = "finished";
    for (int i = 0; i < 16; ++i) {
        s.stats.push_back({"nic.basic", "node[" + std::to_string(i) + "].nic", "tx_utilisation",
                           "1", 0.1 + 0.01 * i});
    }
    const auto g = s.groups();
    ASSERT_EQ(g.size(), 1u);
    ASSERT_EQ(g[0].lines.size(), 1u);
    EXPECT_EQ(g[0].lines[0].label, "node[0..15].nic.tx_utilisation");
    EXPECT_EQ(g[0].lines[0].text, "mean 17.5 %, min 10.0 %, max 25.0 %");
    EXPECT_EQ(g[0].lines[0].blocks, 16u);
}

TEST(run_summary, headline_and_json) {
    run_summary s = four_nodes();
    EXPECT_EQ(s.headline(), "finished: iteration time 630.9 ms\n");
    s.iterations = 3;
    EXPECT_EQ(s.headline(), "finished: iteration time 630.9 ms (mean of 3)\n");
    s.has_iteration = false;
    EXPECT_EQ(s.headline(), "finished: simulated time 630.9 ms\n");
    s.warnings = {"w"};
    const auto j = nlohmann::json::parse(four_nodes().json());
    EXPECT_EQ(j["status"], "finished");
    EXPECT_DOUBLE_EQ(j["iteration"]["time_s"].get<double>(), 0.6309);
    EXPECT_EQ(j["iteration"]["breakdown"][1]["part"], "comm");
    EXPECT_EQ(j["groups"][0]["type"], "host.cpu");
    EXPECT_EQ(j["groups"][0]["stats"][0]["label"], "node[0..3].host.completion_time");
    EXPECT_EQ(j["groups"][0]["stats"][0]["blocks"], 4);
    EXPECT_DOUBLE_EQ(j["groups"][0]["stats"][0]["mean"].get<double>(), 6.30872e8);
}

}  // namespace
}  // namespace trainvp
