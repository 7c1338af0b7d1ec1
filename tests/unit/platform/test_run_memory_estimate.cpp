// platform/run_memory_estimate: the memory a run will need once its op streams are known
// (blocks as built, the hosts' op windows, the timeline's spans and the breakdown's records),
// against its closed form; and the refusal of a run above simulation.memory_limit, once the
// workload is handed out, naming the knobs (tests/unit/platform/test_simulation.cpp's way:
// the refusal elaborates SystemC, so it runs in its own process).
#include <gtest/gtest.h>

#include <chrono>

#include "core/units.h"
#include "kit/registry.h"
#include "platform/memory_estimate.h"
#include "platform/platform_loader.h"
#include "platform/run_memory_estimate.h"
#include "platform/simulation.h"

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

}  // namespace
}  // namespace trainvp
