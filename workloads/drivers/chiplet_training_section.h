// `workload.chiplet_training`: one data-parallel training iteration on a chiplet package
// (aries.md §V-B, Fig. 10-11), run on the interposer NoC block named by `noc`.  A zoo model, one
// replica per chiplet, its layers timed on the PE arrays and its gradients grouped into buckets
// (noc/chiplet/chiplet_training.h); the block all-reduces each bucket with its `collective` as
// the backward pass produces it.  See docs/user-guide.md ("Training on the chiplets") and
// `trainvp describe workload.chiplet_training`.
//
// hand_out reads the declared params, resolves the block (a chiplet_training_sink), builds the
// plan for its package and hands it over.
#pragma once

#include <cstdint>
#include <string>

#include "core/units.h"
#include "workloads/drivers/workload_section.h"

namespace trainvp::drivers {

class chiplet_training_section : public workload_section {
public:
    static void declare(section_decl<chiplet_training_section>& d);
    std::optional<int> hand_out(const config_node& node, const hand_out_context& ctx) override;

private:
    std::string m_noc;
    std::string m_workload_model;  // empty: no training
    std::uint64_t m_batch = 64;
    units::data_size m_bucket_size;
    bool m_allreduce_embeddings = true;
    std::uint64_t m_pes = 16;
    std::uint64_t m_pe_array = 32;
    units::data_size m_pe_buffer;
    units::data_size m_global_buffer;
    units::frequency m_pe_clock;
    units::bandwidth m_dram_bandwidth;
    double m_vector_flops_per_cycle = 32;
    enum class pipeline { BACKWARD, LAYER_WISE };
    enum class compute { PE_ARRAY, ASTRA_SIM };
    pipeline m_pipeline = pipeline::BACKWARD;
    std::uint64_t m_iterations = 2;
    bool m_lifo = true;
    compute m_compute = compute::PE_ARRAY;
    double m_astra_utilisation = 0.6836;
};

}  // namespace trainvp::drivers
