// platform/run_memory_estimate and workload_tally: the memory a run will need once its op streams
// are known (blocks as built, the hosts' op windows, the timeline's spans and the breakdown's
// records), against its closed form; and the refusal of a run above simulation.memory_limit, once
// the workload is handed out, naming the knobs (tests/unit/platform/test_simulation.cpp's way: the
// refusal elaborates SystemC, so it runs in its own process).
#include <gtest/gtest.h>

#include <chrono>

#include "core/units.h"
#include "kit/registry.h"
#include "platform/memory_estimate.h"
#include "platform/platform_loader.h"
#include "platform/run_memory_estimate.h"
#include "platform/simulation.h"
#include "platform/workload_tally.h"
#include "tests/support/sim_fixture.h"
#include "workloads/ops/op_list.h"
#include "workloads/ops/op_source.h"

namespace trainvp {
namespace {

using est = run_memory_estimate;

// N hosts of P ops per iteration over I iterations (one chunk per iteration): each holds two
// iterations at once; the timeline and the breakdown keep N x P x I ops; the program and the
// timeline's base are fixed.  Exact integers.
TEST(run_memory_estimate, is_hosts_times_ops_times_iterations_times_the_constants) {
    const std::uint64_t n = 4, p = 1234, i = 1000, blocks = 40;
    std::vector<est::host_ops> hosts;
    for (std::uint64_t h = 0; h < n; ++h)
        hosts.push_back({"node[" + std::to_string(h) + "]", p * i, i});
    const est all(blocks, hosts, true, true);
    EXPECT_EQ(all.ops(), n * p * i);
    EXPECT_EQ(all.window_ops(), n * 2 * p);
    EXPECT_EQ(all.block_bytes(), blocks * memory_estimate::k_bytes_per_block);
    EXPECT_EQ(all.window_bytes(), n * 2 * p * est::k_bytes_per_window_op);
    EXPECT_EQ(all.span_bytes(), est::k_timeline_base_bytes + n * p * i * est::k_bytes_per_span_op);
    EXPECT_EQ(all.breakdown_bytes(), n * p * i * est::k_bytes_per_breakdown_op);
    EXPECT_EQ(all.bytes(),
              est::k_program_bytes + blocks * memory_estimate::k_bytes_per_block +
                  n * 2 * p * est::k_bytes_per_window_op + est::k_timeline_base_bytes +
                  n * p * i * (est::k_bytes_per_span_op + est::k_bytes_per_breakdown_op));

    // The knobs: each recording off takes exactly its part away; the windows stay.
    const est quiet(blocks, hosts, false, false);
    EXPECT_EQ(quiet.span_bytes(), 0u);
    EXPECT_EQ(quiet.breakdown_bytes(), 0u);
    EXPECT_EQ(quiet.bytes(), all.bytes() - all.span_bytes() - all.breakdown_bytes());
    EXPECT_EQ(est(blocks, hosts, true, false).bytes(), all.bytes() - all.breakdown_bytes());
    EXPECT_EQ(est(blocks, hosts, false, true).bytes(), all.bytes() - all.span_bytes());
}

// A list in one chunk is held whole; chunks of unequal size count as ceil(ops / chunks) each.
TEST(run_memory_estimate, a_window_holds_two_chunks_or_the_whole_list) {
    EXPECT_EQ(est::window_of({"h", 5000, 1}), 5000u);
    EXPECT_EQ(est::window_of({"h", 5000, 2}), 5000u);
    EXPECT_EQ(est::window_of({"h", 5000, 10}), 1000u);
    EXPECT_EQ(est::window_of({"h", 7, 3}), 6u);  // ceil(7 / 3) = 3, two of them
    EXPECT_EQ(est::window_of({"h", 0, 0}), 0u);
    const std::uint64_t most = ~std::uint64_t{0};
    EXPECT_EQ(est::window_of({"h", most, most}), 2u);  // one op a chunk, no overflow
}

// Absurd counts saturate (2^46 each) instead of wrapping round to a small estimate.
TEST(run_memory_estimate, saturates_instead_of_wrapping) {
    const std::uint64_t huge = std::uint64_t{1} << 62;
    const est e(huge, {{"h", huge, 1}, {"g", huge, 3}}, true, true);
    EXPECT_GE(e.bytes(), std::uint64_t{1} << 46);
    EXPECT_LE(e.bytes(), std::uint64_t{1} << 46);
}

TEST(run_memory_estimate, parts_name_each_non_zero_part) {
    const est e(10, {{"a", 300, 3}, {"b", 300, 3}}, true, false);
    // 16 MiB; 10 x 16 KiB; 2 x 2 x 100 x 256 B; 8 MiB + 600 x 1300 B.
    EXPECT_EQ(e.parts(),
              "16.78 MB for the program + 163.8 KB for 10 blocks x ~16 KiB + 102.4 KB for the "
              "hosts' op windows (400 ops held "
              "x ~256 B) + 9.169 MB for the timeline (~8.389 MB + 600 ops run x ~1300 B)");
    EXPECT_EQ(e.bytes(), 16777216u + 10u * 16384 + 400 * 256 + 8388608 + 600 * 1300);
}

// A sink that keeps what it is given (what host.cpu would take).
struct kept_sink : workload_sink {
    std::size_t ops = 0, chunks = 0, lists = 0;
    void accept_workload(const config_node& list, const std::string&) override {
        lists += list.items().size();
    }
    void accept_source(std::unique_ptr<ops::op_source> src, const source_loc&,
                       const std::string&) override {
        ops += src->size();
        chunks += src->chunks();
    }
    workloads::host_run ran() override { return {}; }
};

// Two hosts and a memory.
struct three_blocks : drivers::platform_query {
    kept_sink a, b;
    std::vector<std::string> paths() const override { return {"a", "b", "mem"}; }
    std::optional<drivers::block_facts> block(const std::string& path) const override {
        drivers::block_facts f;
        f.path = path;
        f.type = path == "mem" ? "memory" : "host.cpu";
        if (path == "a") f.sink = const_cast<kept_sink*>(&a);
        if (path == "b") f.sink = const_cast<kept_sink*>(&b);
        if (path != "a" && path != "b" && path != "mem") return std::nullopt;
        return f;
    }
    std::vector<std::string> matching(const std::string&) const override { return {"a", "b"}; }
};

// platform/workload_tally: the sections get a stand-in for each block that runs ops; it counts
// what they hand out (a source's ops and chunks, a config list's items) and passes it on whole.
TEST(workload_tally, counts_what_the_sections_hand_out_and_passes_it_on) {
    three_blocks platform;
    const workload_tally tally(platform);
    const auto a = tally.block("a");
    ASSERT_TRUE(a && a->sink != nullptr);
    EXPECT_NE(a->sink, &platform.a);             // the stand-in
    EXPECT_EQ(tally.block("a")->sink, a->sink);  // one per block
    EXPECT_EQ(tally.block("mem")->sink, nullptr);
    EXPECT_FALSE(tally.block("nothing").has_value());
    EXPECT_EQ(tally.paths(), platform.paths());

    a->sink->accept_source(
        std::make_unique<ops::list_source>(ops::op_list(std::vector<ops::op>(7))), {}, "k");
    const config_node list =
        config_node::parse("[{op: delay, time: 1us}, {op: delay, time: 2us}]", "t.yaml");
    tally.block("b")->sink->accept_workload(list, "workload.ops.b");
    EXPECT_EQ(platform.a.ops, 7u);
    EXPECT_EQ(platform.a.chunks, 1u);
    EXPECT_EQ(platform.b.lists, 2u);

    const std::vector<est::host_ops> hosts = tally.hosts();
    ASSERT_EQ(hosts.size(), 2u);
    EXPECT_EQ(hosts[0].path, "a");
    EXPECT_EQ(hosts[0].ops, 7u);
    EXPECT_EQ(hosts[0].chunks, 1u);
    EXPECT_EQ(hosts[1].path, "b");
    EXPECT_EQ(hosts[1].ops, 2u);
    EXPECT_EQ(hosts[1].chunks, 1u);
}

// A run of 10^6 iterations with the timeline on (tests/configs/bad/run_memory_timeline.yaml,
// limit 8 GB) is refused once the workload is handed out, before anything runs, and fast: the
// training section hands its iterations out lazily (iteration_source), so nothing of the 10^6
// iterations is built.  The message names the timeline first (the largest saving).
TEST(run_memory_estimate, a_long_recorded_run_is_refused_before_it_runs) {
    const auto t0 = std::chrono::steady_clock::now();
    platform_loader loader(registry::global());
    simulation sim(loader.load("tests/configs/bad/run_memory_timeline.yaml"), registry::global());
    std::string error;
    try {
        sim.elaborate();
    } catch (const input_error& e) {
        error = e.what();
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_NE(error.find("run_memory_timeline.yaml:20:17: error: workload.training.iterations: "
                         "the run would need about 156 GB"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("; reduce it with simulation.timeline: false (saves 140.4 GB), "
                         "simulation.breakdown: false (saves 15.55 GB), fewer "
                         "workload.training.iterations (1000000), or raise"),
              std::string::npos)
        << error;
    // 0.02 s measured for `trainvp check` of it; 10 s leaves room for a loaded machine and the
    // sanitizers, and is far below what building 10^6 iterations would take.
    EXPECT_LT(s, 10.0);
}

// The same run with the timeline and the breakdown off holds two iterations per host: accepted
// (216 ops held and 10 blocks, well under 8 GB).
TEST(run_memory_estimate, the_same_run_without_recording_is_accepted) {
    platform_loader loader(registry::global());
    simulation sim(loader.load("tests/configs/bad/run_memory_timeline.yaml",
                               {"simulation.timeline=false", "simulation.breakdown=false"}),
                   registry::global());
    EXPECT_NO_THROW(sim.elaborate());
}

// Without a workload the run's estimate is the program and the blocks: above the limit it is
// located at the file, with no knob but the platform.  (The first estimate, 2 x 16 KiB, is under
// the limit: the program's 16 MiB is only in the second.)
TEST(run_memory_estimate, a_platform_without_workload_is_refused_at_the_file) {
    EXPECT_EQ(test::elaboration_error(R"(simulation: {memory_limit: 1MB, timeline: false}
components:
  gen: {type: traffic.generator, message_size: 4KiB, messages: 10}
  mem: {type: memory}
connections: [gen.out -> mem.target]
)"),
              "t.yaml: error: components: the run would need about 16.81 MB (16.78 MB for the "
              "program + 32.77 KB for 2 blocks x ~16 KiB), more than simulation.memory_limit (1 "
              "MB); reduce the platform or its ops, or raise simulation.memory_limit if the "
              "machine has the memory");
}

}  // namespace
}  // namespace trainvp
