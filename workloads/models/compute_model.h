// The one interface a device's compute timing sits behind: each layer's forward and backward
// pass times for a batch.  paleo.md §3's roofline (roofline_compute_model: layer_cost_model's
// FLOPs and bytes on a device_model, the arithmetic accel.gpu and host.cpu time their ops
// with) and ARIES's chiplet PE arrays (noc/chiplet/pe_array_compute_model over
// pe_array_model) both implement it, so a tool or test times any model on either the same way
// and network_time (§3.1.2) sums the passes.  Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/models/model.h"
#include "workloads/models/network_time.h"

namespace trainvp::models {

// One layer's passes in seconds; backward = the gradients w.r.t. the data and the parameters.
struct layer_seconds {
    double forward = 0;
    double backward = 0;
};

class compute_model {
public:
    virtual ~compute_model() = default;
    // "roofline", "pe_array": for reports.
    virtual std::string name() const = 0;
    // LAYER's passes for BATCH samples of BYTES_PER_VALUE-byte values.
    virtual layer_seconds time_layer(const layer_info& layer, std::int64_t batch,
                                     std::int64_t bytes_per_value) const = 0;

    // Every layer of M at the batch M was loaded with, in order.
    std::vector<layer_seconds> time_layers(const model& m) const;
    // paleo.md §3.1.2 over M's layers: the forward pass and the backward pass.
    pass_time forward_pass(const model& m) const;
    pass_time backward_pass(const model& m) const;
};

}  // namespace trainvp::models
