#include "workloads/collectives/ring_gather.h"

#include <stdexcept>
#include <string>

#include "workloads/collectives/schedule_builder.h"

namespace trainvp::collectives {

namespace {

int mod(int a, int m) { return ((a % m) + m) % m; }

void check(const std::string& name, int ranks, uint64_t elements) {
    if (ranks < 2) {
        throw std::invalid_argument(name + ": needs at least 2 ranks, got " +
                                    std::to_string(ranks));
    }
    if (elements < 1) throw std::invalid_argument(name + ": needs at least 1 element");
}

// Steps 1..N-1 of a ring phase: rank r sends block (r - s + 1 - shift) to r + 1.
schedule ring_half(const std::string& name, int ranks, uint64_t elements, int shift,
                   step_kind kind) {
    check(name, ranks, elements);
    const std::vector<chunk> blocks = partition(elements, static_cast<uint64_t>(ranks));
    schedule_builder b(name, ranks, elements);
    b.reserve_per_rank(2 * static_cast<std::size_t>(ranks - 1));
    for (int s = 1; s <= ranks - 1; ++s) {
        for (int r = 0; r < ranks; ++r) {
            b.transfer(r, (r + 1) % ranks,
                       blocks[static_cast<std::size_t>(mod(r - s + 1 - shift, ranks))], kind,
                       static_cast<uint32_t>(s - 1));
        }
    }
    return b.finish();
}

}  // namespace

schedule ring_allgather(int ranks, uint64_t elements) {
    return ring_half("ring_allgather", ranks, elements, 0, step_kind::RECV_COPY);
}

schedule ring_reduce_scatter(int ranks, uint64_t elements) {
    return ring_half("ring_reduce_scatter", ranks, elements, 1, step_kind::RECV_REDUCE);
}

schedule chain_broadcast(int ranks, uint64_t elements, int root, uint32_t segments) {
    const std::string name = "chain_broadcast";
    check(name, ranks, elements);
    if (segments < 1) throw std::invalid_argument(name + ": segments must be at least 1");
    if (root < 0 || root >= ranks) {
        throw std::invalid_argument(name + ": root " + std::to_string(root) + " is not in 0.." +
                                    std::to_string(ranks - 1));
    }
    const std::vector<chunk> pieces = partition(elements, segments);
    schedule_builder b(name, ranks, elements);
    b.reserve_per_rank(2 * static_cast<std::size_t>(segments));
    for (int i = 0; i + 1 < ranks; ++i) {
        const int from = (root + i) % ranks, to = (root + i + 1) % ranks;
        for (uint32_t k = 0; k < segments; ++k) {
            b.transfer(from, to, pieces[k], step_kind::RECV_COPY, static_cast<uint32_t>(i) + k);
        }
    }
    return b.finish();
}

collective_info ring_allgather_collective() {
    collective_info c;
    c.name = "ring_allgather";
    c.description =
        "Ring all-gather: N-1 steps, each rank passing one block on to the next (the ring "
        "all-reduce's second half; Thakur, Rabenseifner & Gropp, IJHPCA 2005)";
    c.result = collective_result::ALL_GATHER;
    c.make = [](const collective_args& a) { return ring_allgather(a.ranks, a.elements); };
    return c;
}

collective_info ring_reduce_scatter_collective() {
    collective_info c;
    c.name = "ring_reduce_scatter";
    c.description =
        "Ring reduce-scatter: N-1 steps, each rank adding the block it receives and passing it "
        "on, rank r ending with block r (the ring all-reduce's first half; Thakur, Rabenseifner "
        "& Gropp, IJHPCA 2005)";
    c.result = collective_result::REDUCE_SCATTER;
    c.make = [](const collective_args& a) { return ring_reduce_scatter(a.ranks, a.elements); };
    return c;
}

collective_info chain_broadcast_collective() {
    collective_info c;
    c.name = "chain_broadcast";
    c.description =
        "Pipelined chain broadcast: the root's vector in `segments` pieces flows down the chain "
        "root, root+1, ..., N+S-2 rounds (large-message broadcast; Pjesivac-Grbovic et al., "
        "Cluster Computing 2007)";
    c.result = collective_result::BROADCAST;
    c.make = [](const collective_args& a) {
        return chain_broadcast(a.ranks, a.elements, a.root, a.segments);
    };
    return c;
}

}  // namespace trainvp::collectives
