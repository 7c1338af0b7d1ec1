// The conventional parameter-server style exchange that INCEPTIONN compares against.
#pragma once

#include <cstdint>

#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

struct collective_info;

// How the sum gets back to the workers.
enum class aggregator_return {
    // Each aggregator sends the result to each of its children, down the gather tree
    // (inceptionn.md Fig. 1(a) and Fig. 2: aggregators "send back the updated weights").
    TREE,
    // The root aggregator broadcasts along a binomial tree over all ranks (root first, then
    // ranks 0, 1, ...), the broadcast inceptionn.md §VIII-D's exchange-time formula assumes.
    BINOMIAL,
};

struct worker_aggregator_options {
    // Children per aggregator; 0 (or >= workers) gives one aggregator over all workers.  With
    // fan_in f < workers the workers are split into ceil(workers / f) groups as evenly as
    // possible, each under an aggregator, and aggregators are grouped the same way until one
    // root remains: aggregators of aggregators, inceptionn.md Fig. 1(a) / Fig. 2.
    int fan_in = 0;
    aggregator_return result_return = aggregator_return::TREE;
};

// Worker-aggregator exchange (inceptionn.md §II-B).  Ranks 0..workers-1 are workers; the
// aggregators follow as extra ranks that hold no gradient (contributes = false), the level-1
// aggregators first and the root last.  Gather: in round k-1 every level-k aggregator receives
// the whole vector from each child, copying the first and adding the others (so it adds
// (children-1) vectors, the (p-1)*n*gamma of §VIII-D).  Return: TREE takes one round per level
// back down; BINOMIAL takes ceil(log2(total ranks)) rounds.  One aggregator: 2 rounds (TREE)
// or 1 + ceil(log2(workers + 1)) rounds (BINOMIAL); the aggregator receives and (TREE) sends
// workers * n elements, each worker sends n.  Throws std::invalid_argument when workers < 1,
// elements < 1, fan_in is 1 or negative.
schedule worker_aggregator(int workers, uint64_t elements,
                           const worker_aggregator_options& options = {});

// Registry entry (collective_registry; listed in builtin_collectives.cpp).  args.ranks are the
// workers; args.aggregator the options.
collective_info worker_aggregator_collective();

}  // namespace trainvp::collectives
