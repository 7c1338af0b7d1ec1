// The config's `workload:` section handed out: each entry goes to the section registered under
// its key (section_registry.h), in config order, after the platform is built and bound.
#pragma once

#include <cstdint>
#include <vector>

#include "core/config_node.h"
#include "workloads/drivers/platform_query.h"
#include "workloads/drivers/workload_section.h"

namespace trainvp::drivers {

// Returns the number of iterations the run holds: the last counting section's (training), else
// 1.  Throws input_error for an unknown section or a bad entry.  Sections that measure
// statistics from the hosts' runs append their measures to `measures` (when given).
int hand_out_workload(const config_node& workload, const platform_query& platform,
                      std::uint64_t seed, bool op_names,
                      std::vector<run_measure>* measures = nullptr);

}  // namespace trainvp::drivers
