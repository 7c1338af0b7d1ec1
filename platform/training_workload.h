// The `workload.training` section: a data-parallel training iteration built by
// workloads::training_builder from the model zoo and a collective, and handed to each listed
// host as its op list.  See docs/user-guide.md ("Training iterations").
#pragma once

#include <map>
#include <string>

#include "core/config_node.h"
#include "kit/ip_module.h"
#include "platform/platform_desc.h"

namespace trainvp {

// Parses `training` (the section's node), builds every host's ops and hands them over; returns
// the number of iterations.  Throws input_error with file:line:column and the full key.
// op_names: whether the generated ops carry their names (the timeline records them); without,
// a host asks its source for an op's name when it reports an error.
int hand_out_training(const config_node& training, const platform_desc& desc,
                      const std::map<std::string, ip_module*>& blocks, bool op_names);

}  // namespace trainvp
