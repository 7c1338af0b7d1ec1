// The rooted binomial trees: a broadcast of the root's vector and a reduce of every rank's
// vector onto the root, any N, any root, in ceil(log2 N) rounds of whole-vector messages (the
// short-message algorithms of Thakur, Rabenseifner & Gropp, "Optimization of collective
// communication operations in MPICH", IJHPCA 2005).  Ranks are renumbered relative to the
// root, v = (r - root) mod N, so the tree is the same for every root.  Pure C++.
#pragma once

#include <cstdint>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

// Round k = 0..L-1 (L = ceil(log2 N), mask = 2^(L-1-k)): every v that is a multiple of
// 2 mask sends the vector to v + mask, when v + mask < N (MPICH's order: the root reaches the
// far half first).  N - 1 messages of n elements; the root sends L of them;
// T = L (alpha + beta n).  Throws std::invalid_argument on a root out of range.
schedule binomial_broadcast(int ranks, uint64_t elements, int root);
// The broadcast backwards: round k (mask = 2^k), every v with v mod 2 mask = mask sends its
// partial sum to v - mask, which adds it.  The root ends with the sum; N - 1 messages of n
// elements, the root receives L of them; T = L (alpha + (beta + gamma) n).
schedule binomial_reduce(int ranks, uint64_t elements, int root);

collective_info binomial_broadcast_collective();
collective_info binomial_reduce_collective();

}  // namespace trainvp::collectives
