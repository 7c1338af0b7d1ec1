// The built-in collectives, one line each.  An explicit list rather than a static registrar in
// each algorithm's file: nothing can be dropped (a static link keeps only objects something
// refers to, and this list refers to each), the order is this list's and not the link's
// (configs' choice lists and generated docs print it), and a clash throws here instead of in a
// static initialiser before main().  Plugins, whose only entry point is their static
// initialisers, use TRAINVP_REGISTER_COLLECTIVE instead.
#include "workloads/collectives/builtin_collectives.h"

#include "workloads/collectives/all_to_all.h"
#include "workloads/collectives/binomial_rooted.h"
#include "workloads/collectives/concentrated_multi_tree.h"
#include "workloads/collectives/direct_gather.h"
#include "workloads/collectives/halving_doubling.h"
#include "workloads/collectives/recursive_gather.h"
#include "workloads/collectives/ring.h"
#include "workloads/collectives/ring_gather.h"
#include "workloads/collectives/tree.h"
#include "workloads/collectives/worker_aggregator.h"

namespace trainvp::collectives {

void register_builtin_collectives(collective_registry& r) {
    r.add(ring_collective());
    r.add(worker_aggregator_collective());
    r.add(binomial_tree_collective());
    r.add(halving_doubling_collective());
    r.add(recursive_doubling_collective());
    r.add(ring_2d_collective());
    r.add(hierarchical_ring_collective());
    r.add(double_binary_tree_collective());
    r.add(multi_tree_collective());
    r.add(concentrated_multi_tree_collective());
    r.add(direct_allgather_collective());
    r.add(direct_reduce_scatter_collective());
    r.add(ring_allgather_collective());
    r.add(ring_reduce_scatter_collective());
    r.add(recursive_doubling_allgather_collective());
    r.add(recursive_halving_reduce_scatter_collective());
    r.add(binomial_broadcast_collective());
    r.add(chain_broadcast_collective());
    r.add(binomial_reduce_collective());
    r.add(direct_all_to_all_collective());
    r.add(pairwise_all_to_all_collective());
}

}  // namespace trainvp::collectives
