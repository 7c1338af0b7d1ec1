// Butterfly-style all-reduces for any rank count.
#pragma once

#include <cstdint>

#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

struct collective_info;

// Recursive halving-doubling (Rabenseifner), the "Rabenseifner" MPI scheme smartnic.md §III
// measures.  For p = 2^k ranks the vector is split into p blocks with partition(); in
// reduce-scatter round t (distance d = p / 2^(t+1)) rank v exchanges with v XOR d, keeps the
// half of its current block range on its side of bit d (lower half when the bit is 0), sends
// the other half and adds the partner's copy of the kept half in.  After log2 p rounds rank v
// holds block v; the all-gather retraces the distances 1, 2, ..., p/2, sending the range held
// so far and copying in the partner's.  2*log2(p) rounds, 2(p-1)/p of the vector sent per
// rank.
// Non-powers of two use the usual fold (Thakur, Rabenseifner and Gropp, 2005): with p the
// largest power of two <= N and r = N - p, each even rank i < 2r first sends its whole vector
// to i + 1 and drops out; the odd ranks i < 2r (as i / 2) and the ranks i >= 2r (as i - r)
// run the power-of-two algorithm; finally each odd i < 2r copies the result back to i - 1.
// 2*log2(p) + 2 rounds.  Throws std::invalid_argument when ranks < 2 or elements < 1.
schedule halving_doubling_allreduce(int ranks, uint64_t elements);

// Recursive doubling, the "Butterfly AllReduce" of paleo.md §2 (log2(K) steps of T): in round
// t rank v exchanges the whole vector with v XOR 2^t and adds it in (the send carries the
// vector as it stood at the start of the round, which is exactly the snapshot rule of the
// schedule model).  log2(p) rounds for p = 2^k, with the same fold as above otherwise
// (log2(p) + 2 rounds).  Throws std::invalid_argument when ranks < 2 or elements < 1.
schedule recursive_doubling_allreduce(int ranks, uint64_t elements);

// Registry entries (collective_registry; listed in builtin_collectives.cpp).
collective_info halving_doubling_collective();
collective_info recursive_doubling_collective();

}  // namespace trainvp::collectives
