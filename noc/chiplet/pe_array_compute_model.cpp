#include "noc/chiplet/pe_array_compute_model.h"

namespace trainvp::noc {

pe_array_compute_model::pe_array_compute_model(const pe_array_config& cfg) : m_array(cfg) {}

models::layer_seconds pe_array_compute_model::time_layer(const models::layer_info& layer,
                                                         std::int64_t batch,
                                                         std::int64_t bytes_per_value) const {
    const layer_timing t = m_array.time_layer(layer, batch, bytes_per_value);
    return {static_cast<double>(t.forward.time_ps) * 1e-12,
            static_cast<double>(t.backward.time_ps) * 1e-12};
}

std::uint64_t pe_array_compute_model::op_ps(ops::op_kind kind, double flops,
                                            std::uint64_t memory_bytes) const {
    switch (kind) {
        case ops::op_kind::COMPUTE:
        case ops::op_kind::GPU_COMPUTE:
            return m_array.time_work(flops, 0.0, memory_bytes).time_ps;
        case ops::op_kind::SUM:
        case ops::op_kind::UPDATE:
            return m_array.time_work(0.0, flops, memory_bytes).time_ps;
        default:
            return 0;
    }
}

}  // namespace trainvp::noc
