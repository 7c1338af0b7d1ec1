// How a convolution's algorithm is chosen (paleo.md §3.1.3: "PALEO uses heuristics from cuDNN
// to make algorithm choices"), by name: a config picks one (`conv_algorithm: cudnn_v4_like`)
// and the layer cost model asks it once per layer and operation; no caller switches over them.
// Built in: cudnn_v4_like and gemm (conv_heuristic_registry.cpp says each rule).  Pure C++.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/name_registry.h"
#include "workloads/models/conv_problem.h"
#include "workloads/models/layer_info.h"
#include "workloads/models/op_cost.h"

namespace trainvp::models {

struct conv_heuristic_info {
    std::string name;
    std::string description;
    // The algorithm for operation OP (problem P) of conv or fc LAYER, whose workspace must not
    // exceed WORKSPACE_LIMIT bytes.
    std::function<conv_algorithm(const layer_info& layer, const conv_problem& p, layer_op op,
                                 double workspace_limit)>
        choose;
};

class conv_heuristic_registry : public name_registry<conv_heuristic_info> {
public:
    // The built-in heuristics, registered on first use.
    static conv_heuristic_registry& global();
    // find(), or std::invalid_argument naming the known heuristics.
    const conv_heuristic_info& get(const std::string& name) const;

private:
    conv_heuristic_registry() : name_registry("convolution heuristic") {}
};

}  // namespace trainvp::models
