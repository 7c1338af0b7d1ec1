// Data-parallel training on the chiplet package (aries.md §V-B, Fig. 10-11), the plan the
// `chiplet_training` workload section (workloads/drivers/chiplet_training_section) builds and
// hands to noc.interposer: a zoo model, one replica per chiplet, its layers timed on the PE
// arrays (pe_array_model), its gradients grouped into buckets as the training builder groups
// them (workloads/iteration/gradient_buckets.h), each bucket all-reduced on the NoC as the
// backward pass produces it (training_traffic).  Pure C++.
//
// Its interface to the network is narrow on purpose, so that the section builds it without the
// block: the number of chiplets and the NoC's cycle in, a factory of one bucket's all-reduce
// traffic and the network to run it on at start() (called by the block).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/units.h"
#include "noc/chiplet/training_traffic.h"

namespace trainvp::noc {

class chiplet_training {
public:
    // What the section's params say (their declarations and defaults: chiplet_training_section).
    struct settings {
        std::string workload_model;  // empty: no training
        std::uint64_t batch = 64;
        units::data_size bucket_size{25u << 20};
        bool allreduce_embeddings = true;
        std::uint64_t pes = 16, pe_array = 32;
        units::data_size pe_buffer{64u << 10}, global_buffer{4u << 20};
        units::frequency pe_clock{1e9};
        units::bandwidth dram_bandwidth{256e9};
        double vector_flops_per_cycle = 32;
    };

    // Loads the model for `chiplets` replicas and times its iteration in NoC cycles of
    // `cycle_ps`.  Throws input_error at `where`, naming keys under `key` (the section's path),
    // for a batch that does not split over the chiplets or a model not in the zoo.
    chiplet_training(const settings& s, std::uint64_t chiplets, std::uint64_t cycle_ps,
                     const source_loc& where, const std::string& key);
    ~chiplet_training();

    // Runs the iteration on `net`: each bucket's all-reduce is made by `make` (bytes per rank).
    void start(noc_network& net, training_traffic::collective_maker make);

    // After start().
    const training_traffic& iteration() const { return *m_iteration; }
    bool done() const { return m_iteration->done(); }
    std::string pending() const { return m_iteration->pending(); }

    // The bucket plan (ready cycles; start and finish are filled by the run).
    const std::vector<gradient_bucket_plan>& buckets() const { return m_buckets; }
    double forward_ns() const { return m_forward_ns; }
    // GEMM multiply-adds / (compute cycles x peak multiply-adds per cycle).
    double pe_utilisation() const { return m_pe_utilisation; }

private:
    std::vector<gradient_bucket_plan> m_buckets;
    std::uint64_t m_compute_end = 0;  // cycle the backward pass ends
    double m_forward_ns = 0, m_pe_utilisation = 1;
    std::unique_ptr<training_traffic> m_iteration;
};

}  // namespace trainvp::noc
