// The two halves of the ring all-reduce run alone, and the ring's broadcast: a ring
// all-gather and a ring reduce-scatter (N - 1 steps each, each rank sending one block to the
// next; Thakur, Rabenseifner & Gropp, "Optimization of collective communication operations in
// MPICH", IJHPCA 2005), and the pipelined chain broadcast of large messages (the vector cut
// into segments that follow each other down the chain root, root + 1, ...; Open MPI's
// "pipeline" broadcast as modelled by Pjesivac-Grbovic et al., "Performance analysis of MPI
// collective operations", Cluster Computing 2007; NCCL's ring broadcast).  Pure C++.
#pragma once

#include <cstdint>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

// Rank r starts with block r of partition(n, N) and ends with all of them: in step s = 1..N-1
// (round s - 1) rank r sends block (r - s + 1) mod N to r + 1, which copies it in.  Each rank
// sends n - b_(r+1) elements (N - 1 messages); T = (N - 1)(alpha + beta c) for c = n / N.
schedule ring_allgather(int ranks, uint64_t elements);
// Every rank starts with a whole vector; rank r ends with block r of the sum: in step s =
// 1..N-1 rank r sends block (r - s) mod N to r + 1, which adds it into its own copy.  Each rank
// sends n - b_r elements and adds n - b_(r-1); T = (N - 1)(alpha + (beta + gamma) c).
schedule ring_reduce_scatter(int ranks, uint64_t elements);
// The root's vector, cut into `segments` pieces, goes down the chain root, root + 1, ...,
// root - 1 (mod N): position i forwards segment k to position i + 1 in round i + k.  N + S - 2
// rounds, every rank but the last in the chain sends n elements in S messages;
// T = (N + S - 2)(alpha + beta n / S).  Throws std::invalid_argument on a root out of range.
schedule chain_broadcast(int ranks, uint64_t elements, int root, uint32_t segments);

collective_info ring_allgather_collective();
collective_info ring_reduce_scatter_collective();
collective_info chain_broadcast_collective();

}  // namespace trainvp::collectives
