// smartnic.md §III / Fig. 2a on configs/papers/smartnic: the software baseline's one fitted
// constant and what it predicts.  20-layer 2048 x 2048 MLP, batch 1792 per node, 6 nodes,
// 100 GbE, MPI ring.  The naive implementation (baseline_naive.yaml: all-reduce after the
// backward pass, one thread drives it) is the calibration point: the per-thread throughput of
// the software ring (nodes.yaml, host.cpu stack rates 28.2 Gb/s) is fitted so that the
// exposed all-reduce is 51 % of its iteration.  The overlapped implementation (baseline.yaml: 2
// comm cores, layer-wise overlap) is then a prediction: exposed all-reduce 50x less, total 1.85x
// less, backward +11 % (all unmasked numbers of §III).  Fig. 4a's direction (the smart NIC is
// faster than the baseline; its amounts are held out) is checked at batch 448 and 1792.
//
// Message granularity: it agrees with packet level on these configs within 0.002 % (measured:
// naive 634.836 ms at both; test_granularity checks the family) and runs 3-5x faster.  "Exposed
// all-reduce" = iteration time - forward - backward - update on the iteration's critical path (the
// `iteration` block of stats.json).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_util.h"

namespace trainvp::test {
namespace {

struct fig2a_parts {
    double time, forward, backward, update, exposed;  // ms per iteration
};

fig2a_parts run_ms(const std::string& config, const std::string& sets = "") {
    const std::string stem = config.substr(config.find_last_of('/') + 1);
    const auto dir = temp_dir("fig2a_" + stem + "_" + std::to_string(sets.size()));
    const auto r = run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN +
                               " run " + config + " --quiet --force --out " + dir.string() +
                               " --set simulation.granularity=message " + sets);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto stats = nlohmann::json::parse(read_file(dir / "stats.json"));
    const auto& it = stats["blocks"]["iteration"]["stats"];
    const auto ms = [&](const char* k) { return it[k]["value"].get<double>() * 1e-6; };
    fig2a_parts p{ms("time"), ms("forward"), ms("backward"), ms("update"), 0};
    p.exposed = p.time - p.forward - p.backward - p.update;
    return p;
}

const char* const k_naive = "configs/papers/smartnic/baseline_naive.yaml";
const char* const k_overlapped = "configs/papers/smartnic/baseline.yaml";
const char* const k_smartnic = "configs/papers/smartnic/smartnic.yaml";

// The calibration point.  Tolerance 0.5 percentage points: the fitted rate is rounded to three
// digits (28.2 Gb/s for 28.15: 0.05 pp); the rest is room for small model changes elsewhere
// (measured 50.96 %).
TEST(smartnic_fig2a, naive_exposed_allreduce_is_51_percent_the_calibration_point) {
    const auto n = run_ms(k_naive);
    EXPECT_NEAR(n.exposed / n.time, 0.51, 0.005) << "exposed " << n.exposed << " of " << n.time;
}

// Fig. 2a's other figures, predicted from the one constant and the progress threads (1 in
// naive: a step's send and receive in turn; the 2 comm cores overlapped: side by side).
TEST(smartnic_fig2a, overlapped_implementation_is_predicted) {
    const auto n = run_ms(k_naive);
    const auto o = run_ms(k_overlapped, "--set workload.training.batch=1792");
    // 1.85x less total time: measured 1.858x.  Tolerance 5 %: the compute (49 % of naive)
    // runs at peak (no measured efficiency is published) and the backward slow-down is
    // 28/26 instead of 1.11 (below); a thread-independent software cost would give 1.4x.
    EXPECT_NEAR(n.time / o.time, 1.85, 0.05 * 1.85) << n.time << " / " << o.time;
    // 50x less exposed all-reduce: measured 39x (critical path; 42x with the timeline's
    // definition in docs/validation.md).  Loose, a factor of 2 either way: the overlapped
    // exposed time is ~2 % of the iteration, the last bucket's exchange and the update's tail,
    // and every small term moves it; it still tells the layer-wise overlap working (this) from
    // not working (a thread-independent cost: ~3x).
    const double ratio = n.exposed / o.exposed;
    EXPECT_GT(ratio, 25.0) << n.exposed << " / " << o.exposed;
    EXPECT_LT(ratio, 100.0) << n.exposed << " / " << o.exposed;
    // Backward +11 %: host.cpu's core split gives exactly 28/26 = +7.7 % (the compute part;
    // the memory part is not split), tolerance 0.2 pp for the memory traffic of the ops.  The
    // paper's remaining 3.3 pp (the comm threads' memory and cache pressure on the compute
    // cores) are not modelled: a known miss, written in docs/validation.md.
    EXPECT_NEAR(o.backward / n.backward - 1.0, 28.0 / 26.0 - 1.0, 0.002);
    EXPECT_NEAR(o.backward / n.backward - 1.0, 0.11, 0.04);  // loose: the 3.3 pp miss above
}

// Fig. 4a's direction (amounts held out): the smart NIC reduces the iteration time against
// the calibrated baseline.  Uncalibrated, in arrival-time service order, the baseline was the
// faster one at batch 448 (103.0 vs 145.4 ms; docs/status.md).
// Measured: 145.4 vs 198.8 ms at batch 448 (1.37x), 316.5 vs 341.6 ms at 1792 (1.08x).
TEST(smartnic_fig4a, smart_nic_is_faster_than_the_baseline_at_batch_448) {
    const auto b = run_ms(k_overlapped);
    const auto s = run_ms(k_smartnic);
    EXPECT_LT(s.time, b.time) << "smart NIC " << s.time << " ms, baseline " << b.time << " ms";
}

TEST(smartnic_fig4a, smart_nic_is_faster_than_the_baseline_at_batch_1792) {
    const auto b = run_ms(k_overlapped, "--set workload.training.batch=1792");
    const auto s = run_ms(k_smartnic, "--set workload.training.batch=1792");
    EXPECT_LT(s.time, b.time) << "smart NIC " << s.time << " ms, baseline " << b.time << " ms";
}

}  // namespace
}  // namespace trainvp::test
