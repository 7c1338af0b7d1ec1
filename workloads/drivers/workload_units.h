// A block that runs several op streams of its own, each as a host runs one (noc.interposer: one
// per chiplet).  Each unit is named under the block ("chiplet[3]": the path noc.chiplet[3]),
// answers to its own node id and takes its ops through its own workload_sink, so that
// workload.ops names it by that path and workload.chakra / workload.training take it as a
// host.  The platform lists the units with the blocks (platform_query.h) and collects each
// unit's ran() for the iteration breakdown.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/drivers/workload_sink.h"

namespace trainvp {

class workload_units {
public:
    struct unit {
        std::string name;  // under the block's path: "chiplet[3]"
        std::uint32_t node_id = 0;
        workload_sink* sink = nullptr;
    };
    virtual ~workload_units() = default;
    // In node-id order; the same list every call.
    virtual std::vector<unit> units() = 0;
};

}  // namespace trainvp
