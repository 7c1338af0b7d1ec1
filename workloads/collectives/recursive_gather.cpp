#include "workloads/collectives/recursive_gather.h"

#include <stdexcept>
#include <string>

#include "workloads/collectives/schedule_builder.h"

namespace trainvp::collectives {

namespace {

// log2(ranks), after checking ranks = 2^k >= 2 and elements >= 1.
int checked_log2(const std::string& name, int ranks, uint64_t elements) {
    if (ranks < 2 || (ranks & (ranks - 1)) != 0) {
        throw std::invalid_argument(name + ": needs a power-of-two number of ranks >= 2, got " +
                                    std::to_string(ranks));
    }
    if (elements < 1) throw std::invalid_argument(name + ": needs at least 1 element");
    int k = 0;
    while ((1 << k) < ranks) ++k;
    return k;
}

// Blocks [first, first + count) of `blocks` as one range (they are contiguous).
chunk span(const std::vector<chunk>& blocks, int first, int count) {
    const chunk& a = blocks[static_cast<std::size_t>(first)];
    const chunk& z = blocks[static_cast<std::size_t>(first + count - 1)];
    return {a.offset, z.offset + z.count - a.offset};
}

}  // namespace

schedule recursive_doubling_allgather(int ranks, uint64_t elements) {
    const std::string name = "recursive_doubling_allgather";
    const int k = checked_log2(name, ranks, elements);
    const std::vector<chunk> blocks = partition(elements, static_cast<uint64_t>(ranks));
    schedule_builder b(name, ranks, elements);
    b.reserve_per_rank(2 * static_cast<std::size_t>(k));
    for (int i = 0; i < k; ++i) {
        const int d = 1 << i;
        for (int r = 0; r < ranks; ++r) {
            // r holds the d blocks of its aligned group of d; it sends them to r XOR d.
            b.transfer(r, r ^ d, span(blocks, r & ~(d - 1), d), step_kind::RECV_COPY,
                       static_cast<uint32_t>(i));
        }
    }
    return b.finish();
}

schedule recursive_halving_reduce_scatter(int ranks, uint64_t elements) {
    const std::string name = "recursive_halving_reduce_scatter";
    const int k = checked_log2(name, ranks, elements);
    const std::vector<chunk> blocks = partition(elements, static_cast<uint64_t>(ranks));
    schedule_builder b(name, ranks, elements);
    b.reserve_per_rank(2 * static_cast<std::size_t>(k));
    for (int i = 0; i < k; ++i) {
        const int d = ranks >> (i + 1);
        for (int r = 0; r < ranks; ++r) {
            // Before round i, r reduces the 2d blocks of its aligned group of 2d; it keeps the
            // half holding block r and sends the other half to r XOR d.
            const int group = r & ~(2 * d - 1);
            const int sent = (r & d) != 0 ? group : group + d;
            b.transfer(r, r ^ d, span(blocks, sent, d), step_kind::RECV_REDUCE,
                       static_cast<uint32_t>(i));
        }
    }
    return b.finish();
}

collective_info recursive_doubling_allgather_collective() {
    collective_info c;
    c.name = "recursive_doubling_allgather";
    c.description =
        "Recursive-doubling all-gather: log2 N rounds, rank r and r XOR 2^i swapping the 2^i "
        "blocks each holds (Thakur, Rabenseifner & Gropp, IJHPCA 2005)";
    c.needs.power_of_two = true;
    c.result = collective_result::ALL_GATHER;
    c.make = [](const collective_args& a) {
        return recursive_doubling_allgather(a.ranks, a.elements);
    };
    return c;
}

collective_info recursive_halving_reduce_scatter_collective() {
    collective_info c;
    c.name = "recursive_halving_reduce_scatter";
    c.description =
        "Recursive-halving reduce-scatter: log2 N rounds, rank r and r XOR N/2^(i+1) each "
        "adding the half of their blocks the other sends (Thakur, Rabenseifner & Gropp, IJHPCA "
        "2005)";
    c.needs.power_of_two = true;
    c.result = collective_result::REDUCE_SCATTER;
    c.make = [](const collective_args& a) {
        return recursive_halving_reduce_scatter(a.ranks, a.elements);
    };
    return c;
}

}  // namespace trainvp::collectives
