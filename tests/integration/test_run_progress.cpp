// The progress line of `trainvp run`: its text, silence when stdout is not a terminal, and
// that running sc_start in slices for it changes no result (byte-identical outputs, with and
// without simulation.max_time).
#include <gtest/gtest.h>

#include <filesystem>

#include "sc_main/run_progress.h"
#include "sc_main/sweep_runner.h"
#include "tests/support/test_util.h"

namespace trainvp {
namespace {

namespace fs = std::filesystem;

test::command_result trainvp(const std::string& env, const std::string& args) {
    return test::run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && env " + env + " " +
                             TRAINVP_BIN + " " + args);
}

TEST(run_progress, line_text) {
    EXPECT_EQ(run_progress::line(0.25, 1.0, 2.0),
              "[#####...............] simulated 250 ms of 1 s (25.0%), wall 0:02, ETA 0:06, "
              "0.125 simulated s per wall s");
    EXPECT_EQ(run_progress::line(3e-3, 0.0, 61.0),
              "simulated 3 ms, wall 1:01, 4.92e-05 simulated s per wall s");
    EXPECT_EQ(format_wall(7387.0), "2:03:07");
    EXPECT_EQ(progress_bar(0.0, 4), "[....]");
    EXPECT_EQ(progress_bar(1.0, 4), "[####]");
    EXPECT_EQ(progress_bar(2.0, 4), "[####]");
}

TEST(run_progress, sweep_line_text) {
    EXPECT_EQ(sweep_runner::line(4, 16, 0, 3.0, false),
              "[#####...............] 4/16 points, elapsed 0:03, 80 points/min, ETA 0:09");
    EXPECT_EQ(sweep_runner::line(0, 16, 0, 0.5, false),
              "[....................] 0/16 points, elapsed 0:01, ETA --");
    EXPECT_EQ(sweep_runner::line(16, 16, 1, 12.0, true),
              "[####################] 16/16 points (1 failed), elapsed 0:12, 80 points/min");
}

TEST(run_progress, quiet_when_stdout_is_not_a_terminal) {
    auto dir = test::temp_dir("progress_quiet");
    auto r = trainvp("-u TRAINVP_PROGRESS",
                     "run configs/examples/traffic_to_memory.yaml --out " + dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find('\r'), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("simulated 1"), std::string::npos) << r.out;
}

// TRAINVP_PROGRESS=always forces the sliced run a terminal gets.
class sliced_run : public ::testing::TestWithParam<std::string> {};

TEST_P(sliced_run, gives_byte_identical_outputs) {
    auto dir = test::temp_dir("progress_sliced");
    const std::string args = GetParam();
    auto a = trainvp("TRAINVP_PROGRESS=never", args + " --out " + (dir / "a").string());
    auto b = trainvp("TRAINVP_PROGRESS=always", args + " --out " + (dir / "b").string());
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    for (const char* f : {"stats.json", "stats.csv", "timeline.json"}) {
        const std::string x = test::read_file(dir / "a" / f), y = test::read_file(dir / "b" / f);
        EXPECT_FALSE(x.empty()) << f;
        EXPECT_TRUE(x == y) << f << " differs when the run is sliced";
    }
}

INSTANTIATE_TEST_SUITE_P(
    configs, sliced_run,
    ::testing::Values(
        // Runs to the end; stops at max_time mid-run; max_time after the end (time advances
        // to max_time, as one sc_start(max_time) does).
        "run configs/examples/traffic_to_memory.yaml",
        "run configs/examples/incast.yaml --set simulation.max_time=123456ns",
        "run configs/examples/traffic_to_memory.yaml --set simulation.max_time=5ms",
        "run configs/examples/training_ring.yaml --set workload.training.model=hdc"
        " --set components.node.count=8 --set switch.ports=8"),
    [](const ::testing::TestParamInfo<std::string>& i) {
        return "case" + std::to_string(i.index);
    });

}  // namespace
}  // namespace trainvp
