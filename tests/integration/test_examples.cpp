// Every example platform in configs/examples/ runs through `trainvp run`, finishes, and gives
// byte-identical results when run twice.  The cluster example's VCD shows its links and
// switch queues.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/support/test_util.h"

namespace trainvp {
namespace {

namespace fs = std::filesystem;

test::command_result trainvp(const std::string& args) {
    return test::run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN + " " +
                             args);
}

std::vector<std::string> examples() {
    std::vector<std::string> names;
    for (const auto& e :
         fs::directory_iterator(fs::path(TRAINVP_SOURCE_DIR) / "configs/examples")) {
        if (e.path().extension() != ".yaml") continue;
        // A file without components (a template library such as cluster_node.yaml) is included
        // by others, not run.
        if (test::read_file(e.path()).find("\ncomponents:") == std::string::npos) continue;
        names.push_back(e.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

class example : public ::testing::TestWithParam<std::string> {};

TEST_P(example, runs_to_completion_and_is_deterministic) {
    auto dir = test::temp_dir("example_" + GetParam());
    const std::string config = "configs/examples/" + GetParam() + ".yaml";
    for (const char* run : {"a", "b"}) {
        auto r = trainvp("run " + config + " --quiet --out " + (dir / run).string());
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    auto stats = nlohmann::json::parse(test::read_file(dir / "a" / "stats.json"));
    EXPECT_EQ(stats["run"]["status"], "finished");
    for (const char* f : {"stats.json", "stats.csv", "timeline.json", "config.resolved.yaml"}) {
        EXPECT_TRUE(test::read_file(dir / "a" / f) == test::read_file(dir / "b" / f)) << f;
    }
}

INSTANTIATE_TEST_SUITE_P(configs, example, ::testing::ValuesIn(examples()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(example_cluster, vcd_shows_links_queues_and_engines) {
    auto dir = test::temp_dir("cluster_vcd");
    auto r = trainvp("run configs/examples/two_nodes.yaml --vcd --quiet --out " + dir.string() +
                     " --set 'workload.ops.\"node[0].host\"[0].bytes=1MB'"
                     " --set 'workload.ops.\"node[1].host\"[0].bytes=1MB'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string vcd = test::read_file(dir / "waves.vcd");
    for (const char* scope :
         {"$scope module node_0 $end", "$scope module link $end", "$scope module switch $end",
          "$scope module nic $end", "$scope module pcie $end"}) {
        EXPECT_NE(vcd.find(scope), std::string::npos) << scope;
    }
    for (const char* signal : {" queue_0 ", " tx_busy ", " busy_ab "}) {
        EXPECT_NE(vcd.find(signal), std::string::npos) << signal;
    }
    auto stats = nlohmann::json::parse(test::read_file(dir / "stats.json"));
    EXPECT_EQ(stats["blocks"]["node[1].mem"]["stats"]["bytes_written"]["value"], 1000000);
    auto timeline = nlohmann::json::parse(test::read_file(dir / "timeline.json"));
    EXPECT_GT(timeline["traceEvents"].size(), 2u);
}

}  // namespace
}  // namespace trainvp
