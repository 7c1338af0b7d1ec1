#include "workloads/models/op_cost.h"

#include <algorithm>

namespace trainvp::models {

const char* to_string(layer_op o) {
    switch (o) {
        case layer_op::FORWARD:
            return "forward";
        case layer_op::BACKWARD_DATA:
            return "backward_data";
        case layer_op::BACKWARD_FILTER:
            return "backward_filter";
    }
    return "?";
}

const char* to_string(conv_algorithm a) {
    switch (a) {
        case conv_algorithm::NONE:
            return "none";
        case conv_algorithm::GEMM:
            return "gemm";
        case conv_algorithm::FFT:
            return "fft";
        case conv_algorithm::FFT_TILING:
            return "fft_tiling";
    }
    return "?";
}

op_cost& op_cost::operator+=(const op_cost& o) {
    flops += o.flops;
    read_bytes += o.read_bytes;
    write_bytes += o.write_bytes;
    // Operations run one after the other: the scratch is reused, not summed.
    workspace_bytes = std::max(workspace_bytes, o.workspace_bytes);
    if (algorithm == conv_algorithm::NONE) algorithm = o.algorithm;
    return *this;
}

}  // namespace trainvp::models
