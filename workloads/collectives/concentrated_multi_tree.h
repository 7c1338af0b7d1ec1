// ARIES's concentrated multi-tree all-reduce (aries.md §IV-B-2, Fig. 8): groups of (four)
// nodes first reduce into a concentrated node, trees then span the concentrated nodes, and
// the result goes back into the groups.  Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

struct collective_info;

// The 2 x 2 blocks of a cols x rows grid whose rank at (x, y) is y * cols + x, in row-major
// block order; members of a block in the order (x, y), (x+1, y), (x, y+1), (x+1, y+1)
// (aries.md Fig. 8(b): nodes 0, 1, 4, 5 form the first concentrated node on 4x4).  Throws
// std::invalid_argument when cols or rows is odd or < 2.
std::vector<std::vector<int>> grid_quads(int cols, int rows);

// Concentrated multi-tree over `groups` (a partition of ranks 0..N-1, each group >= 2 ranks).
// The vector is split in two halves (partition(n, 2)) and each group has two concentrators,
// its first member for half 0 and its last member for half 1 ("partition the gradient
// accumulation into two nodes within each concentrated tree node", Fig. 8(c)):
//   round 0:          every member sends half h to the concentrator of half h (reduce);
//   rounds 1..2H:     for each half, multi_tree(G, half, trees, degree) among that half's
//                     concentrators (G groups, in group order), reduce then broadcast;
//   round 2H + 1:     each concentrator copies its half back to the other members.
// H is the height of the trees over the G concentrated nodes, floor(log_D) of the heap, =
// log_D(N/4) when N/4 is a power of D (the paper's "approximately reduced to log_D N/4").
// With one group the middle phase is empty (2 rounds).  Rounds: 2H + 2.  Throws
// std::invalid_argument when the groups do not partition 0..N-1, a group has fewer than 2
// members, elements < 2, trees < 0 or degree < 1.
schedule concentrated_multi_tree(const std::vector<std::vector<int>>& groups, uint64_t elements,
                                 int trees = 0, int degree = 2);

// The grid form: grid_quads(cols, rows) as the groups.
schedule concentrated_multi_tree(int cols, int rows, uint64_t elements, int trees = 0,
                                 int degree = 2);

// Registry entry (collective_registry; listed in builtin_collectives.cpp): the grid form, on
// args.cols x args.rows.
collective_info concentrated_multi_tree_collective();

}  // namespace trainvp::collectives
