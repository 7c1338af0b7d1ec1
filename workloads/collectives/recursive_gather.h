// The butterfly halves of Rabenseifner's all-reduce run alone: the recursive-doubling
// all-gather (log2 N rounds, exchanging 1, 2, 4, ... blocks with the partner at distance 1, 2,
// 4, ...) and the recursive-halving reduce-scatter (log2 N rounds, exchanging half, a quarter,
// ... of the vector with the partner at distance N/2, N/4, ...), both from Thakur, Rabenseifner
// & Gropp, "Optimization of collective communication operations in MPICH", IJHPCA 2005.
// Both need N = 2^k (the registry's power_of_two need).  MPICH handles other N with a
// different algorithm (Bruck's all-gather, a pairwise reduce-scatter), not with a fold: a fold
// would cost two extra rounds of the whole vector; use the ring variants there.  Pure C++.
#pragma once

#include <cstdint>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

// Rank r starts with block r of partition(n, N) and ends with all of them.  Round i: r and
// r XOR 2^i swap the 2^i blocks each holds (RECV_COPY).  Each rank sends n - b_r elements in
// log2 N messages; T = log2(N) alpha + (N - 1) beta c for c = n / N.
schedule recursive_doubling_allgather(int ranks, uint64_t elements);
// Every rank starts with a whole vector; rank r ends with block r of the sum.  Round i:
// r and r XOR N/2^(i+1) split the blocks they still reduce; each sends the half the other
// keeps, which the other adds.  Each rank sends and adds n - b_r elements in log2 N
// messages; T = log2(N) alpha + (N - 1)(beta + gamma) c.
schedule recursive_halving_reduce_scatter(int ranks, uint64_t elements);

collective_info recursive_doubling_allgather_collective();
collective_info recursive_halving_reduce_scatter_collective();

}  // namespace trainvp::collectives
