// Output documents: stats.json/csv structure, timeline.json trace-event fields, and the VCD
// header and value changes.  Each TEST elaborates SystemC and so runs in its own process.
#include <gtest/gtest.h>

#include <sysc/tracing/sc_tracing_ids.h>

#include <nlohmann/json.hpp>

#include "tests/support/sim_fixture.h"
#include "tests/support/test_util.h"
#include "traces/signal_glob.h"

namespace trainvp {
namespace {

const std::string k_pair = R"(
components:
  node:
    count: 2
    components:
      gen: {type: traffic.generator, message_size: 4KiB, messages: 5}
      mem: {type: memory}
    connections: [gen.out -> mem.target]
)";

TEST(outputs, stats_json_has_every_declared_stat_with_its_unit) {
    auto sim = test::make_sim(k_pair);
    sim->elaborate();
    run_result r = sim->run();
    auto j = nlohmann::json::parse(sim->stats_json(r));
    EXPECT_EQ(j["run"]["status"], "finished");
    EXPECT_EQ(j["run"]["sim_time_ps"], 5u * 160000u + 80000u);
    for (const char* block : {"node[0].gen", "node[0].mem", "node[1].gen", "node[1].mem"}) {
        ASSERT_TRUE(j["blocks"].contains(block)) << block;
        const auto& b = j["blocks"][block];
        const type_info* t = registry::global().find(b["type"]);
        ASSERT_NE(t, nullptr);
        for (const auto& s : t->stats) {
            // Per-port stats are written once per socket: name[0], name[1], ...
            const std::string key = b["stats"].contains(s.name) ? s.name : s.name + "[0]";
            ASSERT_TRUE(b["stats"].contains(key)) << block << "." << s.name;
            EXPECT_EQ(b["stats"][key]["unit"], s.unit);
        }
    }
    EXPECT_EQ(j["blocks"]["node[1].mem"]["stats"]["bytes_written"]["value"], 5u * 4096u);
    const std::string csv = sim->stats_csv(r);
    EXPECT_EQ(csv.substr(0, csv.find('\n')), "block,type,stat,value,unit,count,mean,min,max");
    EXPECT_NE(csv.find("\nnode[1].mem,memory,bytes_written,20480,B,,,,\n"), std::string::npos)
        << csv;
}

TEST(outputs, timeline_is_trace_event_json_with_one_track_per_block) {
    auto sim = test::make_sim(k_pair);
    sim->elaborate();
    sim->run();
    auto j = nlohmann::json::parse(sim->timeline_json());
    ASSERT_TRUE(j["traceEvents"].is_array());
    int spans = 0, threads = 0, processes = 0;
    for (const auto& e : j["traceEvents"]) {
        ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid") &&
                    e.contains("name"));
        if (e["ph"] == "X") {
            ++spans;
            EXPECT_TRUE(e["ts"].is_number() && e["dur"].is_number() && e.contains("cat"));
            EXPECT_GE(e["dur"].get<double>(), 0.0);
        } else if (e["name"] == "thread_name") {
            ++threads;
        } else if (e["name"] == "process_name") {
            ++processes;
        }
    }
    EXPECT_EQ(spans, 10);     // one per message
    EXPECT_EQ(threads, 2);    // one track per generator
    EXPECT_EQ(processes, 2);  // one process per node
    // The first message of a node: issued at 0, done after 160 ns of data + 80 ns latency.
    bool found = false;
    for (const auto& e : j["traceEvents"]) {
        if (e["ph"] == "X" && e["name"] == "msg 0") {
            EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 0.0);
            EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 0.24);  // microseconds
            found = true;
        }
    }
    EXPECT_TRUE(found);
}

TEST(outputs, vcd_has_a_header_and_value_changes) {
    auto dir = test::temp_dir("vcd");
    auto sim = test::make_sim(k_pair);
    sim->elaborate();
    sim->trace_to((dir / "waves.vcd.part").string());
    run_result r = sim->run();
    sim->write_outputs(dir.string(), r);
    const std::string vcd = test::read_file(dir / "waves.vcd");
    for (const char* tag : {"$date", "$version", "$timescale", "$scope module node[0] $end",
                            "$scope module mem $end", "$enddefinitions", "$dumpvars"}) {
        EXPECT_NE(vcd.find(tag), std::string::npos) << tag;
    }
    EXPECT_NE(vcd.find("1 ps"), std::string::npos);
    EXPECT_NE(vcd.find("busy"), std::string::npos);
    // The memory is busy from 0 to 5 x 160 ns = 800 ns: a timestamp #800000 must appear, with
    // the busy bit falling there.
    EXPECT_NE(vcd.find("\n#800000\n"), std::string::npos);
    std::size_t changes = 0;
    for (std::size_t p = vcd.find("\n#"); p != std::string::npos; p = vcd.find("\n#", p + 1)) {
        ++changes;
    }
    EXPECT_GE(changes, 3u);
    for (const char* f : {"stats.json", "stats.csv", "timeline.json", "config.resolved.yaml"}) {
        EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "waves.vcd.part.vcd"));
    EXPECT_FALSE(std::filesystem::exists(dir / "stats.json.tmp"));
}

// A SystemC tracing warning that means the VCD lost something (here: an object it could not
// trace) fails the run with that warning instead of leaving a file that looks complete.
TEST(outputs, a_systemc_warning_that_loses_vcd_output_fails_the_run) {
    auto dir = test::temp_dir("vcd_loss");
    auto sim = test::make_sim(k_pair);
    sim->elaborate();
    sim->trace_to((dir / "waves.vcd.part").string());
    SC_REPORT_WARNING(sc_core::SC_ID_TRACING_OBJECT_IGNORED_, "node[0].mem.probe");
    run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FAILED);
    EXPECT_EQ(r.error,
              "waves.vcd is incomplete: SystemC reported object cannot not be traced: "
              "node[0].mem.probe");
}

// --vcd-signals and --vcd-window: only node[1]'s signals (the generator's in_flight, the
// memory's busy and queue), and only from 200 ns to 600 ns: the values are brought up to date
// at 200 ns (5 messages in flight, the memory busy, 4 queued), then every change inside the
// window; none after it (the memory goes idle at 800 ns), and SystemC's closing timestamp.
TEST(outputs, vcd_takes_signal_globs_and_a_time_window) {
    auto dir = test::temp_dir("vcd_window");
    auto sim = test::make_sim(k_pair);
    sim->elaborate();
    vcd_options opt;
    opt.signals = {"node[1].*"};
    opt.from_ps = 200000;
    opt.to_ps = 600000;
    sim->trace_to((dir / "waves.vcd.part").string(), opt);
    EXPECT_EQ(sim->traced_signals(), 3u);
    run_result r = sim->run();
    sim->write_outputs(dir.string(), r);
    const std::string vcd = test::read_file(dir / "waves.vcd");
    EXPECT_NE(vcd.find("$scope module node[1] $end"), std::string::npos) << vcd;
    EXPECT_EQ(vcd.find("node[0]"), std::string::npos) << vcd;
    EXPECT_EQ(vcd.find("node(1)"), std::string::npos) << vcd;
    std::vector<std::string> stamps;
    for (std::size_t p = vcd.find("\n#"); p != std::string::npos; p = vcd.find("\n#", p + 1)) {
        stamps.push_back(vcd.substr(p + 2, vcd.find('\n', p + 1) - p - 2));
    }
    EXPECT_EQ(stamps, (std::vector<std::string>{"200000", "240000", "320000", "400000", "480000",
                                                "560000", "880000"}))
        << vcd;
    EXPECT_NE(vcd.find("#200000\nr5 aaaaa\n1aaaab\nr4 aaaac\n"), std::string::npos) << vcd;
}

TEST(outputs, vcd_signal_glob_that_matches_nothing_is_an_input_error) {
    auto dir = test::temp_dir("vcd_glob");
    auto sim = test::make_sim(k_pair);
    sim->elaborate();
    vcd_options opt;
    opt.signals = {"node[0].*", "nod[1].*"};
    try {
        sim->trace_to((dir / "waves.vcd.part").string(), opt);
        FAIL() << "no error";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("'nod[1].*' matches no signal (names look like "
                                             "'node[0].gen.in_flight'"),
                  std::string::npos)
            << e.what();
    }
}

TEST(signal_glob, star_question_mark_and_literal_brackets) {
    EXPECT_TRUE(signal_glob::match("node[0].*", "node[0].nic.tx_busy"));
    EXPECT_FALSE(signal_glob::match("node[0].*", "node[10].nic.tx_busy"));
    EXPECT_TRUE(signal_glob::match("node[*].nic.*", "node[12].nic.rx_busy"));
    EXPECT_TRUE(signal_glob::match("*.tx_queue", "node[3].nic.tx_queue"));
    EXPECT_FALSE(signal_glob::match("*.tx_queue", "node[3].nic.tx_queue_2"));
    EXPECT_TRUE(signal_glob::match("node[?].*", "node[7].link.busy_ab"));
    EXPECT_FALSE(signal_glob::match("node[?].*", "node[17].link.busy_ab"));
    signal_glob g({"a.*,b.*", "c"});
    EXPECT_TRUE(g.matches("b.x"));
    EXPECT_FALSE(g.matches("d"));
    EXPECT_EQ(g.unmatched(), (std::vector<std::string>{"a.*", "c"}));
}

}  // namespace
}  // namespace trainvp
