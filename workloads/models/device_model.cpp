#include "workloads/models/device_model.h"

#include <stdexcept>

namespace trainvp::models {

double device_model::seconds(const op_cost& c) const {
    if (!(peak_flops > 0) || !(memory_bandwidth > 0) || !(ppp_compute > 0) || !(ppp_memory > 0)) {
        throw std::invalid_argument("device_model: peak, bandwidth and PPPs must be positive");
    }
    const double mem = memory_bandwidth * ppp_memory;
    return c.read_bytes / mem + c.flops / (peak_flops * ppp_compute) + c.write_bytes / mem;
}

}  // namespace trainvp::models
