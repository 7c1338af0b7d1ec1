#include "workloads/collectives/all_to_all.h"

#include <stdexcept>
#include <string>

#include "workloads/collectives/schedule_builder.h"

namespace trainvp::collectives {

namespace {

// The block size c = elements / ranks, after checking the arguments.
uint64_t checked_block(const std::string& name, int ranks, uint64_t elements) {
    if (ranks < 2) {
        throw std::invalid_argument(name + ": needs at least 2 ranks, got " +
                                    std::to_string(ranks));
    }
    if (elements < 1) throw std::invalid_argument(name + ": needs at least 1 element");
    if (elements % static_cast<uint64_t>(ranks) != 0) {
        throw std::invalid_argument(name + ": " + std::to_string(elements) +
                                    " elements do not split into " + std::to_string(ranks) +
                                    " equal blocks (an all-to-all needs a multiple of the ranks)");
    }
    return elements / static_cast<uint64_t>(ranks);
}

// Rank src's send block dst into rank dst's receive slot src.
void exchange(schedule_builder& b, int src, int dst, uint64_t c, uint32_t round) {
    const uint64_t half = b.elements() / 2;
    b.transfer(src, dst, chunk{static_cast<uint64_t>(dst) * c, c},
               chunk{half + static_cast<uint64_t>(src) * c, c}, step_kind::RECV_COPY, round);
}

}  // namespace

schedule direct_all_to_all(int ranks, uint64_t elements) {
    const std::string name = "direct_all_to_all";
    const uint64_t c = checked_block(name, ranks, elements);
    schedule_builder b(name, ranks, 2 * elements);
    b.reserve_per_rank(2 * static_cast<std::size_t>(ranks - 1));
    for (int q = 0; q < ranks; ++q) {
        for (int r = 0; r < ranks; ++r) {
            if (r != q) exchange(b, q, r, c, 0);
        }
    }
    return b.finish();
}

schedule pairwise_all_to_all(int ranks, uint64_t elements) {
    const std::string name = "pairwise_all_to_all";
    const uint64_t c = checked_block(name, ranks, elements);
    schedule_builder b(name, ranks, 2 * elements);
    b.reserve_per_rank(2 * static_cast<std::size_t>(ranks - 1));
    for (int k = 1; k < ranks; ++k) {
        for (int r = 0; r < ranks; ++r)
            exchange(b, r, (r + k) % ranks, c, static_cast<uint32_t>(k - 1));
    }
    return b.finish();
}

collective_info direct_all_to_all_collective() {
    collective_info c;
    c.name = "direct_all_to_all";
    c.description =
        "Direct all-to-all: every rank sends block r to rank r, all pairs in one round "
        "(elements a multiple of N; Thakur, Rabenseifner & Gropp, IJHPCA 2005)";
    c.result = collective_result::ALL_TO_ALL;
    c.make = [](const collective_args& a) { return direct_all_to_all(a.ranks, a.elements); };
    return c;
}

collective_info pairwise_all_to_all_collective() {
    collective_info c;
    c.name = "pairwise_all_to_all";
    c.description =
        "Pairwise-exchange all-to-all: N-1 rounds, in round k rank r sending to r+k and "
        "receiving from r-k (elements a multiple of N; Thakur, Rabenseifner & Gropp, IJHPCA "
        "2005)";
    c.result = collective_result::ALL_TO_ALL;
    c.make = [](const collective_args& a) { return pairwise_all_to_all(a.ranks, a.elements); };
    return c;
}

}  // namespace trainvp::collectives
