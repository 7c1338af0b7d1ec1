// `trainvp sweep`: a grid run as separate processes, its sweep.csv, resuming, failed points,
// the job list run by GNU parallel and merged (byte-identical to a local sweep), and the bad
// sweep-file corpus in tests/configs/bad_sweeps/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tests/support/test_util.h"

namespace trainvp {
namespace {

namespace fs = std::filesystem;

test::command_result trainvp(const std::string& args) {
    return test::run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN + " " +
                             args);
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::string cell;
        bool quoted = false;
        for (std::size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (quoted) {
                if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                    cell += '"';
                    ++i;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cell += c;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                cells.push_back(cell);
                cell.clear();
            } else {
                cell += c;
            }
        }
        cells.push_back(cell);
        rows.push_back(cells);
    }
    return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
    auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << "no column " << name;
    return static_cast<std::size_t>(it - header.begin());
}

// Four points of a small training iteration (the zoo's hdc model: ~0.1 s a point): node count
// zipped with the switch's ports, times the overlap policy.
std::string small_grid(const fs::path& dir) {
    return test::write_file(dir / "grid.yaml",
                            std::string("base: ") + TRAINVP_SOURCE_DIR +
                                "/configs/examples/training_ring.yaml\n"
                                "set:\n"
                                "  workload.training.model: hdc\n"
                                "grid:\n"
                                "  - zip:\n"
                                "      components.node.count: [2, 4]\n"
                                "      switch.ports: [2, 4]\n"
                                "  - workload.training.policy: [after_backward, overlap_layers]\n");
}

TEST(sweep, runs_every_point_and_writes_one_row_each) {
    auto dir = test::temp_dir("sweep_local");
    const std::string grid = small_grid(dir);
    auto r = trainvp("sweep " + grid + " --jobs 2 --out " + (dir / "out").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // stdout is not a terminal: no progress line, only the summary.
    EXPECT_EQ(r.out, "sweep: 4 points, 4 finished; table in " +
                         (dir / "out" / "sweep.csv").string() + "\n");
    auto rows = csv_rows(test::read_file(dir / "out" / "sweep.csv"));
    ASSERT_EQ(rows.size(), 5u);
    const auto& h = rows[0];
    EXPECT_EQ(h[0], "point");
    EXPECT_EQ(h[1], "components.node.count");
    EXPECT_EQ(h[2], "switch.ports");
    EXPECT_EQ(h[3], "workload.training.policy");
    EXPECT_EQ(h.back(), "error");
    const std::size_t status = column(h, "status");
    const std::size_t t = column(h, "host.cpu.completion_time.max [ns]");
    const std::size_t sim = column(h, "sim_time_ps");
    // The iteration breakdown, with units in the header.
    const std::size_t it = column(h, "iteration.time [ns]");
    column(h, "iteration.comm [ns]");
    column(h, "iteration.iterations");
    const std::vector<std::string> names{"p000_2_2_after-backward", "p001_2_2_overlap-layers",
                                         "p002_4_4_after-backward", "p003_4_4_overlap-layers"};
    for (std::size_t i = 1; i < rows.size(); ++i) {
        ASSERT_EQ(rows[i].size(), h.size());
        EXPECT_EQ(rows[i][0], names[i - 1]);
        EXPECT_EQ(rows[i][status], "finished");
        EXPECT_TRUE(fs::exists(dir / "out" / names[i - 1] / "stats.json"));
        // The run ends when the last host completes: the headline max is the simulated time
        // (ns vs ps; %.10g keeps 10 digits, so compare to 1e-9 relative).
        const double ns = std::stod(rows[i][t]), ps = std::stod(rows[i][sim]);
        EXPECT_NEAR(ns * 1e3, ps, ps * 1e-9) << rows[i][0];
        // One iteration from t = 0: the critical path spans the run.
        EXPECT_NEAR(std::stod(rows[i][it]) * 1e3, ps, ps * 1e-9) << rows[i][0];
    }
    EXPECT_EQ(rows[1][1], "2");
    EXPECT_EQ(rows[3][1], "4");
    EXPECT_EQ(rows[2][3], "overlap_layers");

    // `trainvp report` on the sweep's folder: the sweep page (tools.report renders one in
    // chromium), with the description, the swept columns, the table and the data the plot uses.
    auto rep = trainvp("report " + (dir / "out").string());
    ASSERT_EQ(rep.exit_code, 0) << rep.err;
    EXPECT_EQ(rep.out, "report: " + (dir / "out" / "report.html").string() + "\n");
    const std::string page = test::read_file(dir / "out" / "report.html");
    EXPECT_NE(page.find("<p>4 points; swept: <code>components.node.count</code>, "
                        "<code>switch.ports</code>, <code>workload.training.policy</code>;"),
              std::string::npos)
        << page.substr(0, 2000);
    EXPECT_NE(page.find("<td>p003_4_4_overlap-layers</td><td>4</td><td>4</td>"
                        "<td>overlap_layers</td><td>finished</td>"),
              std::string::npos);
    EXPECT_NE(page.find("\"swept\":[\"components.node.count\",\"switch.ports\","
                        "\"workload.training.policy\"]"),
              std::string::npos);
    EXPECT_NE(page.find("<svg class=\"chart\" id=\"sweep-plot\""), std::string::npos);
    EXPECT_EQ(page.find("http"), std::string::npos);  // nothing fetched

    // A rerun resumes: every point has a result, nothing runs, the table is the same.
    const std::string table = test::read_file(dir / "out" / "sweep.csv");
    auto again = trainvp("sweep " + grid + " --out " + (dir / "out").string());
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.out.find("4 of 4 points had results already"), std::string::npos) << again.out;
    EXPECT_TRUE(test::read_file(dir / "out" / "sweep.csv") == table);
    // A point without a result (killed) runs again, the others are kept.
    fs::remove(dir / "out" / names[2] / "exit_code");
    auto resumed = trainvp("sweep " + grid + " --out " + (dir / "out").string());
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_NE(resumed.out.find("3 of 4 points had results already"), std::string::npos);
    EXPECT_TRUE(test::read_file(dir / "out" / "sweep.csv") == table);

    // Another grid in the same folder needs --force.
    test::write_file(dir / "grid.yaml",
                     test::read_file(grid) + "  - node[*].link.rate: [10Gb/s, 40Gb/s]\n");
    auto other = trainvp("sweep " + grid + " --out " + (dir / "out").string());
    EXPECT_EQ(other.exit_code, 2);
    EXPECT_EQ(other.err, "command line: error: --out: '" + (dir / "out").string() +
                             "' holds a different sweep (or its base config changed); give --force "
                             "to start it over or --out to write elsewhere\n");
}

TEST(sweep, a_failed_point_is_recorded_and_the_others_run) {
    auto dir = test::temp_dir("sweep_failed");
    // Point 1 writes past the end of the memory behind a PCIe link (which the validation phase
    // does not follow): the run fails (exit 1) with its error; point 2's region is smaller
    // than a message, a relation between two params: bad input (exit 2) found when the blocks
    // are built.  (A value out of its param's range is refused before any point runs:
    // tests/configs/bad_sweeps/value_of_wrong_family.)
    test::write_file(dir / "base.yaml",
                     "components:\n"
                     "  node:\n"
                     "    count: 1\n"
                     "    components:\n"
                     "      gen: {type: traffic.generator, message_size: 4KiB}\n"
                     "      pcie: {type: pcie.link}\n"
                     "      mem: {type: memory}\n"
                     "    connections:\n"
                     "      - gen.out -> pcie.dev\n"
                     "      - pcie.host -> mem.target\n");
    const std::string grid = test::write_file(dir / "grid.yaml",
                                              "base: base.yaml\n"
                                              "grid:\n"
                                              "  - zip:\n"
                                              "      node[0].gen.address: [0, 20GiB, 0]\n"
                                              "      node[*].gen.region: [1GiB, 1GiB, 1KiB]\n");
    auto r = trainvp("sweep " + grid + " --jobs 2 --out " + (dir / "out").string());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.out.find("sweep: 3 points, 1 finished, 2 failed"), std::string::npos) << r.out;
    auto rows = csv_rows(test::read_file(dir / "out" / "sweep.csv"));
    ASSERT_EQ(rows.size(), 4u);
    const std::size_t status = column(rows[0], "status"), error = column(rows[0], "error");
    EXPECT_EQ(rows[1][status], "finished");
    EXPECT_EQ(rows[1][error], "");
    EXPECT_EQ(rows[2][status], "failed");
    EXPECT_EQ(rows[2][error], "node[0].gen: message 0 failed: TLM_ADDRESS_ERROR_RESPONSE");
    EXPECT_EQ(rows[3][status], "bad_input");
    EXPECT_NE(rows[3][error].find("node[0].gen.region"), std::string::npos) << rows[3][error];
}

TEST(sweep, results_are_not_reused_after_the_base_config_changed) {
    auto dir = test::temp_dir("sweep_base_changed");
    const std::string base =
        test::read_file(fs::path(TRAINVP_SOURCE_DIR) / "configs/examples/traffic_to_memory.yaml");
    test::write_file(dir / "base.yaml", base);
    const std::string grid = test::write_file(
        dir / "grid.yaml", "base: base.yaml\ngrid:\n  - node[*].mem.latency: [80ns, 90ns]\n");
    const std::string cmd = "sweep " + grid + " --out " + (dir / "out").string();
    ASSERT_EQ(trainvp(cmd).exit_code, 0);
    // Same sweep file, but the base now gives other results: the points must run again.
    std::string edited = base;
    const std::string from = "messages: 1000", to = "messages: 900";
    ASSERT_NE(edited.find(from), std::string::npos);
    edited.replace(edited.find(from), from.size(), to);
    test::write_file(dir / "base.yaml", edited);
    auto r = trainvp(cmd);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("holds a different sweep (or its base config changed)"), std::string::npos)
        << r.err;
    EXPECT_EQ(trainvp(cmd + " --force").exit_code, 0);
}

TEST(sweep, job_list_under_gnu_parallel_gives_the_same_table) {
    if (std::system("command -v parallel >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "GNU parallel is not installed (scripts/setup.sh installs it)";
    }
    auto dir = test::temp_dir("sweep_parallel");
    const std::string grid = small_grid(dir);
    auto local = trainvp("sweep " + grid + " --jobs 2 --out " + (dir / "local").string());
    ASSERT_EQ(local.exit_code, 0) << local.err;

    const std::string jobs = (dir / "jobs.txt").string();
    auto emit =
        trainvp("sweep " + grid + " --out " + (dir / "remote").string() + " --emit-jobs " + jobs);
    ASSERT_EQ(emit.exit_code, 0) << emit.err;
    EXPECT_NE(emit.out.find("sweep: 4 points written to " + jobs), std::string::npos) << emit.out;
    const std::string list = test::read_file(jobs);
    EXPECT_EQ(std::count(list.begin(), list.end(), '\n'), 4);
    EXPECT_FALSE(fs::exists(dir / "remote" / "p000_2_2_after-backward")) << "emit runs nothing";
    // Before the jobs ran, a merge reports the points without a result.
    auto early = trainvp("sweep --merge " + (dir / "remote").string());
    EXPECT_EQ(early.exit_code, 1);
    EXPECT_NE(early.out.find("4 without a result"), std::string::npos) << early.out;

    auto par = test::run_command("cd /tmp && parallel --will-cite -j 2 < " + jobs);
    ASSERT_EQ(par.exit_code, 0) << par.err;
    auto merged = trainvp("sweep --merge " + (dir / "remote").string());
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    const std::string a = test::read_file(dir / "local" / "sweep.csv");
    const std::string b = test::read_file(dir / "remote" / "sweep.csv");
    EXPECT_FALSE(a.empty());
    EXPECT_TRUE(a == b) << "local:\n" << a << "parallel + merge:\n" << b;
}

TEST(sweep, example_sweeps_are_valid) {
    // Emitting the job list validates every point against the base config without running.
    for (const auto& e : fs::directory_iterator(fs::path(TRAINVP_SOURCE_DIR) / "configs/sweeps")) {
        if (e.path().extension() != ".yaml") continue;
        auto dir = test::temp_dir("sweep_example_" + e.path().stem().string());
        auto r = trainvp("sweep " + e.path().string() + " --out " + (dir / "out").string() +
                         " --emit-jobs " + (dir / "jobs.txt").string());
        EXPECT_EQ(r.exit_code, 0) << e.path() << "\n" << r.err;
    }
}

TEST(sweep, command_line_errors) {
    auto j = trainvp("sweep configs/sweeps/ring_scaling.yaml --jobs 0");
    EXPECT_EQ(j.exit_code, 2);
    EXPECT_EQ(j.err, "command line: error: --jobs: '0' is not a number of jobs (1 or more)\n");
    auto o = trainvp("sweep configs/sweeps/ring_scaling.yaml --job 2");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_EQ(o.err, "command line: error: --job: unknown option (did you mean '--jobs'?)\n");
    auto m = trainvp("sweep --merge /no/such/sweep");
    EXPECT_EQ(m.exit_code, 2);
    EXPECT_EQ(m.err,
              "/no/such/sweep/sweep.json: error: cannot open the sweep plan; is '/no/such/sweep' "
              "the output folder of `trainvp sweep` (or --emit-jobs)?\n");
    auto n = trainvp("sweep");
    EXPECT_EQ(n.exit_code, 2);
    EXPECT_EQ(n.err, "command line: error: no sweep file given\n");
}

// Every file in tests/configs/bad_sweeps/ fails before any point runs, with exit code 2 and
// exactly the message in the .expected file beside it.
std::vector<std::string> bad_sweeps() {
    return test::yaml_stems(fs::path(TRAINVP_SOURCE_DIR) / "tests/configs/bad_sweeps");
}

class sweep_bad_file : public ::testing::TestWithParam<std::string> {};

TEST_P(sweep_bad_file, fails_with_its_expected_message_and_exit_code_2) {
    const std::string rel = "tests/configs/bad_sweeps/" + GetParam();
    const std::string expected =
        test::read_file(fs::path(TRAINVP_SOURCE_DIR) / (rel + ".expected"));
    ASSERT_FALSE(expected.empty()) << rel << ".expected is missing";
    auto dir = test::temp_dir("bad_sweep_" + GetParam());
    auto r = trainvp("sweep " + rel + ".yaml --out " + (dir / "out").string());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, expected);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(dir / "out")) << "a bad sweep file must not start the sweep";
}

INSTANTIATE_TEST_SUITE_P(corpus, sweep_bad_file, ::testing::ValuesIn(bad_sweeps()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(sweep, bad_corpus_is_large_enough) { EXPECT_GE(bad_sweeps().size(), 10u); }

}  // namespace
}  // namespace trainvp
