// smartnic.md §III / Fig. 2a on configs/papers/smartnic: the software baseline's fitted
// constants and what they predict.  20-layer 2048 x 2048 MLP, batch 1792 per node, 6 nodes,
// 100 GbE, MPI ring.  The naive implementation (baseline_naive.yaml: all-reduce after the
// backward pass, one thread drives it) is the calibration point of the per-thread throughput
// of the software ring (nodes.yaml, host.cpu stack rates 34.6 Gb/s), fitted so that the
// exposed all-reduce is 51 % of its iteration; the ring's sums run on the thread at one
// core's bandwidth (12.8 GB/s from DRAM, Little's law; from the cache at 37 GB/s, the value
// issue 23's Fig. 4a calibration case fixes).  The overlapped implementation (baseline.yaml: 2
// comm cores, layer-wise overlap) is then a prediction: exposed all-reduce 50x less, total 1.85x
// less (unmasked numbers of §III); its backward +11 % fixes the receive path's interrupt work
// on the compute cores (stack.irq_share).  Fig. 4a's direction (the smart NIC is
// faster than the baseline) is checked at batch 448 and 1792, and issue 23's calibration case
// (its amounts at batch 448) at 448.
//
// Message granularity: it agrees with packet level on these configs within 0.002 % (measured:
// naive 634.836 ms at both; test_granularity checks the family) and runs 3-5x faster.  "Exposed
// all-reduce" = iteration time - forward - backward - update on the iteration's critical path (the
// `iteration` block of stats.json).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "tests/support/test_util.h"

namespace trainvp::test {
namespace {

struct fig2a_parts {
    double time, forward, backward, update, exposed;  // ms per iteration
};

// Runs CONFIG at message granularity with SETS; the output folder.
std::filesystem::path run_out(const std::string& prefix, const std::string& config,
                              const std::string& sets) {
    const std::string stem = config.substr(config.find_last_of('/') + 1);
    const auto dir = temp_dir(prefix + stem + "_" + std::to_string(sets.size()));
    const auto r = run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN +
                               " run " + config + " --quiet --force --out " + dir.string() +
                               " --set simulation.granularity=message " + sets);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return dir;
}

fig2a_parts run_ms(const std::string& config, const std::string& sets = "") {
    const auto dir = run_out("fig2a_", config, sets);
    const auto stats = nlohmann::json::parse(read_file(dir / "stats.json"));
    const auto& it = stats["blocks"]["iteration"]["stats"];
    const auto ms = [&](const char* k) { return it[k]["value"].get<double>() * 1e-6; };
    fig2a_parts p{ms("time"), ms("forward"), ms("backward"), ms("update"), 0};
    p.exposed = p.time - p.forward - p.backward - p.update;
    return p;
}

// Fig. 4a's breakdown as docs/validation.md (tools/validate_smartnic.py) defines it: forward,
// backward and update are node[0]'s compute-core spans (timeline), the exposed all-reduce the
// rest of its iteration (the critical path of a comm-bound iteration runs through the ring,
// so the `iteration` block's forward/backward would not measure the compute cores).
fig2a_parts run_timeline_ms(const std::string& config, const std::string& sets = "") {
    const auto dir = run_out("fig4a_", config, sets);
    const auto stats = nlohmann::json::parse(read_file(dir / "stats.json"));
    fig2a_parts p{
        stats["blocks"]["node[0].host"]["stats"]["completion_time"]["value"].get<double>() * 1e-6,
        0, 0, 0, 0};
    const auto tl = nlohmann::json::parse(read_file(dir / "timeline.json"));
    const auto& events = tl.is_object() ? tl["traceEvents"] : tl;
    std::map<std::pair<long long, long long>, std::string> track;
    for (const auto& e : events) {
        if (e.value("ph", "") == "M" && e.contains("args") && e["args"].contains("name")) {
            track[{e.value("pid", 0LL), e.value("tid", 0LL)}] =
                e["args"]["name"].get<std::string>();
        }
    }
    for (const auto& e : events) {
        if (e.value("ph", "") != "X") continue;
        const auto t = track.find({e.value("pid", 0LL), e.value("tid", 0LL)});
        if (t == track.end() || t->second != "node[0].host.cpu") continue;
        const std::string name = e.value("name", "");
        const double ms = e["dur"].get<double>() * 1e-3;  // us
        if (name.rfind("fwd_", 0) == 0) p.forward += ms;
        if (name.rfind("bwd_", 0) == 0) p.backward += ms;
        if (name.rfind("update_", 0) == 0) p.update += ms;
    }
    p.exposed = p.time - p.forward - p.backward - p.update;
    return p;
}

const char* const k_naive = "configs/papers/smartnic/baseline_naive.yaml";
const char* const k_overlapped = "configs/papers/smartnic/baseline.yaml";
const char* const k_smartnic = "configs/papers/smartnic/smartnic.yaml";

// The calibration point.  Tolerance 0.5 percentage points: the fitted rate is rounded to three
// digits (34.6 Gb/s: +0.02 pp); the rest is room for small model changes elsewhere (measured
// 51.02 %).
TEST(smartnic_fig2a, naive_exposed_allreduce_is_51_percent_the_calibration_point) {
    const auto n = run_ms(k_naive);
    EXPECT_NEAR(n.exposed / n.time, 0.51, 0.005) << "exposed " << n.exposed << " of " << n.time;
}

// Fig. 2a's other figures, predicted from the one constant and the progress threads (1 in
// naive: a step's send and receive in turn; the 2 comm cores overlapped: side by side).
TEST(smartnic_fig2a, overlapped_implementation_is_predicted) {
    const auto n = run_ms(k_naive);
    const auto o = run_ms(k_overlapped, "--set workload.training.batch=1792");
    // 1.85x less total time: measured 1.829x.  Tolerance 5 %: the compute (49 % of naive)
    // runs at peak (no measured efficiency is published); a thread-independent software cost
    // would give 1.6x.
    EXPECT_NEAR(n.time / o.time, 1.85, 0.05 * 1.85) << n.time << " / " << o.time;
    // 50x less exposed all-reduce: measured 43x (critical path; 47x with the timeline's
    // definition in docs/validation.md).  Loose, a factor of 2 either way: the overlapped
    // exposed time is ~2 % of the iteration, the last bucket's exchange and the update's tail,
    // and every small term moves it; it still tells the layer-wise overlap working (this) from
    // not working (a thread-independent cost: ~5x).
    const double ratio = n.exposed / o.exposed;
    EXPECT_GT(ratio, 25.0) << n.exposed << " / " << o.exposed;
    EXPECT_LT(ratio, 100.0) << n.exposed << " / " << o.exposed;
    // Backward +11 %: the calibration of stack.irq_share (nodes.yaml).  host.cpu's core split
    // runs the pass's compute part on 26 of 28 cores, so the pass grows by at least 2/26 of
    // that part: 20 layers x 4 B 2048^2 FLOPs (data and weight gradients, 2 FLOPs per
    // multiply-add) at the Xeon 8280's 3.2256 TFLOP/s (nodes.yaml), 186.4 ms -> +14.34 ms
    // (+7.2 % in all, its memory traffic not split); the receive path's interrupt work on the
    // compute cores adds the rest, fitted to +11 % (measured +11.0 %).  Tolerance 0.5 pp: the
    // fitted share rounded to three digits (0.062: +-0.06 pp) and room for small model changes.
    const double compute_ms = 20.0 * 4.0 * 1792.0 * 2048.0 * 2048.0 / 3.2256e12 * 1e3;
    EXPECT_GT(o.backward - n.backward, 2.0 / 26.0 * compute_ms - 0.1);
    EXPECT_NEAR(o.backward / n.backward - 1.0, 0.11, 0.005);
}

// Fig. 4a's direction (amounts held out): the smart NIC reduces the iteration time against
// the calibrated baseline.  Uncalibrated, in arrival-time service order, the baseline was the
// faster one at batch 448 (103.0 vs 145.4 ms; docs/status.md).
// Measured: 145.4 vs 185.1 ms at batch 448 (1.27x), 316.5 vs 347.6 ms at 1792 (1.10x).
TEST(smartnic_fig4a, smart_nic_is_faster_than_the_baseline_at_batch_448) {
    const auto b = run_ms(k_overlapped);
    const auto s = run_ms(k_smartnic);
    EXPECT_LT(s.time, b.time) << "smart NIC " << s.time << " ms, baseline " << b.time << " ms";
}

// Issue 23's calibration case, smartnic.md §V-B Fig. 4a at batch 448, the smart NIC without
// BFP against the baseline: exposed all-reduce -37 %, backward -10 %, total -18 %.  It fixes
// one param, the progress thread's sum bandwidth from the cache (nodes.yaml: 37 GB/s):
// measured -37.0 %, within 5 % of -37 % (relative).  The other two are predictions, measured
// -11.0 % (the core split and the interrupt work fitted on Fig. 2a at batch 1792) and -21.4 %:
// within 5 percentage points (relative errors 10 % and 19 %, in docs/validation.md, which
// also shows the three figures cannot all hold against the smart NIC's simulated rows).
TEST(smartnic_fig4a, calibration_case_at_batch_448) {
    const auto b = run_timeline_ms(k_overlapped);
    const auto s = run_timeline_ms(k_smartnic);
    const double exposed = 100.0 * (s.exposed / b.exposed - 1.0);
    const double backward = 100.0 * (s.backward / b.backward - 1.0);
    const double total = 100.0 * (s.time / b.time - 1.0);
    EXPECT_NEAR(exposed, -37.0, 0.05 * 37.0) << s.exposed << " vs " << b.exposed << " ms";
    EXPECT_NEAR(backward, -10.0, 5.0) << s.backward << " vs " << b.backward << " ms";
    EXPECT_NEAR(total, -18.0, 5.0) << s.time << " vs " << b.time << " ms";
}

TEST(smartnic_fig4a, smart_nic_is_faster_than_the_baseline_at_batch_1792) {
    const auto b = run_ms(k_overlapped, "--set workload.training.batch=1792");
    const auto s = run_ms(k_smartnic, "--set workload.training.batch=1792");
    EXPECT_LT(s.time, b.time) << "smart NIC " << s.time << " ms, baseline " << b.time << " ms";
}

}  // namespace
}  // namespace trainvp::test
