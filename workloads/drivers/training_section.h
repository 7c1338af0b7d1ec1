// `workload.training`: a data-parallel training iteration of a zoo model, built by
// workloads::training_builder and handed to each worker (and an aggregator) as its op stream,
// one iteration at a time (workloads::iteration_source).  See docs/user-guide.md ("Training
// iterations") and `trainvp describe workload.training`.
// With sharding, tensor_parallel or pipeline_stages, workloads::parallel_training_builder
// generates every iteration of each worker's list at set-up instead (docs/user-guide.md,
// "Modern parallelism").
//
// hand_out reads the declared params, resolves the hosts (host_roster), checks that compressible
// traffic meets compressing NICs, builds the iteration and hands it out; with `gradient:` the
// functional check (functional_check.h) hands out data and whole lists instead.
#pragma once

#include <cstdint>
#include <string>

#include "core/units.h"
#include "workloads/collectives/worker_aggregator.h"
#include "workloads/drivers/workload_section.h"
#include "workloads/iteration/parallel_training_builder.h"
#include "workloads/iteration/training_builder.h"

namespace trainvp::drivers {

class training_section : public workload_section {
public:
    static void declare(section_decl<training_section>& d);
    std::optional<int> hand_out(const config_node& node, const hand_out_context& ctx) override;

private:
    std::string m_model;
    config_node m_model_parameters;
    std::int64_t m_batch = 0;
    config_node m_workers;
    std::string m_aggregator;
    std::string m_algorithm = "ring";  // a name of workloads::exchange_algorithm_names()
    workloads::exchange_policy m_policy = workloads::exchange_policy::AFTER_BACKWARD;
    units::data_size m_bucket;
    workloads::compute_placement m_compute = workloads::compute_placement::CPU;
    workloads::compute_placement m_update = workloads::compute_placement::CPU;
    units::duration m_forward_time;
    units::duration m_backward_time;
    bool m_layer_costs = false;  // compute_model: layer_ops
    std::string m_conv_algorithm = "cudnn_v4_like";
    units::data_size m_workspace_limit;
    models::dilation_zeros m_dilation_zeros = models::dilation_zeros::SKIPPED;
    std::string m_model_parallel_from;
    std::int64_t m_iterations = 1;
    std::string m_tos;
    collectives::aggregator_return m_broadcast = collectives::aggregator_return::TREE;
    bool m_compression = false;
    bool m_offload = false;
    std::int64_t m_group = 0;
    std::int64_t m_levels = 2;
    config_node m_gradient;
    // Modern parallelism (workloads::parallel_training_builder).
    workloads::sharding_mode m_sharding = workloads::sharding_mode::NONE;
    std::int64_t m_tensor_parallel = 1;
    std::int64_t m_pipeline_stages = 1;
    std::int64_t m_micro_batches = 1;
};

}  // namespace trainvp::drivers
