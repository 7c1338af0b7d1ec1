// The two halves of an exchange of activations rather than of gradients: a direct all-gather
// (every rank holds block r = partition(n, N)[r] and ends with all of them) and its mirror, a
// direct reduce-scatter (every rank holds a partial sum of the whole vector and ends with the
// sum of its own block).  Krizhevsky's "one weird trick" (paleo.md §4.2.3) moves the last
// convolutional layer's activations to every worker and back the gradients w.r.t. them so:
// each rank sends to every other rank at once, one round (TalwalkarLab/paleo
// paleo/profilers/flops_profiler.py _estimate_remote_fetch costs it as one fetch per remote
// parent).  Unlike the all-reduces, neither ends with the sum on every rank; they are
// registered for no fabric's exchange list (a consumer makes them by name: the training
// builder's hybrid parallelism).  Pure C++.
#pragma once

#include <cstdint>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

// Round 0: rank r sends block r to every other rank, which copies it in (RECV_COPY).  Each
// rank sends (N-1) b_r and receives n - b_r elements; N (N-1) messages, one per directed pair.
schedule direct_allgather(int ranks, uint64_t elements);
// Round 0: rank r sends block j to rank j for every j != r; rank j adds what it receives into
// its block (RECV_REDUCE).  Each rank sends n - b_r and receives (N-1) b_r elements.
schedule direct_reduce_scatter(int ranks, uint64_t elements);

collective_info direct_allgather_collective();
collective_info direct_reduce_scatter_collective();

}  // namespace trainvp::collectives
