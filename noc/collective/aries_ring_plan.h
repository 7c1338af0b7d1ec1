// ARIES's bandwidth-optimised ring (aries.md §IV-A-1, Fig. 6(b)): a ring placed on the mesh
// uses one output and one input port of each router; the bypass links, cut into one-pitch
// segments, give every ring edge a second link between the same two routers, on ports the
// ring leaves idle ("those segmented bypassing links can be connected to idle router ports"),
// so 2N links carry the ring.  Packets of a message alternate between the two links.
// Pure C++.
#pragma once

#include <vector>

#include "noc/topology/noc_topology.h"
#include "noc/topology/route_table.h"

namespace trainvp::noc {

// The bypass segments (track 0, one per ring edge) and their mux settings for the ring that
// visits `ring` (routers in ring order, neighbours adjacent on the mesh).  Throws
// std::invalid_argument when two ring neighbours are not adjacent.
std::vector<bypass_segment> bandwidth_ring_segments(int k, const std::vector<int>& ring);

// Route table of the ring's single-hop transfers: each rank's successor over the mesh link,
// with the bypass segment as the alternate port (when `t` has it).
route_table ring_route_table(const noc_topology& t, const std::vector<int>& ring);

}  // namespace trainvp::noc
