#include "workloads/models/compute_model.h"

namespace trainvp::models {

std::vector<layer_seconds> compute_model::time_layers(const model& m) const {
    std::vector<layer_seconds> out;
    out.reserve(m.layers().size());
    for (const auto& l : m.layers()) out.push_back(time_layer(l, m.batch(), m.bytes_per_value()));
    return out;
}

pass_time compute_model::forward_pass(const model& m) const {
    std::vector<double> t;
    for (const layer_seconds& s : time_layers(m)) t.push_back(s.forward);
    return network_time(m, t);
}

pass_time compute_model::backward_pass(const model& m) const {
    std::vector<double> t;
    for (const layer_seconds& s : time_layers(m)) t.push_back(s.backward);
    return network_time(m, t);
}

}  // namespace trainvp::models
