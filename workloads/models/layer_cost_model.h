// paleo.md §3.1 for a whole model: every layer's forward, backward-data and backward-filter
// operations with their FLOPs and bytes read and written (eq. 1's C, R and W), convolutions
// and fully connected layers by the algorithm a heuristic picks (conv_heuristic_registry) under
// a workspace limit, the other kinds from the zoo's per-kind FLOPs (layer_math) with the
// tensors they touch.  Pure C++; a device_model turns the costs into time.
//
//   models::layer_cost_model lcm({"cudnn_v4_like", 4.0 * (1ull << 30)});
//   std::vector<models::layer_costs> c = lcm.costs(m);   // one per layer of m, in order
#pragma once

#include <string>
#include <vector>

#include "workloads/models/conv_problem.h"
#include "workloads/models/model.h"
#include "workloads/models/op_cost.h"

namespace trainvp::models {

// The three operations of one layer.
struct layer_costs {
    std::string name;
    op_cost forward, backward_data, backward_filter;

    const op_cost& of(layer_op o) const;
    // backward_data + backward_filter (one backward kernel sequence per layer).
    op_cost backward() const;
};

struct layer_cost_options {
    std::string heuristic = "cudnn_v4_like";  // a conv_heuristic_registry name
    double workspace_limit = 4294967296.0;    // bytes; paleo.md §4.1: 4 GB
    // Whether GEMMs over a stride-dilated operand multiply its zeros (conv_problem.h).
    dilation_zeros zeros = dilation_zeros::SKIPPED;
};

class layer_cost_model {
public:
    // Throws std::invalid_argument for an unknown heuristic or a negative limit.
    explicit layer_cost_model(layer_cost_options o);

    // The costs of LAYER for BATCH samples of BYTES_PER_VALUE-byte values.
    //  * conv, deconv, fc: conv_problem's GEMM or FFT, as the heuristic picks per operation.
    //  * other kinds: forward reads the inputs (and weights) and writes the output; backward-
    //    data reads the output gradient and the tensor the gradient needs (pool, activation,
    //    dropout, normalisation: the input; softmax: the output; add, concat: none) and writes
    //    the input gradients; backward-filter (layers with parameters) reads the input and the
    //    output gradient and writes the parameter gradient.  FLOPs are layer_math's.  Flatten
    //    and reshape are views: free.
    //  * Bias additions are not counted (paleo.md §3.1.3's 2KCRSNPQ; under 1/(CRS) of a layer).
    //  * A layer fed only by the model input computes no data gradient (nothing consumes it;
    //    frameworks skip it, as the PALEO authors' graph.py does).
    layer_costs cost(const layer_info& layer, std::int64_t batch,
                     std::int64_t bytes_per_value) const;
    std::vector<layer_costs> costs(const model& m) const;

    const layer_cost_options& options() const { return m_options; }

private:
    layer_cost_options m_options;
};

}  // namespace trainvp::models
