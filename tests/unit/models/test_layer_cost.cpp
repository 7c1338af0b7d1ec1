// paleo.md §3's layer cost model against hand formulas: per layer and per operation (forward,
// backward-data, backward-filter) the FLOPs and the bytes read and written of conv by GEMM and
// by FFT, fc and pooling; the convolution heuristic on a table of layer shapes; the supernode
// bounds of a parallel structure; the device's R + C + W.  Every expected number is written out
// from the formula in the comment next to it; doubles of integers below 2^53 are exact, so
// equality is asserted except where a log2 or a division enters (then 1e-12 relative).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "workloads/models/conv_heuristic_registry.h"
#include "workloads/models/conv_problem.h"
#include "workloads/models/device_model.h"
#include "workloads/models/layer_cost_model.h"
#include "workloads/models/layer_math.h"
#include "workloads/models/model_loader.h"
#include "workloads/models/network_time.h"
#include "workloads/models/roofline_compute_model.h"

namespace trainvp::models {
namespace {

using i64 = std::int64_t;

layer_info conv(i64 c, i64 h, i64 w, i64 k, i64 r, i64 stride, i64 pad, i64 batch,
                std::string input = "x") {
    layer_info l;
    l.name = "conv";
    l.kind = layer_kind::CONV;
    l.spec.out_channels = k;
    l.spec.kernel_h = l.spec.kernel_w = r;
    l.spec.stride_h = l.spec.stride_w = stride;
    l.spec.pad_h = l.spec.pad_w = pad;
    l.spec.bias = true;
    l.inputs = {std::move(input)};
    l.input_shapes = {tensor_shape::chw(c, h, w)};
    layer_math::derive(l, batch, 4);
    return l;
}

layer_costs costs_of(const layer_info& l, i64 batch, const std::string& heuristic = "gemm") {
    return layer_cost_model({heuristic, 4294967296.0}).cost(l, batch, 4);
}

// AlexNet's conv2 (64 -> 192, 5x5, pad 2, 27x27 -> 27x27), batch 2, by GEMM.
TEST(LayerCost, ConvGemmThreeOperations) {
    const i64 N = 2, C = 64, H = 27, K = 192, R = 5, P = 27;
    const layer_costs c = costs_of(conv(C, H, H, K, R, 1, 2, N), N);
    const double fl = 2.0 * K * C * R * R * N * P * P;  // paleo.md §3.1.3: 2KCRSNPQ
    const double x = N * C * H * H * 4.0, w = K * C * R * R * 4.0, y = N * K * P * P * 4.0;
    EXPECT_EQ(c.forward.algorithm, conv_algorithm::GEMM);
    EXPECT_EQ(c.forward.flops, fl);
    EXPECT_EQ(c.forward.read_bytes, x + w);  // R: input and filters
    EXPECT_EQ(c.forward.write_bytes, y);     // W: output
    // Backward-data: dy padded by R-1-pad = 2 to 31x31 (H + R - 1), 5x5 filters (K -> C) give
    // the 27x27 dx: 2 x C K R S N H W, the same as forward here (stride 1, H = P).
    EXPECT_EQ(c.backward_data.flops, 2.0 * C * K * R * R * N * H * H);
    EXPECT_EQ(c.backward_data.read_bytes, y + w);
    EXPECT_EQ(c.backward_data.write_bytes, x);
    // Backward-filter: x with dy as the "filter": 2 KCRSNPQ; writes dw.
    EXPECT_EQ(c.backward_filter.flops, fl);
    EXPECT_EQ(c.backward_filter.read_bytes, x + y);
    EXPECT_EQ(c.backward_filter.write_bytes, w);
}

// A stride-2 conv: the gradient w.r.t. the data runs over dy dilated by the stride, whose
// inserted zeros are skipped (density P Q / ((P-1) s + 1)^2).
TEST(LayerCost, StridedConvBackwardDataSkipsDilationZeros) {
    const i64 N = 3, C = 8, H = 17, K = 16, R = 3, P = 8;  // (17 + 0 - 3) / 2 + 1 = 8
    const layer_info l = conv(C, H, H, K, R, 2, 0, N);
    ASSERT_EQ(l.output_shape.dims.at(1), P);
    const layer_costs c = costs_of(l, N);
    const double eh = (P - 1) * 2 + 1;  // 15
    const double density = (P * P) / (eh * eh);
    EXPECT_NEAR(c.backward_data.flops, 2.0 * C * K * R * R * N * H * H * density,
                1e-12 * c.backward_data.flops);
    // Backward-filter: the dilated dy is the 15x15 "filter" over the 17x17 input -> 3x3.
    EXPECT_NEAR(c.backward_filter.flops, 2.0 * C * N * K * eh * eh * R * R * density,
                1e-12 * c.backward_filter.flops);
    EXPECT_NEAR(c.backward_filter.flops, 2.0 * K * C * R * R * N * P * P,
                1e-12 * c.backward_filter.flops);
}

// FFT of whole maps: N=2, C=3, K=4, 8x8 input padded by 2 (12x12, transforms 16x16 = 256
// points), 5x5 filters, 8x8 output.
TEST(LayerCost, ConvFftForwardFlopsAndBytes) {
    const i64 N = 2, C = 3, K = 4;
    const layer_info l = conv(C, 8, 8, K, 5, 1, 2, N);
    const conv_problem p = conv_problem::of(l, layer_op::FORWARD, N, 4);
    const op_cost f = p.fft(false);
    EXPECT_EQ(p.fft_extent_h(false), 16);
    const double n = 256, complex_t = 5 * n * std::log2(n);  // 5 n log2 n = 10240
    const double expect_flops = N * C * complex_t / 2        // inputs, real -> half
                                + C * K * complex_t / 2      // filters, real -> half
                                + N * C * K * 4 * n          // point-wise products
                                + N * K * complex_t;         // inverse, complex
    EXPECT_NEAR(f.flops, expect_flops, 1e-12 * expect_flops);
    const double spectrum = 12 * 12 * 8;  // complex 8 B per point, before power-of-2 padding
    const double spectra = (N * C + C * K + N * K) * spectrum;
    EXPECT_EQ(f.read_bytes, (N * C * 64 + K * C * 25) * 4.0 + spectra);
    EXPECT_EQ(f.write_bytes, N * K * 64 * 4.0 + spectra);
    EXPECT_EQ(f.workspace_bytes, spectra);
    EXPECT_EQ(f.algorithm, conv_algorithm::FFT);
}

// The same layer's gradients by FFT.  Backward-data: the 4 output-gradient maps per image
// padded to 12x12 (H + R - 1) are the inputs, the filters transposed (4 -> 3 channels).
// Backward-filter: the 3 input channels ("images") over the 2 images ("channels") with the
// 2 x 4 output-gradient maps as the "filters", giving 5x5 outputs.  Transforms 16x16 again.
TEST(LayerCost, ConvFftGradientsFlopsAndBytes) {
    const i64 N = 2, C = 3, K = 4;
    const layer_info l = conv(C, 8, 8, K, 5, 1, 2, N);
    const double n = 256, complex_t = 5 * n * std::log2(n), spectrum = 12 * 12 * 8;
    const double x = N * C * 64 * 4.0, w = K * C * 25 * 4.0, y = N * K * 64 * 4.0;
    const op_cost d = conv_problem::of(l, layer_op::BACKWARD_DATA, N, 4).fft(false);
    const double d_flops =
        N * K * complex_t / 2 + K * C * complex_t / 2 + N * K * C * 4 * n + N * C * complex_t;
    EXPECT_NEAR(d.flops, d_flops, 1e-12 * d_flops);
    const double d_spectra = (N * K + K * C + N * C) * spectrum;
    EXPECT_EQ(d.read_bytes, y + w + d_spectra);
    EXPECT_EQ(d.write_bytes, x + d_spectra);
    const op_cost f = conv_problem::of(l, layer_op::BACKWARD_FILTER, N, 4).fft(false);
    const double f_flops =
        C * N * complex_t / 2 + N * K * complex_t / 2 + C * N * K * 4 * n + C * K * complex_t;
    EXPECT_NEAR(f.flops, f_flops, 1e-12 * f_flops);
    const double f_spectra = (C * N + N * K + C * K) * spectrum;
    EXPECT_EQ(f.read_bytes, x + y + f_spectra);
    EXPECT_EQ(f.write_bytes, w + f_spectra);
}

// FFT on 32x32 tiles by overlap-save: a 5x5 filter leaves 28x28 outputs per tile, so a 60x60
// output takes ceil(60/28)^2 = 9 tiles; filters are transformed once.
TEST(LayerCost, ConvFftTiledCountsTiles) {
    const i64 N = 1, C = 2, K = 3;
    const layer_info l = conv(C, 60, 60, K, 5, 1, 2, N);
    const conv_problem p = conv_problem::of(l, layer_op::FORWARD, N, 4);
    EXPECT_EQ(p.fft_tiles(true), 9);
    const double n = 1024, complex_t = 5 * n * std::log2(n);
    const double expect_flops = 9 * N * C * complex_t / 2 + C * K * complex_t / 2 +
                                9 * N * C * K * 4 * n + 9 * N * K * complex_t;
    EXPECT_NEAR(p.fft(true).flops, expect_flops, 1e-12 * expect_flops);
    EXPECT_EQ(p.fft_workspace(true), (9 * N * C + C * K + 9 * N * K) * n * 8.0);
}

// Fully connected 9216 -> 4096 at batch 128: a GEMM of 2 F O N in each operation.
TEST(LayerCost, FcThreeGemms) {
    layer_info l;
    l.name = "fc";
    l.kind = layer_kind::FC;
    l.spec.out_features = 4096;
    l.spec.bias = true;
    l.inputs = {"x"};
    l.input_shapes = {tensor_shape::features(9216)};
    layer_math::derive(l, 128, 4);
    const layer_costs c = costs_of(l, 128, "cudnn_v4_like");
    const double fl = 2.0 * 9216 * 4096 * 128;
    const double x = 9216 * 128 * 4.0, w = 9216 * 4096 * 4.0, y = 4096 * 128 * 4.0;
    for (const op_cost* o : {&c.forward, &c.backward_data, &c.backward_filter}) {
        EXPECT_EQ(o->flops, fl);
        EXPECT_EQ(o->algorithm, conv_algorithm::GEMM);
    }
    EXPECT_EQ(c.forward.read_bytes, x + w);
    EXPECT_EQ(c.forward.write_bytes, y);
    EXPECT_EQ(c.backward_data.read_bytes, y + w);
    EXPECT_EQ(c.backward_data.write_bytes, x);
    EXPECT_EQ(c.backward_filter.read_bytes, x + y);
    EXPECT_EQ(c.backward_filter.write_bytes, w);
}

// Max pooling 3x3 stride 2 on 64x55x55 (-> 27x27), batch 4: layer_math's N C P Q R S FLOPs;
// forward reads x, writes y; backward-data reads dy and x, writes dx; no filter gradient.
TEST(LayerCost, PoolingReadsAndWrites) {
    layer_info l;
    l.name = "pool";
    l.kind = layer_kind::POOL;
    l.spec.kernel_h = l.spec.kernel_w = 3;
    l.spec.stride_h = l.spec.stride_w = 2;
    l.inputs = {"x"};
    l.input_shapes = {tensor_shape::chw(64, 55, 55)};
    layer_math::derive(l, 4, 4);
    const layer_costs c = costs_of(l, 4);
    const double x = 4 * 64 * 55 * 55 * 4.0, y = 4 * 64 * 27 * 27 * 4.0;
    EXPECT_EQ(c.forward.flops, 4.0 * 64 * 27 * 27 * 9);
    EXPECT_EQ(c.forward.read_bytes, x);
    EXPECT_EQ(c.forward.write_bytes, y);
    EXPECT_EQ(c.backward_data.flops, c.forward.flops);
    EXPECT_EQ(c.backward_data.read_bytes, y + x);
    EXPECT_EQ(c.backward_data.write_bytes, x);
    EXPECT_EQ(c.backward_filter.bytes(), 0.0);
    EXPECT_EQ(c.backward_filter.flops, 0.0);
    EXPECT_EQ(c.forward.algorithm, conv_algorithm::NONE);
}

// Softmax's data gradient reads the output gradient and its saved output; concat's reads only
// the output gradient (it splits it); neither has a filter gradient.  FLOPs are layer_math's.
TEST(LayerCost, SoftmaxAndConcatTouchWhatTheirGradientsNeed) {
    const model_options o = [] {
        model_options m;
        m.batch = 3;
        return m;
    }();
    const model m = parse_model(R"(
name: heads
source: test
input: {features: 10}
layers:
  - {name: a, kind: relu}
  - {name: b, kind: relu, inputs: [input]}
  - {name: cat, kind: concat, inputs: [a, b]}
  - {name: prob, kind: softmax}
)",
                                "heads.yaml", o);
    const auto c = layer_cost_model({"gemm", 0}).costs(m);
    const layer_costs& cat = c[2];
    const layer_costs& prob = c[3];
    const double y = 3 * 20 * 4.0;         // batch 3 x 20 features x 4 B
    EXPECT_EQ(cat.forward.read_bytes, y);  // both inputs, 10 features each
    EXPECT_EQ(cat.forward.write_bytes, y);
    EXPECT_EQ(cat.backward_data.read_bytes, y);
    EXPECT_EQ(cat.backward_data.write_bytes, y);
    EXPECT_EQ(prob.forward.flops, 5.0 * 3 * 20);  // README: 5E
    EXPECT_EQ(prob.backward_data.flops, 4.0 * 3 * 20);
    EXPECT_EQ(prob.backward_data.read_bytes, 2 * y);  // dy and the saved output
    EXPECT_EQ(prob.backward_data.write_bytes, y);
    EXPECT_EQ(prob.backward_filter.bytes(), 0.0);
}

// The layer fed by the model's input computes no data gradient (nothing consumes it).
TEST(LayerCost, FirstLayerHasNoDataGradient) {
    const layer_costs c = costs_of(conv(3, 32, 32, 8, 3, 1, 1, 2, "input"), 2);
    EXPECT_EQ(c.backward_data.flops, 0.0);
    EXPECT_EQ(c.backward_data.bytes(), 0.0);
    EXPECT_GT(c.backward_filter.flops, 0.0);
}

// cudnn_v4_like on a table of layer shapes (the rule in conv_heuristic_registry.cpp), the
// same answer for the three operations unless a workspace decides otherwise.
TEST(LayerCost, CudnnV4LikeChoiceOnLayerShapes) {
    struct row {
        const char* what;
        i64 c, h, k, r, stride, pad, batch;
        conv_algorithm expect;
    };
    const row rows[] = {
        {"1x1", 256, 28, 64, 1, 1, 0, 32, conv_algorithm::GEMM},
        {"3x3 (implicit GEMM in v4)", 128, 56, 128, 3, 1, 1, 32, conv_algorithm::GEMM},
        {"11x11 stride 4", 3, 224, 64, 11, 4, 0, 128, conv_algorithm::GEMM},
        {"5x5 on 27x27", 64, 27, 192, 5, 1, 2, 128, conv_algorithm::FFT},
        {"5x5 covering a 5x5 input (fc6)", 256, 5, 4096, 5, 1, 0, 128, conv_algorithm::GEMM},
        {"7x7 on 300x300 (padded 306 > 256)", 3, 300, 16, 7, 1, 3, 1, conv_algorithm::FFT_TILING},
        // 5x5 on 56x56 at batch 256, 512 -> 512 channels: whole-map spectra (60^2 x 8 B x
        // (256x512 + 512x512 + 256x512)) are 15 GB, 32x32 tiles (4 per map) too: GEMM.
        {"5x5 with spectra over 4 GiB", 512, 56, 512, 5, 1, 2, 256, conv_algorithm::GEMM},
    };
    for (const row& r : rows) {
        const layer_costs c = costs_of(conv(r.c, r.h, r.h, r.k, r.r, r.stride, r.pad, r.batch),
                                       r.batch, "cudnn_v4_like");
        EXPECT_EQ(c.forward.algorithm, r.expect) << r.what;
        EXPECT_EQ(c.backward_data.algorithm, r.expect) << r.what;
        EXPECT_EQ(c.backward_filter.algorithm, r.expect) << r.what;
    }
    // The gemm heuristic never transforms.
    const layer_costs g = costs_of(conv(64, 27, 27, 192, 5, 1, 2, 128), 128, "gemm");
    EXPECT_EQ(g.forward.algorithm, conv_algorithm::GEMM);
}

// A transposed convolution ("deconv", DCGAN's generator): C = 16 channels of 4x4 to K = 8
// channels, 5x5 filters, stride 2, padding 2, output padding 1: (4 - 1) 2 - 4 + 5 + 1 = 8x8.
layer_info deconv(i64 c, i64 h, i64 k, i64 r, i64 stride, i64 pad, i64 out_pad, i64 batch,
                  std::string input = "x") {
    layer_info l;
    l.name = "deconv";
    l.kind = layer_kind::DECONV;
    l.spec.out_channels = k;
    l.spec.kernel_h = l.spec.kernel_w = r;
    l.spec.stride_h = l.spec.stride_w = stride;
    l.spec.pad_h = l.spec.pad_w = pad;
    l.spec.output_pad_h = l.spec.output_pad_w = out_pad;
    l.inputs = {std::move(input)};
    l.input_shapes = {tensor_shape::chw(c, h, h)};
    layer_math::derive(l, batch, 4);
    return l;
}

// Shape, parameters and the zoo's FLOPs: every input value scatters R S K products, 2 FLOPs
// each; the data gradient (a convolution of dy) and the filter gradient have as many.
TEST(LayerCost, DeconvShapeParamsAndFlops) {
    const i64 N = 3, C = 16, H = 4, K = 8, R = 5;
    const layer_info l = deconv(C, H, K, R, 2, 2, 1, N);
    EXPECT_EQ(l.output_shape, tensor_shape::chw(K, 8, 8));
    EXPECT_EQ(l.params, C * K * R * R);  // no bias
    EXPECT_EQ(l.forward_flops, 2 * C * K * R * R * N * H * H);
    EXPECT_EQ(l.backward_input_flops, l.forward_flops);
    EXPECT_EQ(l.backward_weight_flops, l.forward_flops);
    // Stride 1, no padding: (4 - 1) + 5 = 8 as well; output padding must stay below the stride.
    EXPECT_EQ(deconv(C, H, K, R, 1, 0, 0, N).output_shape, tensor_shape::chw(K, 8, 8));
    EXPECT_THROW(deconv(C, H, K, R, 2, 2, 2, N), layer_error);
    EXPECT_THROW(deconv(C, 1, K, 3, 1, 2, 0, N), layer_error);  // 0 - 4 + 3 < 1
}

// The three operations by GEMM against hand formulas, and against the convolution the deconv
// transposes (8 channels of 8x8 to 16 of 4x4, same filters, stride 2, padding 2): a
// transposed conv's forward pass is that conv's backward-data and vice versa; the filter
// gradients are the same operation.
TEST(LayerCost, DeconvIsTheTransposedConvolution) {
    const i64 N = 3, C = 16, H = 4, K = 8, R = 5, Ho = 8;
    const layer_costs d = costs_of(deconv(C, H, K, R, 2, 2, 1, N), N);
    const double x = N * C * H * H * 4.0, w = C * K * R * R * 4.0, y = N * K * Ho * Ho * 4.0;
    // Forward: the 4x4 input dilated by 2 (7x7, 16 of its 49 values stored) and padded by
    // R - 1 - pad = 2 to 8 + 4 = 12, convolved with the 5x5 filters into 8x8: 2 C K R S N
    // Ho Wo x 16/49 with the dilation zeros skipped.
    const double density = 16.0 / 49.0;
    EXPECT_NEAR(d.forward.flops, 2.0 * C * K * R * R * N * Ho * Ho * density,
                1e-12 * d.forward.flops);
    EXPECT_EQ(d.forward.read_bytes, x + w);
    EXPECT_EQ(d.forward.write_bytes, y);
    // Backward-data: dy (8x8) convolved with stride 2 back onto the 4x4 input: the scatter
    // count, 2 C K R S N H W; reads dy and the filters, writes dx.
    EXPECT_EQ(d.backward_data.flops, 2.0 * C * K * R * R * N * H * H);
    EXPECT_EQ(d.backward_data.read_bytes, y + w);
    EXPECT_EQ(d.backward_data.write_bytes, x);
    // Backward-filter: dy with the dilated x as the "filter", zeros skipped: 2 C K R S N H W.
    EXPECT_NEAR(d.backward_filter.flops, 2.0 * C * K * R * R * N * H * H,
                1e-12 * d.backward_filter.flops);
    EXPECT_EQ(d.backward_filter.read_bytes, x + y);
    EXPECT_EQ(d.backward_filter.write_bytes, w);

    const layer_costs c = costs_of(conv(K, Ho, Ho, C, R, 2, 2, N), N);
    ASSERT_EQ(conv(K, Ho, Ho, C, R, 2, 2, N).output_shape, tensor_shape::chw(C, H, H));
    auto same = [](const op_cost& a, const op_cost& b, const char* what) {
        EXPECT_NEAR(a.flops, b.flops, 1e-12 * b.flops) << what;
        EXPECT_EQ(a.read_bytes, b.read_bytes) << what;
        EXPECT_EQ(a.write_bytes, b.write_bytes) << what;
    };
    same(d.forward, c.backward_data, "deconv forward = conv backward-data");
    same(d.backward_data, c.forward, "deconv backward-data = conv forward");
    same(d.backward_filter, c.backward_filter, "the filter gradients");
}

// dilation_zeros COMPUTED (the PALEO authors' counting of holes in the input): the stride-1
// GEMM over the dilated operand multiplies its zeros, 2 C K R S N Ho Wo for the deconv's
// forward pass and a strided conv's backward-data; backward-filter keeps skipping them.
TEST(LayerCost, DilationZerosComputed) {
    const i64 N = 3, C = 16, H = 4, K = 8, R = 5, Ho = 8;
    layer_cost_options o{"gemm", 4294967296.0};
    o.zeros = dilation_zeros::COMPUTED;
    const layer_cost_model dense(o);
    const layer_costs d = dense.cost(deconv(C, H, K, R, 2, 2, 1, N), N, 4);
    EXPECT_EQ(d.forward.flops, 2.0 * C * K * R * R * N * Ho * Ho);
    EXPECT_EQ(d.backward_data.flops, 2.0 * C * K * R * R * N * H * H);
    EXPECT_NEAR(d.backward_filter.flops, 2.0 * C * K * R * R * N * H * H,
                1e-12 * d.backward_filter.flops);
    // A stride-2 conv (17x17 -> 8x8, 3x3): its backward-data over the full 17x17 output.
    const layer_costs s = dense.cost(conv(8, 17, 17, 16, 3, 2, 0, N), N, 4);
    EXPECT_EQ(s.backward_data.flops, 2.0 * 8 * 16 * 3 * 3 * N * 17 * 17);
    EXPECT_NEAR(s.backward_filter.flops, 2.0 * 16 * 8 * 3 * 3 * N * 8 * 8,
                1e-12 * s.backward_filter.flops);
    // A stride-1 layer has no zeros to compute: both settings agree.
    const layer_info one = conv(64, 27, 27, 192, 5, 1, 2, 2);
    EXPECT_EQ(dense.cost(one, 2, 4).backward_data.flops, costs_of(one, 2).backward_data.flops);
}

// cudnn_v4_like on transposed convolutions: the rule of the convolution each transposes.
TEST(LayerCost, CudnnV4LikeChoiceOnDeconvolutions) {
    // Stride 2 (DCGAN): GEMM.
    const layer_costs s2 = costs_of(deconv(256, 8, 128, 5, 2, 2, 1, 64), 64, "cudnn_v4_like");
    EXPECT_EQ(s2.forward.algorithm, conv_algorithm::GEMM);
    // Stride 1, 5x5, 16x16 -> 20x20: FFT of whole maps in all three operations.
    const layer_costs s1 = costs_of(deconv(32, 16, 32, 5, 1, 0, 0, 8), 8, "cudnn_v4_like");
    EXPECT_EQ(s1.forward.algorithm, conv_algorithm::FFT);
    EXPECT_EQ(s1.backward_data.algorithm, conv_algorithm::FFT);
    EXPECT_EQ(s1.backward_filter.algorithm, conv_algorithm::FFT);
    // A 1x1 input projected to 5x5 maps (the transposed conv's conv has one output): GEMM.
    const layer_costs p = costs_of(deconv(100, 1, 64, 5, 1, 0, 0, 8), 8, "cudnn_v4_like");
    EXPECT_EQ(p.forward.algorithm, conv_algorithm::GEMM);
    EXPECT_EQ(p.backward_filter.algorithm, conv_algorithm::GEMM);
}

TEST(LayerCost, UnknownHeuristicIsAnError) {
    EXPECT_THROW(layer_cost_model({"cudnn_v9", 0}), std::invalid_argument);
    const auto names = conv_heuristic_registry::global().names();
    ASSERT_EQ(names.size(), 2u);
    EXPECT_EQ(names[0], "cudnn_v4_like");
}

// paleo.md eq. 1: R / bandwidth + C / peak + W / bandwidth, each at its PPP.
TEST(LayerCost, DeviceTimeIsReadComputeWrite) {
    const device_model d{1e12, 1e11, 0.5, 0.25};
    op_cost c;
    c.flops = 3e9;
    c.read_bytes = 2e8;
    c.write_bytes = 1e8;
    // 2e8 / 2.5e10 + 3e9 / 5e11 + 1e8 / 2.5e10 = 8 ms + 6 ms + 4 ms
    EXPECT_NEAR(d.seconds(c), 0.018, 1e-15);
}

// The same equation as the platform's devices time a kernel (accel.gpu, host.cpu): whole
// picoseconds, C and R + W each rounded to the nearest, a zero rate free.
TEST(LayerCost, DeviceKernelPartsInPicoseconds) {
    const device_model d{1e12, 1e11, 0.5, 0.25};
    EXPECT_EQ(d.compute_ps(3e9), 6'000'000'000u);          // 3e9 / 5e11 s = 6 ms
    EXPECT_EQ(d.memory_ps(300'000'000), 12'000'000'000u);  // 3e8 B / 2.5e10 B/s = 12 ms
    // 1 FLOP at 5e11 FLOP/s = 2 ps; 7 B at 2.5e10 B/s = 280 ps; 1 B = 40 ps.
    EXPECT_EQ(d.compute_ps(1), 2u);
    EXPECT_EQ(d.memory_ps(7), 280u);
    // 3 FLOPs at 2e12 FLOP/s = 1.5 ps: rounded to the nearest (half away from zero).
    EXPECT_EQ((device_model{4e12, 1, 0.5, 1}.compute_ps(3)), 2u);
    EXPECT_EQ((device_model{}.compute_ps(1e9)), 0u);  // no peak: free, as the units make it
    // Agrees with seconds() when the parts are whole picoseconds.
    op_cost c;
    c.flops = 3e9;
    c.read_bytes = 2e8;
    c.write_bytes = 1e8;
    EXPECT_NEAR(static_cast<double>(d.compute_ps(c.flops) + d.memory_ps(300'000'000)) * 1e-12,
                d.seconds(c), 1e-15);
}

// The roofline behind the compute_model interface: a layer's forward pass is its forward op's
// R + C + W, its backward pass the sum over backward-data and backward-filter.
TEST(LayerCost, RooflineComputeModelTimesTheLayerOps) {
    const device_model d{6.144e12, 336.5 * 1073741824.0, 0.62, 0.62};
    const roofline_compute_model r(d, {"cudnn_v4_like", 4294967296.0});
    const layer_info l = conv(64, 27, 27, 192, 5, 1, 2, 128);
    const layer_costs c = costs_of(l, 128, "cudnn_v4_like");
    const layer_seconds s = r.time_layer(l, 128, 4);
    EXPECT_EQ(s.forward, d.seconds(c.forward));
    EXPECT_EQ(s.backward, d.seconds(c.backward_data) + d.seconds(c.backward_filter));
    EXPECT_THROW(roofline_compute_model(device_model{0, 1, 1, 1}, {}), std::invalid_argument);
}

// paleo.md §3.1.2: two branches between a fork and a join (a supernode): sequential execution
// sums every layer; perfect parallelism takes the longer branch.
TEST(LayerCost, SupernodeBoundsOfParallelBranches) {
    model_options o;
    o.batch = 1;
    const model m = parse_model(R"(
name: fork
source: test
input: {channels: 4, height: 8, width: 8}
layers:
  - {name: stem, kind: relu}
  - {name: a1, kind: relu, inputs: [stem]}
  - {name: a2, kind: relu}
  - {name: b1, kind: relu, inputs: [stem]}
  - {name: join, kind: concat, inputs: [a2, b1]}
  - {name: head, kind: relu}
)",
                                "fork.yaml", o);
    // stem 1, branch a: 2 + 3, branch b: 10, join 4, head 5.
    const pass_time t = network_time(m, {1, 2, 3, 10, 4, 5});
    EXPECT_EQ(t.sequential, 25.0);
    EXPECT_EQ(t.lower, 1.0 + 10.0 + 4.0 + 5.0);
}

}  // namespace
}  // namespace trainvp::models
