#include "workloads/models/roofline_compute_model.h"

#include <utility>

namespace trainvp::models {

roofline_compute_model::roofline_compute_model(const device_model& device, layer_cost_options costs)
    : m_device(device), m_costs(std::move(costs)) {
    m_device.seconds(op_cost{});  // throws on a non-positive rate
}

layer_seconds roofline_compute_model::time_layer(const layer_info& layer, std::int64_t batch,
                                                 std::int64_t bytes_per_value) const {
    const layer_costs c = m_costs.cost(layer, batch, bytes_per_value);
    return {m_device.seconds(c.forward),
            m_device.seconds(c.backward_data) + m_device.seconds(c.backward_filter)};
}

}  // namespace trainvp::models
