// The `trainvp` command as a user runs it: exit codes, the bad-config corpus, determinism,
// reproducing a run from config.resolved.yaml, and the generated IP reference being current.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/support/test_util.h"

namespace trainvp {
namespace {

namespace fs = std::filesystem;

// Runs trainvp from the source folder, so that paths in messages read as a user types them.
test::command_result trainvp(const std::string& args) {
    return test::run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN + " " +
                             args);
}

TEST(cli, version_help_and_usage_errors) {
    auto v = trainvp("--version");
    EXPECT_EQ(v.exit_code, 0);
    EXPECT_EQ(v.out.rfind("trainvp 0.", 0), 0u) << v.out;
    auto h = trainvp("--help");
    EXPECT_EQ(h.exit_code, 0);
    EXPECT_NE(h.out.find("usage: trainvp <command>"), std::string::npos);
    EXPECT_TRUE(h.err.empty()) << "the SystemC banner or anything else leaked: " << h.err;
    EXPECT_EQ(trainvp("").exit_code, 2);
    auto u = trainvp("rnu x.yaml");
    EXPECT_EQ(u.exit_code, 2);
    EXPECT_NE(u.err.find("unknown command 'rnu' (did you mean 'run'?)"), std::string::npos);
    auto o = trainvp("run configs/examples/traffic_to_memory.yaml --vdc");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_EQ(o.err, "command line: error: --vdc: unknown option (did you mean '--vcd'?)\n");
    auto m = trainvp("check no/such/file.yaml");
    EXPECT_EQ(m.exit_code, 2);
    EXPECT_EQ(m.err, "no/such/file.yaml: error: cannot open config file 'no/such/file.yaml'\n");
}

TEST(cli, check_validates_without_simulating) {
    auto r = trainvp("check configs/examples/traffic_to_memory.yaml");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "configs/examples/traffic_to_memory.yaml: ok (4 blocks, 2 connections)\n");
}

// Every file in tests/configs/bad/ must fail with exit code 2 and exactly the message in the
// .expected file beside it, for both `check` and `run`.
std::vector<std::string> bad_configs() {
    return test::yaml_stems(fs::path(TRAINVP_SOURCE_DIR) / "tests/configs/bad");
}

class bad_config : public ::testing::TestWithParam<std::string> {};

TEST_P(bad_config, fails_with_its_expected_message_and_exit_code_2) {
    const std::string rel = "tests/configs/bad/" + GetParam();
    const std::string expected =
        test::read_file(fs::path(TRAINVP_SOURCE_DIR) / (rel + ".expected"));
    ASSERT_FALSE(expected.empty()) << rel << ".expected is missing";
    auto dir = test::temp_dir("bad_" + GetParam());
    for (const std::string& cmd :
         {"check " + rel + ".yaml", "run " + rel + ".yaml --out " + (dir / "out").string()}) {
        auto r = trainvp(cmd);
        EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.err;
        EXPECT_EQ(r.err, expected) << cmd;
        EXPECT_TRUE(r.out.empty()) << cmd << ": " << r.out;
    }
    EXPECT_FALSE(fs::exists(dir / "out" / "stats.json")) << "a bad config must not write results";
}

INSTANTIATE_TEST_SUITE_P(corpus, bad_config, ::testing::ValuesIn(bad_configs()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(cli, bad_corpus_is_large_enough) { EXPECT_GE(bad_configs().size(), 15u); }

TEST(cli, same_config_and_seed_give_byte_identical_outputs) {
    auto dir = test::temp_dir("determinism");
    for (const char* run : {"a", "b"}) {
        auto r = trainvp("run configs/examples/traffic_to_memory.yaml --vcd --quiet --out " +
                         (dir / run).string());
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    for (const char* f :
         {"stats.json", "stats.csv", "timeline.json", "waves.vcd", "config.resolved.yaml"}) {
        const std::string a = test::read_file(dir / "a" / f), b = test::read_file(dir / "b" / f);
        EXPECT_FALSE(a.empty()) << f;
        EXPECT_TRUE(a == b) << f << " differs between two runs";
    }
}

TEST(cli, resolved_config_reproduces_the_run) {
    auto dir = test::temp_dir("resolved");
    auto r1 = trainvp(
        "run configs/examples/traffic_to_memory.yaml --quiet --set "
        "node[1].mem.latency=120ns --out " +
        (dir / "a").string());
    ASSERT_EQ(r1.exit_code, 0) << r1.err;
    auto r2 = trainvp("run " + (dir / "a" / "config.resolved.yaml").string() + " --quiet --out " +
                      (dir / "b").string());
    ASSERT_EQ(r2.exit_code, 0) << r2.err;
    auto a = nlohmann::json::parse(test::read_file(dir / "a" / "stats.json"));
    auto b = nlohmann::json::parse(test::read_file(dir / "b" / "stats.json"));
    EXPECT_EQ(a["blocks"], b["blocks"]);
    EXPECT_EQ(a["run"]["sim_time_ps"], b["run"]["sim_time_ps"]);
}

TEST(cli, run_prints_a_summary_and_stall_exits_1) {
    auto dir = test::temp_dir("summary");
    auto r = trainvp("run configs/examples/traffic_to_memory.yaml --out " + dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("status                 finished"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("simulated time         1.635 ms"), std::string::npos) << r.out;
    // Grouped by type, in human units (it read `node[0].gen.completion_time 160080 ns`).
    EXPECT_NE(r.out.find("traffic.generator\n"
                         "  node[0].gen.completion_time  160.1 us\n"
                         "  node[1].gen.completion_time  1.635 ms\n"
                         "  node[0].gen.throughput       25.59 GB/s\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("memory\n  node[0].mem.utilisation  9.8 %\n"), std::string::npos) << r.out;
    EXPECT_TRUE(r.err.empty()) << r.err;
}

// A training run: the breakdown first, identical per-node lines folded into one.
TEST(cli, summary_folds_identical_nodes_after_the_breakdown) {
    auto dir = test::temp_dir("summary_fold");
    auto r = trainvp("run configs/examples/training_ring.yaml --out " + dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto it = r.out.find("iteration time         772.4 ms\n  forward");
    const auto host = r.out.find("host.cpu\n  node[0..3].host.completion_time  772.4 ms\n");
    EXPECT_NE(it, std::string::npos) << r.out;
    EXPECT_NE(host, std::string::npos) << r.out;
    EXPECT_LT(it, host) << r.out;
    EXPECT_NE(r.out.find("  node[0..3].link.utilisation_ab  39.9 %\n"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("node[1].host"), std::string::npos) << r.out;
}

// Bottlenecks per phase: HDC's ring on 10 GbE spends most of the iteration communicating, and
// then the NICs' MACs and their links are saturated (a run-long utilisation shows ~30 %).
TEST(cli, summary_names_the_bottleneck_of_each_phase) {
    auto dir = test::temp_dir("bottleneck");
    auto r = trainvp(
        "run configs/examples/training_ring.yaml --set workload.training.model=hdc "
        "--out " +
        dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\nbottleneck: compute (11.2 % of the run): node[0].host cpu_busy 79 % "
                         "busy, "),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\nbottleneck: communication (88.8 % of the run): node[2].nic tx_busy "
                         "97 % busy, node[2].link busy_ab 97 % busy, "),
              std::string::npos)
        << r.out;
    auto j = trainvp(
        "run configs/examples/training_ring.yaml --set workload.training.model=hdc "
        "--force --json --out " +
        dir.string());
    const auto s = nlohmann::json::parse(j.out);
    ASSERT_EQ(s["bottlenecks"].size(), 2u);
    EXPECT_EQ(s["bottlenecks"][1].get<std::string>().rfind("communication (88.8 %", 0), 0u);
}

// --quiet prints the headline only; --json the summary as JSON (nothing else on stdout).
TEST(cli, quiet_prints_the_headline_and_json_the_summary) {
    auto dir = test::temp_dir("summary_quiet");
    auto q = trainvp("run configs/examples/traffic_to_memory.yaml --quiet --out " +
                     (dir / "q").string());
    ASSERT_EQ(q.exit_code, 0) << q.err;
    EXPECT_EQ(q.out, "finished: simulated time 1.635 ms\n");
    auto j =
        trainvp("run configs/examples/traffic_to_memory.yaml --json --out " + (dir / "j").string());
    ASSERT_EQ(j.exit_code, 0) << j.err;
    const auto s = nlohmann::json::parse(j.out);
    EXPECT_EQ(s["status"], "finished");
    EXPECT_EQ(s["groups"][0]["type"], "traffic.generator");
    EXPECT_EQ(s["groups"][0]["stats"][0]["label"], "node[0].gen.completion_time");
    EXPECT_EQ(s["groups"][0]["stats"][0]["text"], "160.1 us");
    EXPECT_DOUBLE_EQ(s["groups"][0]["stats"][0]["mean"].get<double>(), 160080.0);
}

// A NIC faster than its PCIe slot runs, with a warning (check and the run summary): 100 GbE on
// the X540's PCIe 2.0 x8 (4 GB/s after 8b/10b, x 256 / 280 for TLP overhead = 29.26 Gb/s).
TEST(cli, a_nic_faster_than_its_pcie_slot_is_a_warning) {
    auto r = trainvp(
        "check configs/papers/inceptionn/inc_c_alexnet.yaml --set node[*].nic.rate=100Gb/s "
        "--set node[*].link.rate=100Gb/s");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\nwarning: node[0].nic moves up to 100 Gb/s through its socket pcie, "
                         "more than node[0].pcie (pcie.link) carries (29.26 Gb/s): at most 29 % "
                         "of that rate gets through (and 3 more like it)\n"),
              std::string::npos)
        << r.out;
    auto ok = trainvp("check configs/papers/inceptionn/inc_c_alexnet.yaml");
    EXPECT_EQ(ok.out.find("warning"), std::string::npos) << ok.out;
}

TEST(cli, an_earlier_run_is_not_overwritten_without_force) {
    auto dir = test::temp_dir("force");
    const std::string run =
        "run configs/examples/traffic_to_memory.yaml --quiet --out " + dir.string();
    ASSERT_EQ(trainvp(run).exit_code, 0);
    auto again = trainvp(run);
    EXPECT_EQ(again.exit_code, 2);
    EXPECT_EQ(again.err, "command line: error: --out: '" + dir.string() +
                             "' holds the results of an earlier run; give --force to overwrite "
                             "them or --out to write elsewhere\n");
    EXPECT_EQ(trainvp(run + " --force").exit_code, 0);
}

TEST(cli, an_unwritable_output_folder_is_one_message_and_exit_1) {
    // /proc refuses new folders even to root.
    auto r = trainvp("run configs/examples/traffic_to_memory.yaml --quiet --out /proc/trainvp_out");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err.rfind("trainvp: error: cannot create output folder '/proc/trainvp_out'", 0), 0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(cli, a_failed_run_writes_its_outputs_and_exits_1) {
    auto dir = test::temp_dir("failed_run");
    // Sends and receives pair up before the run (per node and tag, in list order), but node 0
    // sends its 1 kB message from the cpu unit after a 1 ms compute and its 2 kB one from the
    // comm unit at once: the 2 kB message arrives first, and node 1's first receive, of 1 kB,
    // takes it.  Only the run shows that.
    const std::string cfg = test::write_file(
        dir / "reordered.yaml",
        "include: " +
            (fs::path(TRAINVP_SOURCE_DIR) / "tests/configs/bad/includes/two_hosts.yaml").string() +
            "\n"
            "workload:\n"
            "  ops:\n"
            "    node[0].host:\n"
            "      - {op: compute, flops: 1e9, name: c}\n"
            "      - {op: send, to: 1, bytes: 1kB, unit: cpu, after: [c]}\n"
            "      - {op: send, to: 1, bytes: 2kB, unit: comm}\n"
            "    node[1].host:\n"
            "      - {op: recv, from: 0, bytes: 1kB}\n"
            "      - {op: recv, from: 0, bytes: 2kB}\n");
    auto r = trainvp("run " + cfg + " --quiet --out " + (dir / "out").string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err,
              "trainvp: error: node[1].host: op [0] (recv) expects 1000 B from node 0 with tag 0, "
              "but the message has 2000 B\n");
    auto stats = nlohmann::json::parse(test::read_file(dir / "out" / "stats.json"));
    EXPECT_EQ(stats["run"]["status"], "failed");
    EXPECT_EQ(stats["run"]["statistics"].get<std::string>().rfind("incomplete: ", 0), 0u);
}

TEST(cli, ip_reference_is_generated_from_the_declarations) {
    auto r = trainvp("describe --markdown");
    ASSERT_EQ(r.exit_code, 0);
    const std::string committed =
        test::read_file(fs::path(TRAINVP_SOURCE_DIR) / "docs/ip-reference.md");
    EXPECT_TRUE(r.out == committed) << "docs/ip-reference.md is out of date: run tools/gen_docs.sh";
}

// `trainvp help`, `help COMMAND` and `COMMAND --help` for every command: exit 0, the
// command's own usage on stdout, nothing on stderr.
TEST(cli, every_command_has_help) {
    auto h = trainvp("help");
    EXPECT_EQ(h.exit_code, 0);
    for (const char* c : {"run", "check", "sweep", "describe", "diff", "report", "help"}) {
        EXPECT_NE(h.out.find(std::string("\n  ") + c + " "), std::string::npos) << c << h.out;
        for (const std::string& cmd :
             {std::string("help ") + c, std::string(c) + " --help", std::string(c) + " -h"}) {
            auto r = trainvp(cmd);
            EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.err;
            EXPECT_EQ(r.out.rfind(std::string("usage: trainvp ") + c, 0), 0u) << cmd << r.out;
            EXPECT_TRUE(r.err.empty()) << cmd << r.err;
        }
    }
    // --help after other arguments too (a user adding it to a command line being built).
    auto run = trainvp("run configs/examples/traffic_to_memory.yaml --set x=1 --help");
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_NE(run.out.find("  --json            print the summary as JSON"), std::string::npos);
    auto bad = trainvp("help rnu");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_EQ(bad.err, "command line: error: help: unknown command 'rnu' (did you mean 'run'?)\n");
}

// describe: one type as Markdown; first sentences not cut at "Fig."; prefixes; did-you-mean;
// the workload sections and the zoo.
TEST(cli, describe_one_type_prefixes_workload_and_zoo) {
    auto md = trainvp("describe nic.inceptionn --markdown");
    EXPECT_EQ(md.exit_code, 0);
    EXPECT_EQ(md.out.rfind("## nic.inceptionn\n", 0), 0u) << md.out.substr(0, 200);
    EXPECT_EQ(md.out.find("## nic.basic"), std::string::npos);
    EXPECT_EQ(md.out.find("# IP reference"), std::string::npos);

    auto all = trainvp("describe");
    EXPECT_NE(all.out.find("  nic.inceptionn        INCEPTIONN NIC (inceptionn.md §VI-A, Fig. "
                           "8-10): nic.basic with a compression engine between the packet DMA "
                           "and the MAC and a decompression engine between the MAC and the DMA\n"),
              std::string::npos)
        << all.out;
    EXPECT_NE(all.out.find("\nModel zoo"), std::string::npos);

    auto one = trainvp("describe nic.inc");  // a unique prefix
    EXPECT_EQ(one.exit_code, 0);
    EXPECT_EQ(one.out.rfind("nic.inceptionn: INCEPTIONN NIC", 0), 0u) << one.out;
    auto several = trainvp("describe nic");
    EXPECT_EQ(several.exit_code, 0);
    EXPECT_EQ(several.out,
              "2 names start with 'nic' (trainvp describe NAME for one):\n  nic.basic\n"
              "  nic.inceptionn\n");
    auto typo = trainvp("describe memroy");
    EXPECT_EQ(typo.exit_code, 2);
    EXPECT_EQ(typo.err.rfind("command line: error: memroy: unknown IP type (did you mean "
                             "'memory'?)",
                             0),
              0u)
        << typo.err;

    auto wl = trainvp("describe workload");
    EXPECT_EQ(wl.exit_code, 0);
    EXPECT_NE(wl.out.find("workload.training: "), std::string::npos);
    EXPECT_NE(wl.out.find("workload.ops: "), std::string::npos);

    auto zoo = trainvp("describe zoo");
    EXPECT_EQ(zoo.exit_code, 0);
    EXPECT_NE(zoo.out.find("\n  hdc             10    1149010     4.596 MB  inceptionn.md"),
              std::string::npos)
        << zoo.out;
    auto hdc = trainvp("describe zoo.hdc");
    EXPECT_EQ(hdc.exit_code, 0);
    EXPECT_NE(hdc.out.find("\n  hidden          500\n"), std::string::npos) << hdc.out;
    EXPECT_NE(hdc.out.find("\n  fc1                   fc         500             392500      "
                           "7.84e+05  1.568e+06\n"),
              std::string::npos)
        << hdc.out;
    EXPECT_NE(hdc.out.find("total: 10 layers, 1149010 params"), std::string::npos) << hdc.out;
}

// trainvp diff: the headline and the statistics that differ, with both values and B / A.
TEST(cli, diff_lists_the_headline_and_what_changed) {
    auto dir = test::temp_dir("diff");
    ASSERT_EQ(
        trainvp("run configs/examples/traffic_to_memory.yaml --quiet --out " + (dir / "a").string())
            .exit_code,
        0);
    ASSERT_EQ(trainvp("run configs/examples/traffic_to_memory.yaml --quiet --out " +
                      (dir / "b").string() + " --set node[1].mem.latency=120ns")
                  .exit_code,
              0);
    auto same = trainvp("diff " + (dir / "a").string() + " " + (dir / "a").string());
    EXPECT_EQ(same.exit_code, 0) << same.err;
    EXPECT_NE(same.out.find("statistics differing by more than 1 %: 0 of "), std::string::npos)
        << same.out;
    auto d =
        trainvp("diff " + (dir / "a").string() + " " + (dir / "b").string() + " --threshold 0.5");
    EXPECT_EQ(d.exit_code, 0) << d.err;
    EXPECT_NE(d.out.find("\n  simulated time "), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("\n  traffic.generator.completion_time (mean) "), std::string::npos)
        << d.out;
    EXPECT_NE(d.out.find("statistics differing by more than 0.5 %: "), std::string::npos) << d.out;
    // node[0] is untouched; node[1]'s slower memory shows in its generator's latency (its
    // rate-limited completion time does not move), with both values and the ratio.
    EXPECT_EQ(d.out.find("\n  node[0]."), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("statistics differing by more than 0.5 %: 1 of 28, largest difference "
                         "first\n  node[1].gen.latency                      240 ns       280 ns "
                         "      1.167\n"),
              std::string::npos)
        << d.out;
    auto missing = trainvp("diff " + (dir / "a").string() + " " + (dir / "nothing").string());
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(missing.err, "command line: error: OUT_B: '" + (dir / "nothing").string() +
                               "' holds no stats.json (give the output folder of a run)\n");
    auto one = trainvp("diff " + (dir / "a").string());
    EXPECT_EQ(one.exit_code, 2);
    auto pct = trainvp("diff a b --threshold lots");
    EXPECT_EQ(pct.err,
              "command line: error: --threshold: 'lots' is not a percentage (a number >= 0, e.g. "
              "5)\n");
}

// No silent nothing: a template-only file and a platform without work are input errors naming
// the file, for check and run (with --vcd it used to fail inside the VCD writer).
TEST(cli, a_config_with_nothing_to_run_is_an_input_error) {
    auto dir = test::temp_dir("nothing");
    for (const std::string& cmd :
         {std::string("check configs/examples/cluster_node.yaml"),
          "run configs/examples/cluster_node.yaml --vcd --out " + (dir / "o").string()}) {
        auto r = trainvp(cmd);
        EXPECT_EQ(r.exit_code, 2) << cmd;
        EXPECT_EQ(r.err,
                  "configs/examples/cluster_node.yaml: error: components: the config builds no "
                  "blocks (no `components:`; a file of `templates:` only is for including: "
                  "instantiate one with `components: NAME: {template: T, count: N}`)\n")
            << cmd;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    EXPECT_FALSE(fs::exists(dir / "o" / "stats.json"));
    // Blocks without work: tests/configs/bad/host_without_ops.yaml, workload_gives_no_work.yaml.
}

// Issue 29's empty and degenerate platforms (tests/configs/bad/degenerate_*: an empty file,
// templates only, an empty `components:`, blocks that nothing drives, ops that do no work)
// are input errors naming the file with --vcd too (a run that never starts once failed inside
// the VCD writer), and write nothing.
TEST(cli, degenerate_platforms_are_input_errors_with_vcd_too) {
    auto dir = test::temp_dir("degenerate");
    std::size_t n = 0;
    for (const std::string& stem : bad_configs()) {
        if (stem.rfind("degenerate_", 0) != 0) continue;
        ++n;
        const std::string rel = "tests/configs/bad/" + stem;
        const fs::path out = dir / stem;
        auto r = trainvp("run " + rel + ".yaml --vcd --out " + out.string());
        EXPECT_EQ(r.exit_code, 2) << stem << "\n" << r.err;
        EXPECT_EQ(r.err, test::read_file(fs::path(TRAINVP_SOURCE_DIR) / (rel + ".expected")))
            << stem;
        EXPECT_EQ(r.err.rfind(rel + ".yaml: error: ", 0), 0u) << "names the file: " << r.err;
        EXPECT_FALSE(fs::exists(out / "stats.json")) << stem;
        EXPECT_FALSE(fs::exists(out / "waves.vcd")) << stem;
    }
    EXPECT_EQ(n, 5u);
}

// --vcd-max-size: tracing stops once the file reaches the size, with a warning naming the
// simulated time; --vcd-window and --vcd-signals errors are input errors.
TEST(cli, vcd_size_limit_window_and_signal_errors) {
    auto dir = test::temp_dir("cli_vcd_limit");
    auto r = trainvp("run configs/examples/two_nodes.yaml --vcd-max-size 100kB --out " +
                     (dir / "a").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("warning: waves.vcd stops at "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(", the --vcd-max-size (the whole run would have written about "),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("); choose signals (--vcd-signals) or a time window (--vcd-window) to "
                         "see the rest"),
              std::string::npos)
        << r.out;
    const auto size = fs::file_size(dir / "a" / "waves.vcd");
    EXPECT_GE(size, 100000u);
    EXPECT_LT(size, 200000u);  // checked every 4096 value changes
    auto w = trainvp("run configs/examples/two_nodes.yaml --vcd-window 10us:5us --out " +
                     (dir / "b").string());
    EXPECT_EQ(w.exit_code, 2);
    EXPECT_EQ(w.err,
              "command line: error: --vcd-window: '10us:5us': the window ends before it starts\n");
    auto f = trainvp("run configs/examples/two_nodes.yaml --vcd-window 5us --out " +
                     (dir / "c").string());
    EXPECT_EQ(f.exit_code, 2);
    EXPECT_EQ(f.err,
              "command line: error: --vcd-window: '5us' is not FROM:TO (e.g. 0:10us, 5us:)\n");
    auto g = trainvp("run configs/examples/two_nodes.yaml --vcd-signals 'node[2].*' --out " +
                     (dir / "d").string());
    EXPECT_EQ(g.exit_code, 2);
    EXPECT_NE(g.err.find("--vcd-signals: 'node[2].*' matches no signal (names look like "
                         "'node[0].host.cpu_busy'"),
              std::string::npos)
        << g.err;
}

}  // namespace
}  // namespace trainvp

namespace trainvp {
namespace {

// Issue 31: a run that stops early (here at max_time, in the middle of a 64 MB transfer whose
// links and PCIe slots were reserved whole when it started) reports its statistics over the
// time that ran, marks them incomplete, and shows no utilisation above 1.
TEST(cli, a_run_stopped_early_reports_statistics_over_the_time_that_ran) {
    auto dir = test::temp_dir("stopped_early");
    auto r = trainvp("run configs/examples/two_nodes.yaml --set simulation.max_time=20ms --out " +
                     dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("statistics incomplete: the run stopped at 20 ms (max_time)"),
              std::string::npos)
        << r.out;
    auto stats = nlohmann::json::parse(test::read_file(dir / "stats.json"));
    EXPECT_EQ(stats["run"]["status"], "max_time");
    EXPECT_EQ(stats["run"]["statistics"].get<std::string>().rfind("incomplete: ", 0), 0u);
    std::size_t fractions = 0;
    for (const auto& [path, block] : stats["blocks"].items()) {
        for (const auto& [name, s] : block["stats"].items()) {
            if (name.find("utilisation") == std::string::npos || !s["value"].is_number()) continue;
            ++fractions;
            EXPECT_LE(s["value"].get<double>(), 1.0) << path << "." << name;
            EXPECT_GE(s["value"].get<double>(), 0.0) << path << "." << name;
        }
    }
    EXPECT_GT(fractions, 10u);
}

}  // namespace
}  // namespace trainvp
