#include "workloads/collectives/binomial_rooted.h"

#include <stdexcept>
#include <string>

#include "workloads/collectives/schedule_builder.h"

namespace trainvp::collectives {

namespace {

// ceil(log2 ranks), after checking the arguments.
int checked_levels(const std::string& name, int ranks, uint64_t elements, int root) {
    if (ranks < 2) {
        throw std::invalid_argument(name + ": needs at least 2 ranks, got " +
                                    std::to_string(ranks));
    }
    if (elements < 1) throw std::invalid_argument(name + ": needs at least 1 element");
    if (root < 0 || root >= ranks) {
        throw std::invalid_argument(name + ": root " + std::to_string(root) + " is not in 0.." +
                                    std::to_string(ranks - 1));
    }
    int levels = 0;
    while ((1 << levels) < ranks) ++levels;
    return levels;
}

}  // namespace

schedule binomial_broadcast(int ranks, uint64_t elements, int root) {
    const std::string name = "binomial_broadcast";
    const int levels = checked_levels(name, ranks, elements, root);
    schedule_builder b(name, ranks, elements);
    const chunk all{0, elements};
    auto world = [&](int v) { return (v + root) % ranks; };
    for (int k = 0; k < levels; ++k) {
        const int mask = 1 << (levels - 1 - k);
        for (int v = 0; v + mask < ranks; v += 2 * mask) {
            b.transfer(world(v), world(v + mask), all, step_kind::RECV_COPY,
                       static_cast<uint32_t>(k));
        }
    }
    return b.finish();
}

schedule binomial_reduce(int ranks, uint64_t elements, int root) {
    const std::string name = "binomial_reduce";
    const int levels = checked_levels(name, ranks, elements, root);
    schedule_builder b(name, ranks, elements);
    const chunk all{0, elements};
    auto world = [&](int v) { return (v + root) % ranks; };
    for (int k = 0; k < levels; ++k) {
        const int mask = 1 << k;
        for (int v = mask; v < ranks; v += 2 * mask) {
            b.transfer(world(v), world(v - mask), all, step_kind::RECV_REDUCE,
                       static_cast<uint32_t>(k));
        }
    }
    return b.finish();
}

collective_info binomial_broadcast_collective() {
    collective_info c;
    c.name = "binomial_broadcast";
    c.description =
        "Binomial-tree broadcast: ceil(log2 N) rounds, each rank that holds the root's vector "
        "sending it on (any root: `root`; Thakur, Rabenseifner & Gropp, IJHPCA 2005)";
    c.result = collective_result::BROADCAST;
    c.make = [](const collective_args& a) {
        return binomial_broadcast(a.ranks, a.elements, a.root);
    };
    return c;
}

collective_info binomial_reduce_collective() {
    collective_info c;
    c.name = "binomial_reduce";
    c.description =
        "Binomial-tree reduce: ceil(log2 N) rounds of partial sums flowing to the root (any "
        "root: `root`; Thakur, Rabenseifner & Gropp, IJHPCA 2005)";
    c.result = collective_result::REDUCE;
    c.make = [](const collective_args& a) { return binomial_reduce(a.ranks, a.elements, a.root); };
    return c;
}

}  // namespace trainvp::collectives
