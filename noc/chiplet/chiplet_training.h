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
#include "noc/chiplet/layer_pipeline_traffic.h"
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
        // How communication overlaps compute: BACKWARD, one iteration whose buckets overlap
        // the rest of its backward pass (training_traffic); LAYER_WISE, ASTRA-sim 1.0's loop
        // over `iterations` iterations where the next forward pass of a layer waits for its
        // all-reduce (layer_pipeline_traffic), served LIFO or FIFO.
        enum class pipeline_kind { BACKWARD, LAYER_WISE };
        pipeline_kind pipeline = pipeline_kind::BACKWARD;
        std::uint64_t iterations = 2;
        bool lifo = true;
        // Compute per layer: PE_ARRAY, pe_array_model (tiles, vector path, DRAM); ASTRA_SIM,
        // GEMM multiply-adds at `astra_utilisation` of the arrays' peak, no memory stalls, as
        // ASTRA-sim 1.0's workload files time layers.
        enum class compute_kind { PE_ARRAY, ASTRA_SIM };
        compute_kind compute = compute_kind::PE_ARRAY;
        double astra_utilisation = 0.6836;
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
    bool done() const;
    std::string pending() const;
    // Cycle the run ends (the last compute or all-reduce of the last iteration).
    std::uint64_t run_end() const;
    // The iteration time: one iteration's end (BACKWARD), the steady-state period (LAYER_WISE).
    std::uint64_t iteration_cycles() const;
    // Forward + backward of one iteration without waits.
    std::uint64_t compute_cycles() const;
    // Sum of one iteration's all-reduce durations (the last iteration's for LAYER_WISE).
    std::uint64_t communication_cycles() const;
    // Iterations simulated (the event counts cover them all).
    int iterations() const;

    // The bucket plan (ready cycles; start and finish are filled by the run).
    const std::vector<gradient_bucket_plan>& buckets() const { return m_buckets; }
    double forward_ns() const { return m_forward_ns; }
    // Forward + backward cycles of one iteration as planned (before start()).
    std::uint64_t planned_compute_cycles() const { return m_compute_end; }
    // GEMM multiply-adds / (compute cycles x peak multiply-adds per cycle).
    double pe_utilisation() const { return m_pe_utilisation; }

private:
    std::vector<gradient_bucket_plan> m_buckets;
    std::vector<pipeline_layer> m_layers;  // per layer cycles and bucket (LAYER_WISE)
    settings m_settings;
    std::uint64_t m_compute_end = 0;  // cycle the backward pass ends
    double m_forward_ns = 0, m_pe_utilisation = 1;
    std::unique_ptr<training_traffic> m_iteration;        // BACKWARD
    std::unique_ptr<layer_pipeline_traffic> m_pipelined;  // LAYER_WISE
};

}  // namespace trainvp::noc
