// The compute of each chiplet of a package that runs op lists (noc.interposer's `chiplet:`
// sub-map): ARIES's PE arrays (aries.md Fig. 4(b), Table II), the same keys and defaults as
// workload.chiplet_training's.  Pure C++; the keys are the members' names.
#pragma once

#include <cstdint>

#include "core/param_decl.h"
#include "noc/chiplet/pe_array_model.h"

namespace trainvp::noc {

struct chiplet_compute_params {
    std::uint64_t pes = 16;
    std::uint64_t pe_array = 32;
    // As declared (a package given no `chiplet:` sub-map keeps these).
    units::data_size global_buffer{4u << 20};
    units::frequency pe_clock{1e9};
    units::bandwidth dram_bandwidth{256e9};
    double vector_flops_per_cycle = 32;

    static void declare(param_list<chiplet_compute_params>& d);
    pe_array_config config() const;
};

}  // namespace trainvp::noc
