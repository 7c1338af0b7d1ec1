#include "workloads/models/layer_info.h"

namespace trainvp::models {

std::string layer_info::str() const {
    std::string in;
    for (const auto& s : input_shapes) {
        if (!in.empty()) in += " + ";
        in += s.str();
    }
    if (in.empty()) in = "-";
    std::string k = to_string(kind);
    if (kind == layer_kind::ACTIVATION) k += std::string(":") + to_string(spec.function);
    if (kind == layer_kind::POOL) k += std::string(":") + to_string(spec.pool);
    if (kind == layer_kind::GENERIC) k += ":" + spec.op;
    return name + " " + k + " " + in + " -> " + output_shape.str() +
           " params=" + std::to_string(params) + " fwd=" + std::to_string(forward_flops) +
           " bwd=" + std::to_string(backward_flops());
}

}  // namespace trainvp::models
