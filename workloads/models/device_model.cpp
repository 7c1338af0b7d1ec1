#include "workloads/models/device_model.h"

#include <stdexcept>

#include "core/units.h"

namespace trainvp::models {

double device_model::seconds(const op_cost& c) const {
    if (!(peak_flops > 0) || !(memory_bandwidth > 0) || !(ppp_compute > 0) || !(ppp_memory > 0)) {
        throw std::invalid_argument("device_model: peak, bandwidth and PPPs must be positive");
    }
    const double mem = memory_bandwidth * ppp_memory;
    return c.read_bytes / mem + c.flops / (peak_flops * ppp_compute) + c.write_bytes / mem;
}

std::uint64_t device_model::compute_ps(double flops) const {
    return units::compute_rate{peak_flops * ppp_compute}.time_for(flops).ps;
}

std::uint64_t device_model::memory_ps(std::uint64_t bytes) const {
    return units::bandwidth{memory_bandwidth * ppp_memory}.transfer_time(bytes).ps;
}

}  // namespace trainvp::models
