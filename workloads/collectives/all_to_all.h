// All-to-all personalised exchange (the token shuffle of a mixture-of-experts layer): rank q's
// block r goes to rank r.  Two schedules: direct (every pair at once, one round) and pairwise
// exchange (N - 1 rounds; in round k rank r sends to r + k and receives from r - k), both from
// Thakur, Rabenseifner & Gropp, "Optimization of collective communication operations in
// MPICH", IJHPCA 2005.
//
// Buffer layout (collective_result::ALL_TO_ALL): n = `elements` must be a multiple of N (equal
// blocks of c = n / N); the schedule's buffer is 2n elements, the send half [0, n) whose block
// r is for rank r, then the receive half [n, 2n) whose slot q receives from rank q.  Two
// halves because a schedule has no local copy and the pairwise exchange cannot run in place:
// in round k rank r would overwrite slot r - k, which it still has to send in round N - k.
// The own block moves by no message: a consumer copies send block r to receive slot r.
// Pure C++.
#pragma once

#include <cstdint>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

// Round 0: every rank q sends its send block r to every r != q.  N (N - 1) messages of c;
// each rank sends and receives (N - 1) c; T = alpha + beta (N - 1) c.
schedule direct_all_to_all(int ranks, uint64_t elements);
// Round k - 1, k = 1..N-1: rank r sends its block r + k to rank r + k and receives from r - k
// (mod N).  N - 1 messages of c per rank; T = (N - 1)(alpha + beta c).
schedule pairwise_all_to_all(int ranks, uint64_t elements);

collective_info direct_all_to_all_collective();
collective_info pairwise_all_to_all_collective();

}  // namespace trainvp::collectives
