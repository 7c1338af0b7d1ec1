// Topologies compared at an equal cost: the channel width each topology gets when the total
// bisection bandwidth is held at the mesh's, the basis of Kim, Balfour and Dally's comparison
// of the on-chip flattened butterfly (MICRO 2007, aries.md ref. [35]) with the mesh.
//
// Bisection channels: unidirectional channels crossing the cut between columns k/2 - 1 and
// k/2 in one direction (+x), counted from the generated topology: k on a k x k mesh, 2k on a
// torus (the wrap links cross it too), k^3/4 on a flattened butterfly ((k/2)^2 express
// channels per row).  ARIES's physical wires are the mesh's plus two bypass tracks per row,
// whatever segments are configured: 3k.  Width factor = mesh bisection / topology bisection,
// so a 4x4 flattened butterfly's channels are 1/4 of the mesh's and an 8x8's 1/16, with its
// radix (2k - 1 ports) unchanged.  Pure C++.
#pragma once

#include "noc/topology/noc_topology.h"

namespace trainvp::noc {

class equal_cost {
public:
    // Unidirectional channels crossing the middle vertical cut in +x (ARIES: + its 2k bypass
    // tracks, which exist whatever is configured).
    static int bisection_channels(const noc_topology& t);
    // The channel width (as a fraction of the mesh's) that gives `t` the bisection bandwidth
    // of a mesh of the same size.
    static double width_factor(const noc_topology& t);
};

}  // namespace trainvp::noc
