// A block that runs a data-parallel training iteration on a chiplet package (noc.interposer).
// The `chiplet_training` workload section (chiplet_training_section.h) builds the iteration's
// plan for the block's package, the model's layers timed on the PE arrays and the gradient
// buckets with the cycle each is ready (noc/chiplet/chiplet_training.h), and hands it over after
// binding; the block runs each bucket's all-reduce on its network when the plan says so.  The
// platform finds it on a block for the section (platform_query.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "noc/chiplet/chiplet_training.h"

namespace trainvp {

class chiplet_training_sink {
public:
    // What a plan is built for: one model replica per chiplet, ready times in NoC cycles.
    struct package {
        std::uint64_t chiplets = 0;
        std::uint64_t cycle_ps = 0;
    };

    virtual ~chiplet_training_sink() = default;
    virtual package chiplet_package() const = 0;
    // Takes the plan built for chiplet_package() and runs it in place of the block's own
    // traffic.  A block that cannot run it throws input_error; `key` is the section's full key
    // (workload.chiplet_training), for the message.
    virtual void accept_training(std::unique_ptr<noc::chiplet_training> plan,
                                 const source_loc& where, const std::string& key) = 0;
};

}  // namespace trainvp
