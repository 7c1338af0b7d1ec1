// One layer of a loaded model with everything derived from it: shapes, parameters, FLOPs and
// bytes for the batch size the model was loaded with.  The formulas are in layer_math.cpp and
// README.md; the iteration builder and the node drivers read these numbers, nothing else.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "workloads/models/layer_spec.h"
#include "workloads/models/tensor_shape.h"

namespace trainvp::models {

struct layer_info {
    std::string name;  // unique; inside a block "instance.layer", repeated "instance.i.layer"
    layer_kind kind = layer_kind::FC;
    layer_spec spec;
    std::vector<std::string> inputs;  // producing layers' names; "input" is the model input
    std::vector<tensor_shape> input_shapes;
    tensor_shape output_shape;

    // Trainable values: weights + biases, and gamma + beta of normalisation layers.
    std::int64_t params = 0;
    // A multiply-add counts as 2 FLOPs (paleo.md §3.1.3: 2KCRSNPQ for a convolution).
    std::int64_t forward_flops = 0;
    std::int64_t backward_input_flops = 0;   // gradient w.r.t. the layer's input(s)
    std::int64_t backward_weight_flops = 0;  // gradient w.r.t. its parameters
    // Output tensor for the whole batch; what the forward pass keeps for the backward pass.
    std::int64_t activation_bytes = 0;
    std::int64_t weight_bytes = 0;
    // Dense gradient, i.e. what a data-parallel all-reduce moves for this layer.
    std::int64_t weight_grad_bytes = 0;

    source_loc where;  // the layer's entry in the model file

    std::int64_t backward_flops() const { return backward_input_flops + backward_weight_flops; }
    // "conv2 conv 96x27x27 -> 256x27x27 params=307456 fwd=447897600 bwd=895795200"; for logs
    // and test failure messages
    std::string str() const;
};

}  // namespace trainvp::models
