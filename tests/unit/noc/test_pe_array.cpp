// The chiplet PE array (noc/chiplet/pe_array_model) against closed forms, with aries.md
// Table II's chiplet: 16 PEs of 32x32 multipliers at 1 GHz (16384 multiply-adds per cycle),
// a 4 MB global buffer, and the assumed 256 GB/s DRAM.
//   - GEMM dims that are multiples of 32 with a multiple of 16 tiles: peak, m*k*n/16384 cycles;
//   - a 33-wide reduction: ceil(33/32) = 2 tiles where 1.03 would do: utilisation 33/64;
//   - fewer tiles than PEs: the streamed rows are split over the idle PEs;
//   - a layer whose operands overflow the global buffer: exactly bytes / bandwidth.
// All expectations are exact (integer cycles and picoseconds): the model is closed-form.
#include <gtest/gtest.h>

#include <cmath>

#include "noc/chiplet/pe_array_compute_model.h"
#include "noc/chiplet/pe_array_model.h"
#include "workloads/models/model_loader.h"
#include "workloads/models/roofline_compute_model.h"

namespace trainvp::noc {
namespace {

models::model load(const std::string& yaml, std::int64_t batch) {
    models::model_options o;
    o.batch = batch;
    return models::parse_model(yaml, "test.yaml", o);
}

std::string fc_model(int in, int out) {
    return "name: t\nsource: test\ninput: {features: " + std::to_string(in) +
           "}\nlayers:\n  - {name: fc, kind: fc, in: " + std::to_string(in) +
           ", out: " + std::to_string(out) + ", bias: false}\n";
}

TEST(pe_array, gemm_with_dims_multiple_of_32_runs_at_peak) {
    const pe_array_model pe{pe_array_config{}};
    const auto m = load(fc_model(512, 512), 32);
    const layer_timing t = pe.time_layer(m.layers()[0], 32, 4);
    // 32 x 512 x 512 multiply-adds / 16384 per cycle = 512 cycles = 512 ns at 1 GHz.
    EXPECT_EQ(t.forward.compute_cycles, 512u);
    EXPECT_EQ(t.forward.time_ps, 512000u);
    EXPECT_DOUBLE_EQ(t.forward.utilisation, 1.0);
    EXPECT_FALSE(t.forward.streamed);
    // Backward: input and weight gradients, each the forward's multiply-adds, also at peak.
    EXPECT_EQ(t.backward.compute_cycles, 1024u);
    EXPECT_DOUBLE_EQ(t.backward.utilisation, 1.0);
}

TEST(pe_array, a_33_wide_reduction_runs_at_the_ceil_division_utilisation) {
    const pe_array_model pe{pe_array_config{}};
    const auto m = load(fc_model(33, 512), 32);
    const layer_timing t = pe.time_layer(m.layers()[0], 32, 4);
    // ceil(33/32) * ceil(512/32) = 32 tiles, 2 per PE, 32 rows each: 64 cycles.
    EXPECT_EQ(t.forward.compute_cycles, 64u);
    EXPECT_DOUBLE_EQ(t.forward.utilisation, 33.0 / 64.0);
}

TEST(pe_array, fewer_tiles_than_pes_split_the_streamed_rows) {
    const pe_array_model pe{pe_array_config{}};
    // One 32x32 tile, 64 rows: 16 PEs take 4 rows each.
    EXPECT_EQ(pe.gemm_cycles({64, 32, 32, 1}), 4u);
    // 3 tiles: 5 PEs per tile, ceil(100 / 5) = 20 rows each.
    EXPECT_EQ(pe.gemm_cycles({100, 96, 32, 1}), 20u);
    // 36 tiles: 3 rounds of 16 PEs.
    EXPECT_EQ(pe.gemm_cycles({1024, 576, 64, 1}), 3u * 1024u);
}

TEST(pe_array, conv_is_an_im2col_gemm_and_relu_runs_on_the_vector_path) {
    const pe_array_model pe{pe_array_config{}};
    const auto m = load(
        "name: t\nsource: test\ninput: {channels: 64, height: 32, width: 32}\nlayers:\n"
        "  - {name: conv, kind: conv, in_channels: 64, out_channels: 64, kernel: 3, padding: 1, "
        "bias: false}\n"
        "  - {name: relu, kind: relu}\n",
        1);
    // (1*32*32) x (64*3*3) by 576 x 64: ceil(576/32) * ceil(64/32) = 36 tiles -> 3 rounds.
    const layer_timing conv = pe.time_layer(m.layers()[0], 1, 4);
    EXPECT_EQ(conv.forward.compute_cycles, 3u * 1024u);
    EXPECT_DOUBLE_EQ(conv.forward.utilisation, 36.0 / 48.0);
    // ReLU: one FLOP per element, 64*32*32 = 65536 / (16 PEs * 32 per cycle) = 128 cycles.
    const layer_timing relu = pe.time_layer(m.layers()[1], 1, 4);
    EXPECT_EQ(relu.forward.compute_cycles, 128u);
    EXPECT_EQ(relu.forward.gemm_macs, 0u);
}

TEST(pe_array, a_layer_overflowing_the_global_buffer_is_bandwidth_bound) {
    const pe_array_model pe{pe_array_config{}};
    const auto m = load(fc_model(1024, 2048), 1);
    const layer_timing t = pe.time_layer(m.layers()[0], 1, 4);
    // Weights 1024 * 2048 * 4 = 8 MiB > 4 MiB: input, weights and output stream from DRAM.
    const std::uint64_t bytes = 1024 * 4 + 1024 * 2048 * 4 + 2048 * 4;
    EXPECT_TRUE(t.forward.streamed);
    EXPECT_EQ(t.forward.footprint_bytes, bytes);
    // ceil(bytes / 256 GB/s) in ps; the 128-cycle GEMM hides under it.
    const auto expect_ps =
        static_cast<std::uint64_t>(std::ceil(static_cast<double>(bytes) * 1e12 / 256e9 - 1e-9));
    EXPECT_EQ(t.forward.time_ps, expect_ps);
    EXPECT_EQ(t.forward.compute_cycles, 128u);
    // Backward: output gradient + 2 x input + 2 x weights.
    EXPECT_EQ(t.backward.footprint_bytes, 2048u * 4 + 2 * 1024u * 4 + 2 * 8388608u);
    EXPECT_EQ(t.backward.time_ps, pe.stream_ps(t.backward.footprint_bytes));
}

TEST(pe_array, zoo_models_never_beat_the_peak) {
    const pe_array_model pe{pe_array_config{}};
    for (const char* name : {"resnet50", "vgg16", "dlrm", "transformer"}) {
        models::model_options o;
        o.batch = 2;
        const auto m = models::load_model(models::find_zoo_model(name), o);
        for (const auto& l : m.layers()) {
            const layer_timing t = pe.time_layer(l, 2, 4);
            // Every mapped multiply-add is one of the zoo's FLOPs pairs.
            EXPECT_LE(2 * t.forward.gemm_macs, static_cast<std::uint64_t>(l.forward_flops))
                << l.str();
            EXPECT_LE(2 * t.backward.gemm_macs, static_cast<std::uint64_t>(l.backward_flops()))
                << l.str();
            EXPECT_GT(t.forward.utilisation, 0.0) << l.str();
            EXPECT_LE(t.forward.utilisation, 1.0 + 1e-12) << l.str();
            EXPECT_LE(t.backward.utilisation, 1.0 + 1e-12) << l.str();
        }
    }
}

// The forward pass of M on any device, through the one interface (issue 24).
double forward_seconds(const models::compute_model& c, const models::model& m) {
    return c.forward_pass(m).sequential;
}

// ARIES's chiplet behind the compute_model interface: the adapter gives pe_array_model's own
// picoseconds (here the 512-cycle, peak-rate fc above and twice that backward), layer by layer
// and summed by network_time; paleo.md §3's roofline answers the same call with R + C + W.
TEST(pe_array, behind_the_compute_model_interface) {
    const pe_array_compute_model pe{pe_array_config{}};
    const auto m = load(fc_model(512, 512), 32);
    const models::layer_seconds s = pe.time_layer(m.layers()[0], 32, 4);
    const layer_timing t = pe.array().time_layer(m.layers()[0], 32, 4);
    EXPECT_EQ(s.forward, 512000 * 1e-12);
    EXPECT_EQ(s.forward, static_cast<double>(t.forward.time_ps) * 1e-12);
    EXPECT_EQ(s.backward, static_cast<double>(t.backward.time_ps) * 1e-12);
    EXPECT_EQ(forward_seconds(pe, m), 512000 * 1e-12);
    EXPECT_EQ(pe.backward_pass(m).sequential, s.backward);
    EXPECT_EQ(pe.name(), "pe_array");

    // The roofline: 1 TFLOP/s, 100 GB/s, full PPP.  Forward by GEMM: reads x (32 x 512) and
    // w (512 x 512), writes y, 2 x 32 x 512 x 512 FLOPs.  Backward: the first layer has no
    // data gradient; the filter gradient reads x and dy, writes dw, the same FLOPs.
    const models::roofline_compute_model roof(models::device_model{1e12, 1e11, 1, 1},
                                              {"gemm", 4294967296.0});
    const double x = 32 * 512 * 4.0, w = 512 * 512 * 4.0, y = 32 * 512 * 4.0;
    const double flops = 2.0 * 32 * 512 * 512;
    EXPECT_NEAR(forward_seconds(roof, m), (x + w) / 1e11 + flops / 1e12 + y / 1e11, 1e-18);
    EXPECT_NEAR(roof.backward_pass(m).sequential, (x + y) / 1e11 + flops / 1e12 + w / 1e11, 1e-18);
    EXPECT_EQ(roof.name(), "roofline");
}

}  // namespace
}  // namespace trainvp::noc
