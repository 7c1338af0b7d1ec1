#include "workloads/models/conv_problem.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace trainvp::models {

namespace {

std::int64_t pow2_at_least(std::int64_t v) {
    std::int64_t p = 1;
    while (p < v) p *= 2;
    return p;
}

constexpr std::int64_t k_tile = 32;  // cuDNN's FFT_TILING tile (Chetlur et al.; cuDNN v4 docs)

}  // namespace

conv_problem conv_problem::of(const layer_info& layer, layer_op op, std::int64_t batch,
                              std::int64_t bytes_per_value, dilation_zeros zeros) {
    conv_problem p;
    p.bytes_per_value = bytes_per_value;
    std::int64_t C, H, W, K, R, S, P, Q, stride_h, stride_w, pad_h, pad_w, g;
    if (layer.kind == layer_kind::CONV) {
        const tensor_shape& in = layer.input_shapes.at(0);
        C = in.dims.at(0), H = in.dims.at(1), W = in.dims.at(2);
        K = layer.spec.out_channels, R = layer.spec.kernel_h, S = layer.spec.kernel_w;
        P = layer.output_shape.dims.at(1), Q = layer.output_shape.dims.at(2);
        stride_h = layer.spec.stride_h, stride_w = layer.spec.stride_w;
        pad_h = layer.spec.pad_h, pad_w = layer.spec.pad_w;
        g = layer.spec.groups;
    } else if (layer.kind == layer_kind::DECONV) {
        // The equivalent convolution: from the deconv's output (C x H x W here) to its input
        // (K x P x Q here), and the operation it plays.
        const tensor_shape& in = layer.input_shapes.at(0);
        C = layer.output_shape.dims.at(0), H = layer.output_shape.dims.at(1),
        W = layer.output_shape.dims.at(2);
        K = in.dims.at(0), P = in.dims.at(1), Q = in.dims.at(2);
        R = layer.spec.kernel_h, S = layer.spec.kernel_w;
        stride_h = layer.spec.stride_h, stride_w = layer.spec.stride_w;
        pad_h = layer.spec.pad_h, pad_w = layer.spec.pad_w;
        g = 1;
        op = op == layer_op::FORWARD         ? layer_op::BACKWARD_DATA
             : op == layer_op::BACKWARD_DATA ? layer_op::FORWARD
                                             : layer_op::BACKWARD_FILTER;
    } else if (layer.kind == layer_kind::FC) {
        const tensor_shape& in = layer.input_shapes.at(0);
        // Per token for a TOKENS input: the tokens join the batch of the GEMM.
        batch *= in.positions();
        C = in.channels(), H = W = 1, K = layer.spec.out_features, R = S = P = Q = 1;
        stride_h = stride_w = 1, pad_h = pad_w = 0, g = 1;
    } else {
        throw std::invalid_argument(std::string("conv_problem: layer '") + layer.name + "' is a " +
                                    to_string(layer.kind) + ", not conv, deconv or fc");
    }
    const std::int64_t N = batch, Cg = C / g, Kg = K / g;
    // The output gradient dilated by the stride: (P-1) stride + 1 rows, P of them stored.
    const std::int64_t eh = (P - 1) * stride_h + 1, ew = (Q - 1) * stride_w + 1;
    const double dilated_density = static_cast<double>(P * Q) / static_cast<double>(eh * ew);
    const double x = static_cast<double>(N * C * H * W), w = static_cast<double>(K * Cg * R * S),
                 y = static_cast<double>(N * K * P * Q);
    p.groups = g;
    p.stride = std::max(stride_h, stride_w);
    switch (op) {
        case layer_op::FORWARD:
            p.n = N, p.c = Cg, p.k = Kg;
            p.padded_h = H + 2 * pad_h, p.padded_w = W + 2 * pad_w;
            p.r = R, p.s = S, p.out_h = P, p.out_w = Q;
            p.in_values = x, p.filter_values = w, p.out_values = y;
            break;
        case layer_op::BACKWARD_DATA:
            // dx (N x C x H x W) = dilated dy, padded by R-1-pad, convolved with the filters
            // transposed (K -> C).
            p.n = N, p.c = Kg, p.k = Cg;
            p.padded_h = H + R - 1, p.padded_w = W + S - 1;
            p.r = R, p.s = S, p.out_h = H, p.out_w = W;
            p.density = zeros == dilation_zeros::COMPUTED ? 1.0 : dilated_density;
            p.in_values = y, p.filter_values = w, p.out_values = x;
            break;
        case layer_op::BACKWARD_FILTER:
            // dw (K x C x R x S): the C input maps ("images") convolved with the N x K dilated
            // output-gradient maps ("filters") over the padded input, summed over the batch.
            p.n = Cg, p.c = N, p.k = Kg;
            p.padded_h = H + 2 * pad_h, p.padded_w = W + 2 * pad_w;
            p.r = eh, p.s = ew, p.out_h = R, p.out_w = S;
            p.density = dilated_density;
            p.in_values = x, p.filter_values = y, p.out_values = w;
            break;
    }
    return p;
}

op_cost conv_problem::gemm() const {
    op_cost o;
    o.algorithm = conv_algorithm::GEMM;
    o.flops = 2.0 * static_cast<double>(groups) * static_cast<double>(n) * static_cast<double>(c) *
              static_cast<double>(k) * static_cast<double>(r * s) *
              static_cast<double>(out_h * out_w) * density;
    const double b = static_cast<double>(bytes_per_value);
    o.read_bytes = (in_values + filter_values) * b;
    o.write_bytes = out_values * b;
    return o;
}

std::int64_t conv_problem::fft_tiles(bool tiled) const {
    if (!tiled) return 1;
    const std::int64_t th = std::max<std::int64_t>(1, k_tile - r + 1),
                       tw = std::max<std::int64_t>(1, k_tile - s + 1);
    return ((out_h + th - 1) / th) * ((out_w + tw - 1) / tw);
}

std::int64_t conv_problem::fft_extent_h(bool tiled) const {
    return tiled ? k_tile : pow2_at_least(std::max(padded_h, r));
}

std::int64_t conv_problem::fft_extent_w(bool tiled) const {
    return tiled ? k_tile : pow2_at_least(std::max(padded_w, s));
}

double conv_problem::fft_spectrum_bytes(bool tiled) const {
    // n complex values of 2 x fp32, n the extent before padding to powers of two (as the
    // authors' flops_profiler.py sizes the frequency-domain memory).
    const std::int64_t h = tiled ? k_tile : std::max(padded_h, r),
                       w = tiled ? k_tile : std::max(padded_w, s);
    return static_cast<double>(h * w) * 8.0;
}

double conv_problem::fft_workspace(bool tiled) const {
    const double spectrum = fft_spectrum_bytes(tiled);
    const double t = static_cast<double>(fft_tiles(tiled)), g = static_cast<double>(groups);
    return g * spectrum *
           (t * static_cast<double>(n * c) + static_cast<double>(c * k) +
            t * static_cast<double>(n * k));
}

op_cost conv_problem::fft(bool tiled) const {
    op_cost o;
    o.algorithm = tiled ? conv_algorithm::FFT_TILING : conv_algorithm::FFT;
    const double pts = static_cast<double>(fft_extent_h(tiled) * fft_extent_w(tiled));
    const double complex_transform = 5.0 * pts * std::log2(pts);
    const double real_transform = 0.5 * complex_transform;
    const double spectrum = fft_spectrum_bytes(tiled);
    const double t = static_cast<double>(fft_tiles(tiled)), g = static_cast<double>(groups);
    const double nc = g * static_cast<double>(n * c), ck = g * static_cast<double>(c * k),
                 nk = g * static_cast<double>(n * k);
    const double nck = g * static_cast<double>(n) * static_cast<double>(c * k);
    o.flops = t * nc * real_transform        // inputs to the frequency domain
              + ck * real_transform          // filters, once
              + t * nck * 4.0 * pts          // point-wise complex multiply-adds
              + t * nk * complex_transform;  // products back
    const double b = static_cast<double>(bytes_per_value);
    o.read_bytes = (in_values + filter_values) * b       // the stored operands, once
                   + (t * nc + ck + t * nk) * spectrum;  // each spectrum read once
    o.write_bytes = out_values * b + (t * nc + ck + t * nk) * spectrum;  // and written once
    o.workspace_bytes = fft_workspace(tiled);
    return o;
}

}  // namespace trainvp::models
