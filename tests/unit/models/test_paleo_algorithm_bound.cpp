// How much of PALEO's published AlexNet estimate (paleo.md Table 1: forward 45.96 ms, backward
// 118.44 ms on a TITAN X) the per-layer algorithm choice decides.  The PALEO authors asked
// cuDNN v4 which algorithm it would run for each layer and operation
// (TalwalkarLab/paleo paleo/profilers/cudnn_profiler.py) and did not publish the answers;
// trainvp states a rule instead (conv_heuristic_registry.cpp, `cudnn_v4_like`).  With the
// same layer costs (paleo.md §3), every operation cuDNN could have run by GEMM or by FFT
// (unit stride, a filter wider than 1x1) moves the pass between the sum of its cheaper and the
// sum of its dearer choices.  This measures that interval: the published totals lie inside it,
// and it is several times wider than the +-5 % band that issue 24 asks of the backward pass
// against PALEO's own estimate, so meeting that band is a matter of matching undisclosed
// choices (docs/status.md, issue 24), not of the cost model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "workloads/models/conv_problem.h"
#include "workloads/models/device_model.h"
#include "workloads/models/layer_cost_model.h"
#include "workloads/models/model_loader.h"

namespace trainvp::models {
namespace {

struct pass_bounds {
    double low = 0, high = 0, rule = 0;  // seconds
};

// The forward or backward pass of `m` on `d`: per convolution operation the cheaper and the
// dearer of GEMM and FFT where both are possible, GEMM elsewhere; every other layer as costed.
pass_bounds bounds(const model& m, const device_model& d, bool backward) {
    const layer_cost_model rule({"cudnn_v4_like", 4294967296.0});
    pass_bounds b;
    for (const layer_info& l : m.layers()) {
        const layer_costs c = rule.cost(l, m.batch(), m.bytes_per_value());
        b.rule += backward ? d.seconds(c.backward_data) + d.seconds(c.backward_filter)
                           : d.seconds(c.forward);
        const bool conv = l.kind == layer_kind::CONV;
        const bool fft_possible = conv && l.spec.stride_h == 1 && l.spec.stride_w == 1 &&
                                  !(l.spec.kernel_h == 1 && l.spec.kernel_w == 1);
        const std::vector<layer_op> ops =
            backward ? std::vector<layer_op>{layer_op::BACKWARD_DATA, layer_op::BACKWARD_FILTER}
                     : std::vector<layer_op>{layer_op::FORWARD};
        for (layer_op op : ops) {
            const double as_costed = d.seconds(c.of(op));
            if (!fft_possible || as_costed == 0.0) {  // no choice (or no data gradient)
                b.low += as_costed;
                b.high += as_costed;
                continue;
            }
            const conv_problem p =
                conv_problem::of(l, op, m.batch(), m.bytes_per_value(), dilation_zeros::SKIPPED);
            const double g = d.seconds(p.gemm());
            const double f = d.seconds(p.fft(false));
            b.low += std::min(g, f);
            b.high += std::max(g, f);
        }
    }
    return b;
}

TEST(PaleoAlgorithmBound, AlexNetPassesSpanMoreThanTheTargetOverCudnnsChoices) {
    model_options o;
    o.batch = 128;  // nets/alex_v2.json
    const model m = load_zoo_model("alexnet_v2", o);
    // TITAN X as paleo/device.py gives it, PPP 0.62 (scripts/exp_layers.sh), 4 GB workspace.
    const device_model d{6.144e12, 336.5 * 1073741824.0, 0.62, 0.62};
    const pass_bounds fwd = bounds(m, d, false);
    const pass_bounds bwd = bounds(m, d, true);
    // The published estimates are choices cuDNN could make: inside the intervals.
    EXPECT_LT(fwd.low, 45.96e-3);
    EXPECT_GT(fwd.high, 45.96e-3);
    EXPECT_LT(bwd.low, 118.44e-3);
    EXPECT_GT(bwd.high, 118.44e-3);
    // The rule's passes are inside too (they are one of the choices).
    EXPECT_GE(bwd.rule, bwd.low);
    EXPECT_LE(bwd.rule, bwd.high);
    // Measured (ms): forward 36.6 .. 64.0, backward 109.9 .. 157.7 (the rule: 44.4 and
    // 125.4): the backward interval is 47.8 ms wide, 40 % of PALEO's 118.44 ms, four times the
    // width of a +-5 % band; asserted wider than three times (a margin for cost-model changes).
    EXPECT_GT(bwd.high - bwd.low, 3.0 * 0.10 * 118.44e-3) << bwd.low << " .. " << bwd.high;
    RecordProperty("forward_ms",
                   std::to_string(fwd.low * 1e3) + " .. " + std::to_string(fwd.high * 1e3));
    RecordProperty("backward_ms",
                   std::to_string(bwd.low * 1e3) + " .. " + std::to_string(bwd.high * 1e3));
    std::printf("forward %.2f .. %.2f ms (rule %.2f), backward %.2f .. %.2f ms (rule %.2f)\n",
                fwd.low * 1e3, fwd.high * 1e3, fwd.rule * 1e3, bwd.low * 1e3, bwd.high * 1e3,
                bwd.rule * 1e3);
}

}  // namespace
}  // namespace trainvp::models
