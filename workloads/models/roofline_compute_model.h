// paleo.md §3 behind the compute_model interface: each layer's forward, backward-data and
// backward-filter operations from layer_cost_model (FLOPs, reads, writes; convolutions by the
// heuristic's algorithm) timed by a device_model as R + C + W at its PPPs (eq. 1).  The same
// arithmetic accel.gpu and host.cpu apply to a training section's `compute_model: layer_ops`
// kernels.  Pure C++.
#pragma once

#include <string>

#include "workloads/models/compute_model.h"
#include "workloads/models/device_model.h"
#include "workloads/models/layer_cost_model.h"

namespace trainvp::models {

class roofline_compute_model : public compute_model {
public:
    // Throws std::invalid_argument as layer_cost_model does, and for a non-positive rate.
    roofline_compute_model(const device_model& device, layer_cost_options costs);

    std::string name() const override { return "roofline"; }
    // forward = T(forward op); backward = T(backward-data) + T(backward-filter), each op R+C+W.
    layer_seconds time_layer(const layer_info& layer, std::int64_t batch,
                             std::int64_t bytes_per_value) const override;

private:
    device_model m_device;
    layer_cost_model m_costs;
};

}  // namespace trainvp::models
