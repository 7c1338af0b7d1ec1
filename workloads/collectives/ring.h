// Ring all-reduce and its multi-level variants.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

struct collective_info;

// INCEPTIONN Algorithm 1 (inceptionn.md §IV), the "gradient-centric" ring, also the ring of
// aries.md §II-C Fig. 3 and the smart NIC's ring (smartnic.md §II-B).  The vector is split into
// N blocks with partition(); rank i sends to (i+1) mod N and receives from (i-1) mod N.
// Reduce-scatter, steps s = 1..N-1: receive block (i-s) mod N and add it in, send block
// (i-s+1) mod N.  All-gather, steps s = N..2N-2: receive and overwrite block (i-s) mod N, send
// block (i-s+1) mod N.  Step s is round s-1: 2(N-1) rounds.  After the reduce-scatter rank i
// holds the full sum of block (i+1) mod N, as in the paper's worked example.  NOTE: the
// paper's lines 16-17 write (i-s+1) and (i-s+2) for the all-gather, which is one block off
// its own example (text P2: "worker[3] sends blk[0] to worker[0]") and would overwrite
// finished blocks with partial ones; we follow the example (see README.md).
//
// segments > 1 gives the pipelined ring of smartnic.md §II-B / §IV-A: every block is split
// into `segments` pieces (partition()) and each ring step becomes `segments` rounds of one
// piece each, so an engine can stream a block through its FIFOs and adders piece by piece.
// 2(N-1)*segments rounds, same bytes.  Throws std::invalid_argument when ranks < 2,
// elements < 1 or segments < 1.
schedule ring_allreduce(int ranks, uint64_t elements, uint32_t segments = 1);

// ring_allreduce(ranks, elements, segments).steps[rank] alone, made without the other ranks'
// (a 1024-rank ring's schedule is 4 M steps, 134 MB; one rank's is 4092): for a consumer that
// expands one rank at a time.  Throws as ring_allreduce does, and std::invalid_argument when
// rank is not in [0, ranks).
std::vector<step> ring_allreduce_steps(int ranks, uint64_t elements, int rank,
                                       uint32_t segments = 1);

// Hierarchical ring (aries.md §IV-A-2, "latency optimised ring"): ranks are numbered in mixed
// radix with digit l in [0, group_sizes[l]) (the first digit varies fastest, so level-0
// groups are runs of consecutive ranks).  Level l runs the ring reduce-scatter of
// ring_allreduce() among ranks that differ only in digit l, on the block each holds after
// level l-1 (the whole vector at level 0); the all-gathers then run in reverse order.  The
// reduce-scatter takes sum(g_l - 1) rounds, L*(N^(1/L) - 1) for equal groups, the latency
// aries.md gives; total rounds 2*sum(g_l - 1); each rank still sends 2(N-1)/N of the vector.
// Levels of size 1 are skipped.  Throws std::invalid_argument when a size is < 1 or the
// product (the rank count) is < 2.
schedule hierarchical_ring(const std::vector<int>& group_sizes, uint64_t elements);

// L levels of equal size N^(1/L).  Throws std::invalid_argument unless ranks is an exact L-th
// power of an integer >= 2.
schedule hierarchical_ring(int ranks, int levels, uint64_t elements);

// 2D ring (aries.md §II-D, Table I): rank = row * cols + col; a ring along each row, then a
// ring along each column on the row result's block; all-gathers in reverse.  Reduce-scatter
// 2(sqrt(N) - 1) rounds on a square array.  Equals hierarchical_ring({cols, rows}).
schedule ring_2d(int rows, int cols, uint64_t elements);

// Registry entries (collective_registry; listed in builtin_collectives.cpp).
collective_info ring_collective();
collective_info ring_2d_collective();
collective_info hierarchical_ring_collective();

}  // namespace trainvp::collectives
