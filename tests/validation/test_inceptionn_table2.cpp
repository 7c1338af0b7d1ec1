// inceptionn.md Table II (worker-aggregator, 4 workers + 1 aggregator, 10 GbE) on
// configs/papers/inceptionn: the rows the platform predicts, within the 15 %, for the
// two models that run fast enough for a test (AlexNet and VGG-16 take seconds each; their rows
// are in docs/validation.md, from tools/validate_inceptionn.py, with the misses explained).
// Table II's numbers are 100-iteration seconds: /100 -> per iteration, x1000 -> ms, i.e. x10.
// Forward and backward are the configs' inputs; the update row misses for every model
// (docs/validation.md note U1) and is not asserted.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_util.h"
#include "tests/validation/run_config.h"

namespace trainvp::test {
namespace {

constexpr double k_row_tolerance = 0.15;  // the target per Table II row

void expect_row(const std::map<std::string, double>& b, const std::string& part,
                double table_seconds) {
    const double paper_ms = table_seconds * 10.0;
    EXPECT_NEAR(b.at(part), paper_ms, k_row_tolerance * paper_ms) << part;
}

void expect_parts_add_up(const std::map<std::string, double>& b) {
    double sum = 0;
    for (const auto& [k, v] : b) {
        if (k != "time") sum += v;
    }
    // The parts are integer ps that add up exactly; the tolerance covers the double division.
    EXPECT_NEAR(sum, b.at("time"), 1e-9 * b.at("time"));
}

TEST(inceptionn_table2, hdc_worker_aggregator) {
    const auto b = breakdown_ms("configs/papers/inceptionn/wa_hdc.yaml");
    expect_parts_add_up(b);
    EXPECT_NEAR(b.at("forward"), 0.8, 1e-9);  // inputs, exact
    EXPECT_NEAR(b.at("backward"), 0.7, 1e-9);
    EXPECT_EQ(b.at("copy"), 0.0);  // Table II: "-" (HDC trains on the host)
    expect_row(b, "sum", 0.09);
    expect_row(b, "comm", 1.36);
    expect_row(b, "time", 1.7);
}

TEST(inceptionn_table2, resnet50_worker_aggregator) {
    const auto b = breakdown_ms("configs/papers/inceptionn/wa_resnet50.yaml");
    expect_parts_add_up(b);
    expect_row(b, "copy", 2.24);
    expect_row(b, "sum", 3.68);
    expect_row(b, "comm", 60.58);
    expect_row(b, "time", 75.55);
}

// Issue 23's calibration case, inceptionn.md §VIII-A, AlexNet: "INC ... 52 % shorter total
// training time than WA, due to a 55 % reduction in communication time".  It fixed one param
// (node.yaml: host.cpu stack send_rate = recv_rate, 9.2 Gb/s); both figures within 5 %
// (relative: the tolerance for a calibration case).  The same WA run must keep Table
// II's AlexNet rows within their 15 %.
TEST(inceptionn_calibration, alexnet_inc_against_wa) {
    const auto wa = breakdown_ms("configs/papers/inceptionn/wa_alexnet.yaml");
    const auto inc = breakdown_ms("configs/papers/inceptionn/inc_alexnet.yaml");
    const double comm_reduction = 1.0 - inc.at("comm") / wa.at("comm");
    const double total_reduction = 1.0 - inc.at("time") / wa.at("time");
    EXPECT_NEAR(comm_reduction, 0.55, 0.05 * 0.55);
    EXPECT_NEAR(total_reduction, 0.52, 0.05 * 0.52);
    expect_row(wa, "comm", 148.71);
    expect_row(wa, "time", 196.35);
}

TEST(inceptionn_table2, ring_exchanges_less_than_worker_aggregator) {
    // INC is a prediction; what must hold whatever the numbers: Alg. 1 moves 2(p-1)/p of the
    // gradients per worker link instead of the aggregator's p + log p (inceptionn.md §VIII-D),
    // so with p = 4 its communication is below a third of WA's (Table II: 1.36 s / 100).
    const auto inc = breakdown_ms("configs/papers/inceptionn/inc_hdc.yaml");
    EXPECT_LT(inc.at("comm"), 13.6 / 3.0);
}

TEST(inceptionn_table2, iterations_repeat_the_same_iteration) {
    // After the exchange, the next iteration's forward pass waits for its weights, so three
    // iterations take three times one: the mean equals the single iteration's time.  Not to
    // the ps: frame times are rounded to ps from different absolute start times, and the
    // iterations differ by a few ns (1.6 ppm measured); 10 ppm allows for that and would still
    // catch a missed dependency (a forward pass overlapping the previous exchange: > 1 %).
    // One run in this process, one through the CLI.
    const auto three =
        breakdown_ms("configs/papers/inceptionn/inc_hdc.yaml", {"workload.training.iterations=3"});
    const auto dir = temp_dir("iterations");
    const auto r =
        run_command(std::string(TRAINVP_BIN) +
                    " run configs/papers/inceptionn/inc_hdc.yaml --quiet --out " + dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto stats = nlohmann::json::parse(read_file(dir / "stats.json"));
    const auto& one = stats["blocks"]["iteration"]["stats"];
    const double time_ms = one["time"]["value"].get<double>() * 1e-6;
    const double comm_ms = one["comm"]["value"].get<double>() * 1e-6;
    EXPECT_NEAR(three.at("time"), time_ms, 1e-5 * time_ms);
    EXPECT_NEAR(three.at("comm"), comm_ms, 1e-5 * comm_ms);
    EXPECT_EQ(stats["blocks"]["iteration"]["stats"]["iterations"]["value"], 1);
}

}  // namespace
}  // namespace trainvp::test
