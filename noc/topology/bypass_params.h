// The ARIES bypass set-up of noc.interposer, its `bypass:` sub-map: either the segments as
// written (each a map: dimension, line, track, span and the mux settings of each direction)
// or a plan that generates them for a collective (noc/collective/aries_ring_plan.h,
// aries_tree_plan.h).  Pure C++; the keys are the members' names.
#pragma once

#include <vector>

#include "core/param_decl.h"
#include "noc/topology/noc_topology.h"

namespace trainvp::noc {

enum class bypass_plan { MANUAL, BANDWIDTH_RING, TREE };

struct bypass_params {
    bypass_plan plan = bypass_plan::MANUAL;
    std::vector<bypass_segment> segments;  // MANUAL only

    static void declare(param_list<bypass_params>& d);
};

}  // namespace trainvp::noc
