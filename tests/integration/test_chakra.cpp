// Chakra execution traces through `trainvp run` (workload.chakra, workloads/chakra/): each test
// workload of tools/chakra_writer.py runs to the same iteration time as the same workload
// written as op lists (configs/examples/chakra_*_ops.yaml), and the 8-rank tensor x data
// parallel trace runs on INCEPTIONN's cluster grown to 8 nodes with the bytes and ops its
// schedules give in closed form.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_util.h"

namespace trainvp {
namespace {

namespace fs = std::filesystem;

test::command_result trainvp(const std::string& args) {
    return test::run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN + " " +
                             args);
}

nlohmann::json run(const std::string& args, const fs::path& out) {
    auto r = trainvp("run " + args + " --quiet --out " + out.string());
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return nlohmann::json::parse(test::read_file(out / "stats.json"));
}

class chakra_workload : public ::testing::TestWithParam<std::string> {};

// Exact: the op lists are the ops workload.chakra makes (compute, delays, sends and receives
// one for one; each collective expanded by the writer from its algorithm with the same tags,
// addresses and dependencies), so the two runs are the same simulation.
TEST_P(chakra_workload, trace_and_op_list_give_the_same_iteration_time) {
    const std::string w = GetParam();
    auto dir = test::temp_dir("chakra_" + w);
    const auto trace = run("configs/examples/chakra_cluster4.yaml --set workload.chakra.trace=" +
                               std::string("configs/examples/chakra/") + w,
                           dir / "trace");
    const auto ops = run("configs/examples/chakra_" + w + "_ops.yaml", dir / "ops");
    EXPECT_EQ(trace["run"]["status"], "finished");
    EXPECT_EQ(ops["run"]["status"], "finished");
    EXPECT_GT(trace["run"]["sim_time_ps"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(trace["run"]["sim_time_ps"], ops["run"]["sim_time_ps"]);
    for (int r = 0; r < 4; ++r) {
        const std::string h = "node[" + std::to_string(r) + "].host";
        EXPECT_EQ(trace["blocks"][h]["stats"]["bytes_sent"],
                  ops["blocks"][h]["stats"]["bytes_sent"])
            << h;
    }
}

INSTANTIATE_TEST_SUITE_P(writer, chakra_workload, ::testing::Values("dp", "tp", "pp", "moe"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// tp = 2 x dp = 4.  Per rank: 3 forward all-gathers and 3 backward reduce-scatters of 2 MiB in
// its tp group of 2 (ring: 1 message of 1 MiB each, a reduce-scatter also 1 sum), and one
// all-reduce of 8 MiB in its dp group of 4 (ring: 2(N-1) = 6 messages of 2 MiB, N-1 = 3 sums):
// 12 sends, 12 receives, 6 sums, 3 + 3 + 12 = 18 MiB sent; 6 kernels on the GPU and the update
// (300 us) as a delay.
TEST(chakra, tensor_and_data_parallel_trace_runs_on_8_inceptionn_nodes) {
    auto dir = test::temp_dir("chakra_tp_dp");
    const auto s = run("configs/examples/chakra_inceptionn8.yaml", dir / "out");
    EXPECT_EQ(s["run"]["status"], "finished");
    EXPECT_EQ(s["run"]["audit_violations"], 0);
    for (int r = 0; r < 8; ++r) {
        const auto& h = s["blocks"]["node[" + std::to_string(r) + "].host"]["stats"];
        EXPECT_EQ(h["bytes_sent"]["value"], 18 * 1048576) << r;
        EXPECT_EQ(h["bytes_received"]["value"], 18 * 1048576) << r;
        EXPECT_EQ(h["ops_send"]["value"], 12) << r;
        EXPECT_EQ(h["ops_recv"]["value"], 12) << r;
        EXPECT_EQ(h["ops_sum"]["value"], 6) << r;
        EXPECT_EQ(h["ops_gpu_compute"]["value"], 6) << r;
        EXPECT_EQ(h["ops_delay"]["value"], 1) << r;
    }
}

}  // namespace
}  // namespace trainvp
