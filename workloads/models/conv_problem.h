// One convolution-shaped operation, as paleo.md §3.1.3 counts it: the forward pass of a
// convolution, and its two gradients written as convolutions too (Chetlur et al.'s notation:
// the gradient w.r.t. the data is a convolution of the output gradient, dilated by the stride
// and padded to the input's extent, with the transposed filters; the gradient w.r.t. the
// filters is a convolution of the input with the output gradient as its "filter").  A fully
// connected layer is the 1x1 case.  gemm() and fft() cost it by the two implementations of
// §3.1.3.  Pure C++.
#pragma once

#include <cstdint>

#include "workloads/models/layer_info.h"
#include "workloads/models/op_cost.h"

namespace trainvp::models {

// What a GEMM does with the zeros a stride inserts between the stored values of an operand
// (the output gradient a strided convolution's backward-data convolves; the input of a strided
// transposed convolution's forward pass, the same operation).
enum class dilation_zeros {
    SKIPPED,   // only the stored values are multiplied (col2im-like; the default)
    COMPUTED,  // a stride-1 GEMM over the dilated operand multiplies the zeros too, as the PALEO
               // authors count holes in the input (TalwalkarLab/paleo flops_profiler.py
               // _profile_conv2d_gemm); holes in the filter operand (backward-filter) stay skipped
};

struct conv_problem {
    // `groups` independent convolutions, each of `n` images of `c` channels to `k` channels.
    std::int64_t groups = 1;
    std::int64_t n = 0, c = 0, k = 0;
    // The extent the filter slides over: the input with its padding (and, for the gradient
    // w.r.t. the data, the output gradient dilated by the stride and padded by R-1-pad).
    std::int64_t padded_h = 0, padded_w = 0;
    std::int64_t r = 0, s = 0;          // filter extent
    std::int64_t out_h = 0, out_w = 0;  // output extent
    std::int64_t stride = 1;            // of the layer (FFT needs 1)
    // Fraction of the multiply-adds on stored values: < 1 when an operand is an output
    // gradient dilated by the layer's stride, whose inserted zeros are skipped.
    double density = 1.0;
    // Values of the stored tensors the operation reads (its input and its filter) and writes.
    double in_values = 0, filter_values = 0, out_values = 0;
    std::int64_t bytes_per_value = 4;

    // The operation OP of a conv, deconv or fc LAYER for BATCH samples.  A deconv (transposed
    // convolution) is the convolution C that maps its output back onto its input (same filters,
    // stride and padding): its forward pass is C's backward-data, its backward-data is C's
    // forward pass and its backward-filter is C's backward-filter (paleo.md §3.1.3's counting
    // applies unchanged; TalwalkarLab/paleo paleo/layers/conv.py Deconv2D does the same).
    // Throws std::invalid_argument for another kind.
    static conv_problem of(const layer_info& layer, layer_op op, std::int64_t batch,
                           std::int64_t bytes_per_value,
                           dilation_zeros zeros = dilation_zeros::SKIPPED);

    // 2 x multiply-adds over the output: 2 g n c k r s P Q x density; reads the input and the
    // filter once, writes the output once (im2col in on-chip tiles, as implicit GEMM does).
    op_cost gemm() const;
    // paleo.md §3.1.3: transform the inputs (n c maps) and filters (c k maps) to the frequency
    // domain, multiply point-wise, transform the n k products back.  A complex 2-D transform of
    // n points is 5 n log2 n FLOPs (Cooley-Tukey), n padded to powers of two per dimension.  As
    // the PALEO authors count it (TalwalkarLab/paleo, paleo/profilers/flops_profiler.py): the
    // transforms of real inputs and filters cost half (Hermitian symmetry), the inverse of the
    // complex products a full complex transform; the point-wise product is 4 FLOPs per point per
    // (n, c, k) (one complex multiply-add, 8 FLOPs, on the n/2 independent points); spectra are
    // held as n complex values of 8 B, n before the power-of-two padding.  TILED: 32x32 tiles by
    // overlap-save (each gives 33-R x 33-S outputs), the filters transformed once.  The spectra are
    // the workspace; each is written once and read once.
    op_cost fft(bool tiled) const;
    // Tiles of the tiled FFT, and the transform extent (per dimension, a power of two).
    std::int64_t fft_tiles(bool tiled) const;
    std::int64_t fft_extent_h(bool tiled) const;
    std::int64_t fft_extent_w(bool tiled) const;
    // One map's spectrum in bytes, and the spectra an FFT holds (its workspace).
    double fft_spectrum_bytes(bool tiled) const;
    double fft_workspace(bool tiled) const;
};

}  // namespace trainvp::models
