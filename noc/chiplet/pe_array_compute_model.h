// ARIES's chiplet compute (pe_array_model: aries.md Fig. 4(b), Table II) behind the
// compute_model interface of workloads/models, so that a tool or test times a zoo model on an
// ARIES chiplet exactly as it times it on paleo.md §3's roofline devices.  An adapter: the PE
// array's own timing (tiles, vector path, DRAM streaming, in integer ps) is used unchanged, and
// chiplet_training keeps calling pe_array_model directly (ARIES's outputs do not depend on this
// class).  Pure C++.
#pragma once

#include <string>

#include "noc/chiplet/pe_array_model.h"
#include "workloads/models/compute_model.h"
#include "workloads/ops/op.h"

namespace trainvp::noc {

class pe_array_compute_model : public models::compute_model {
public:
    explicit pe_array_compute_model(const pe_array_config& cfg);

    std::string name() const override { return "pe_array"; }
    // pe_array_model::time_layer's forward and backward time_ps, in seconds.
    models::layer_seconds time_layer(const models::layer_info& layer, std::int64_t batch,
                                     std::int64_t bytes_per_value) const override;
    // An op of an op list on the chiplet (no layer shape; noc/README.md, "Op lists on
    // chiplets"): compute and gpu_compute as their FLOPs of GEMM work at the arrays' peak, sum
    // and update as their element-wise FLOPs (ops::work_flops) on the vector path, each with
    // its memory traffic (ops::memory_bytes) held in the global buffer or streamed from DRAM
    // (pe_array_model::time_work).  Other kinds take no compute: 0.
    std::uint64_t op_ps(ops::op_kind kind, double flops, std::uint64_t memory_bytes) const;
    const pe_array_model& array() const { return m_array; }

private:
    pe_array_model m_array;
};

}  // namespace trainvp::noc
