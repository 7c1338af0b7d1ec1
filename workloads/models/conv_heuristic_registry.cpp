#include "workloads/models/conv_heuristic_registry.h"

#include <algorithm>
#include <stdexcept>

namespace trainvp::models {

namespace {

// cuDNN v4 (the backend of paleo.md §4.1's TensorFlow 0.9) as a stated rule, applied to each
// of a layer's three operations:
//  * a transposed convolution (deconv) by the rule of the convolution it transposes (the same
//    filters and stride, its output the deconv's input);
//  * GEMM for 1x1 filters and fully connected layers (a plain matrix product), for strides
//    other than 1 (cuDNN's FFT algorithms need unit stride), for filters smaller than 5x5
//    (v4 computes 3x3 by implicit precomputed GEMM; Winograd came with v5) and when the filter
//    covers the whole padded input (one output position: a fully connected layer written as a
//    convolution, where a transform buys nothing);
//  * otherwise FFT of whole maps when the padded extent is at most 256 per dimension (cuDNN's
//    documented limit for FFT), else FFT on 32x32 tiles;
//  * falling back to tiles, then to GEMM, when the spectra exceed the workspace limit.
conv_algorithm cudnn_v4_like(const layer_info& layer, const conv_problem& p, layer_op,
                             double workspace_limit) {
    if (layer.kind != layer_kind::CONV && layer.kind != layer_kind::DECONV) {
        return conv_algorithm::GEMM;
    }
    const layer_spec& s = layer.spec;
    if (s.kernel_h == 1 && s.kernel_w == 1) return conv_algorithm::GEMM;
    if (s.stride_h != 1 || s.stride_w != 1) return conv_algorithm::GEMM;
    if (std::min(s.kernel_h, s.kernel_w) < 5) return conv_algorithm::GEMM;
    // The convolution's output: a deconv's is the one of the convolution it transposes, i.e.
    // the deconv's input.
    const tensor_shape& out =
        layer.kind == layer_kind::DECONV ? layer.input_shapes.at(0) : layer.output_shape;
    if (out.dims.at(1) == 1 && out.dims.at(2) == 1) return conv_algorithm::GEMM;
    const bool whole = std::max(p.padded_h, p.padded_w) <= 256;
    if (whole && p.fft_workspace(false) <= workspace_limit) return conv_algorithm::FFT;
    if (p.fft_workspace(true) <= workspace_limit) return conv_algorithm::FFT_TILING;
    return conv_algorithm::GEMM;
}

conv_algorithm gemm_only(const layer_info&, const conv_problem&, layer_op, double) {
    return conv_algorithm::GEMM;
}

}  // namespace

conv_heuristic_registry& conv_heuristic_registry::global() {
    static conv_heuristic_registry r = [] {
        conv_heuristic_registry g;
        g.add({"cudnn_v4_like",
               "cuDNN v4's choice as a rule: GEMM for 1x1, fc, strided, <5x5 and input-covering "
               "filters; else FFT (tiled 32x32 past 256 per dimension) within the workspace "
               "limit",
               &cudnn_v4_like});
        g.add({"gemm", "GEMM (im2col / implicit GEMM) for every convolution", &gemm_only});
        return g;
    }();
    return r;
}

const conv_heuristic_info& conv_heuristic_registry::get(const std::string& name) const {
    if (const conv_heuristic_info* i = find(name)) return *i;
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("no convolution heuristic '" + name + "' (known: " + known + ")");
}

}  // namespace trainvp::models
