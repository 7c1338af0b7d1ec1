// What one operation of a layer costs on a device-independent scale (paleo.md §3.1.1, eq. 1):
// the FLOPs of its computation C, the bytes it reads R (its inputs, fetched from its parents'
// outputs and its weights) and the bytes it writes W, plus the scratch memory ("workspace") its
// algorithm needs.  A device turns these into time (device_model).  Pure C++.
#pragma once

#include <cstdint>

namespace trainvp::models {

// The three operations of a layer in training (paleo.md §4.1 evaluates them separately).
enum class layer_op {
    FORWARD,          // y = f(x, w)
    BACKWARD_DATA,    // dx from dy (and w, or the saved tensors)
    BACKWARD_FILTER,  // dw from dy and x
};

// How a convolution (or a GEMM-shaped layer) is computed (paleo.md §3.1.3).
enum class conv_algorithm {
    NONE,        // not a convolution: an element-wise or data-movement layer
    GEMM,        // im2col / implicit GEMM: 2 FLOPs per multiply-add
    FFT,         // whole feature maps in the frequency domain
    FFT_TILING,  // the frequency domain on 32x32 tiles (overlap-save)
};

const char* to_string(layer_op o);
const char* to_string(conv_algorithm a);

struct op_cost {
    double flops = 0.0;            // C: floating-point operations, the whole batch
    double read_bytes = 0.0;       // R: bytes read from device memory
    double write_bytes = 0.0;      // W: bytes written to device memory
    double workspace_bytes = 0.0;  // scratch the algorithm holds (FFT spectra); not traffic
    conv_algorithm algorithm = conv_algorithm::NONE;

    double bytes() const { return read_bytes + write_bytes; }
    op_cost& operator+=(const op_cost& o);
};

}  // namespace trainvp::models
