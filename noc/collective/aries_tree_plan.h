// ARIES bypass mapping for tree all-reduces (aries.md §IV-B-1, Fig. 7(c); §IV-B-2, Fig. 8):
// tree neighbours that are not adjacent routers are bridged by bypass segments, "each link
// ... allocated for a given route in the tree".  Pure C++.
//
// A message from router s to router d follows dimension-order routing (x, then y) in two
// legs: along row y(s) to the corner (x(d), y(s)), then along column x(d).  Each leg that
// spans two or more pitches is a candidate for a bypass segment on that row or column.
// Candidates are taken greedily: legs of pairs whose routers share a row or column first
// (Fig. 7(c): a dedicated link per tree edge), then the shortest first, which is aries.md's
// "greedy policy to segment the bypassing links to connect any short-distanced nodes"
// (§IV-B-1), then the most used (pairs starting the leg), then in order of first use.  A candidate
// gets a segment when
//   - a track of its row/column (two per row and column, §III-B) is free over its whole span
//     (segments cannot overlap on a track: a segment switch cuts a track only at routers),
//     or a segment with the same ends already exists and its direction is still unused;
//   - its start router has an output port and its end router an input port that selects no
//     other bypass link (a port selects one link at a time, §III-B-1) and whose mesh link no
//     route of the pattern still needs (the mux takes the port away from its mesh link).
//     The port named after the direction of travel is tried first.
// Otherwise the leg stays on mesh links.  A route takes a bypass wherever it meets the start
// of one that ends where its current leg ends (so a leg from 0 to 3 rides the segment 1-3 of
// another pair from router 1 on).  The route table has, for every (router, destination) on
// the pattern's routes, the bypass port where a bypass is taken and the dimension-order mesh
// port otherwise; a bypass moves monotonically towards the destination
// within the current dimension, so the routing stays acyclic (the dependency check confirms).
#pragma once

#include <utility>
#include <vector>

#include "noc/topology/noc_topology.h"
#include "noc/topology/route_table.h"
#include "workloads/collectives/schedule.h"

namespace trainvp::noc {

struct tree_bypass_plan {
    std::vector<bypass_segment> segments;
    route_table routes;     // set only for the (router, destination) pairs the pattern uses
    int legs_wanted = 0;    // route legs of two or more pitches
    int legs_bridged = 0;   // of those, carried by a bypass segment
    int pitches_saved = 0;  // sum over bridged legs of (pitches - 1)
};

// The directed router pairs (src != dst) that carry a message of `s` when rank r sits on
// router router_of[r]: distinct, in the order of their first SEND (rank by rank).
std::vector<std::pair<int, int>> message_pairs(const collectives::schedule& s,
                                               const std::vector<int>& router_of);

// Bypass segments, mux settings and routes for the pattern `pairs` on a k x k ARIES
// interposer with `tracks` bypass tracks per row and column.  Throws std::invalid_argument
// when a router is off the grid or tracks is not 1 or 2.
tree_bypass_plan plan_tree_bypass(int k, const std::vector<std::pair<int, int>>& pairs,
                                  int tracks = 2);

}  // namespace trainvp::noc
