#include "workloads/collectives/direct_gather.h"

#include <stdexcept>
#include <string>

#include "workloads/collectives/schedule_builder.h"

namespace trainvp::collectives {

namespace {

void check(const char* name, int ranks, uint64_t elements) {
    if (ranks < 2) {
        throw std::invalid_argument(std::string(name) + ": needs at least 2 ranks, got " +
                                    std::to_string(ranks));
    }
    if (elements < 1) throw std::invalid_argument(std::string(name) + ": needs at least 1 element");
}

}  // namespace

schedule direct_allgather(int ranks, uint64_t elements) {
    check("direct_allgather", ranks, elements);
    const std::vector<chunk> blocks = partition(elements, static_cast<uint64_t>(ranks));
    schedule_builder b("direct_allgather", ranks, elements);
    b.reserve_per_rank(2 * static_cast<std::size_t>(ranks - 1));
    for (int src = 0; src < ranks; ++src) {
        for (int dst = 0; dst < ranks; ++dst) {
            if (dst != src) {
                b.transfer(src, dst, blocks[static_cast<std::size_t>(src)], step_kind::RECV_COPY,
                           0);
            }
        }
    }
    return b.finish();
}

schedule direct_reduce_scatter(int ranks, uint64_t elements) {
    check("direct_reduce_scatter", ranks, elements);
    const std::vector<chunk> blocks = partition(elements, static_cast<uint64_t>(ranks));
    schedule_builder b("direct_reduce_scatter", ranks, elements);
    b.reserve_per_rank(2 * static_cast<std::size_t>(ranks - 1));
    for (int src = 0; src < ranks; ++src) {
        for (int dst = 0; dst < ranks; ++dst) {
            if (dst != src) {
                b.transfer(src, dst, blocks[static_cast<std::size_t>(dst)], step_kind::RECV_REDUCE,
                           0);
            }
        }
    }
    return b.finish();
}

collective_info direct_allgather_collective() {
    collective_info c;
    c.name = "direct_allgather";
    c.description =
        "Direct all-gather: each rank sends its block to every other rank in one round "
        "(activations of paleo.md §4.2.3's hybrid parallelism); not an all-reduce";
    c.result = collective_result::ALL_GATHER;
    c.make = [](const collective_args& a) { return direct_allgather(a.ranks, a.elements); };
    return c;
}

collective_info direct_reduce_scatter_collective() {
    collective_info c;
    c.name = "direct_reduce_scatter";
    c.description =
        "Direct reduce-scatter: each rank sends block j to rank j, which adds them, in one "
        "round (the activation gradients of paleo.md §4.2.3's hybrid parallelism); not an "
        "all-reduce";
    c.result = collective_result::REDUCE_SCATTER;
    c.make = [](const collective_args& a) { return direct_reduce_scatter(a.ranks, a.elements); };
    return c;
}

}  // namespace trainvp::collectives
