// Deadlock freedom of a routing set-up: the channel dependency graph (Dally & Seitz, IEEE TC
// 1987) of the route table, with one node per (channel, VC class).  A packet holding a
// channel while it waits for the next adds an edge; a cycle can deadlock.  Checked at
// elaboration, before any flit moves.  Pure C++.
#pragma once

#include <string>
#include <vector>

#include "noc/topology/noc_topology.h"
#include "noc/topology/route_table.h"

namespace trainvp::noc {

struct route_hop {
    int channel = 0;
    int vc_class = 0;
};

// The channels a packet from `src` to `dst` crosses.  Throws std::invalid_argument when the
// table sends it to an unconnected port or round in a loop.
// `variant` selects the route table's alternate ports (route_table::alternate).
std::vector<route_hop> trace_route(const noc_topology& t, const route_table& rt, int src, int dst,
                                   int variant = 0);

// Empty when the dependency graph of all (src, dst) routes is acyclic; otherwise one cycle,
// spelt "r0 +x -> r1 (class 0) => r1 +y -> r5 (class 0) => ... => r0 +x -> r1 (class 0)".
// Both route variants are checked when the table has alternates.  Routes the table leaves unset
// (port -1 at the source) are skipped (a collective's table covers only its own pairs).
std::string find_dependency_cycle(const noc_topology& t, const route_table& rt);

}  // namespace trainvp::noc
