// Data-parallel training on the chiplet package (aries.md §V-B, Fig. 10-11), the `training:`
// sub-map of noc.interposer: a zoo model, one replica per chiplet, its layers timed on the PE
// arrays (pe_array_model), its gradient buckets all-reduced on the NoC as the backward pass
// produces them (training_traffic).  Pure C++.
#pragma once

#include <cstdint>
#include <string>

#include "core/param_decl.h"
#include "core/units.h"

namespace trainvp::noc {

class chiplet_training {
public:
    // The keys are the members' names.
    struct settings {
        std::string workload_model;  // empty: no training
        std::uint64_t batch = 64;
        units::data_size bucket_size{25u << 20};
        bool allreduce_embeddings = true;
        std::uint64_t pes = 16, pe_array = 32;
        units::data_size pe_buffer{64u << 10}, global_buffer{4u << 20};
        units::frequency pe_frequency{1e9};
        units::bandwidth dram_bandwidth{256e9};
        double vector_flops_per_cycle = 32;

        static void declare(param_list<settings>& d);
    };
};

}  // namespace trainvp::noc
