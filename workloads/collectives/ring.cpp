#include "workloads/collectives/ring.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule_builder.h"

namespace trainvp::collectives {

namespace {

int mod(int a, int m) { return ((a % m) + m) % m; }

// One phase of Algorithm 1 over `members` (ring order) on `range`.  Step s of the phase sends
// block (i - s + 1 - shift) from position i to position i + 1; shift is 0 for the
// reduce-scatter and g - 1 for the all-gather, which is what makes the all-gather start from
// the block each position owns after the reduce-scatter.
void ring_phase(schedule_builder& b, const std::vector<int>& members, const chunk& range,
                step_kind kind, uint32_t first_round, uint32_t segments) {
    const int g = static_cast<int>(members.size());
    if (g < 2) return;
    const std::vector<chunk> blocks = partition(range, static_cast<uint64_t>(g));
    const int shift = kind == step_kind::RECV_REDUCE ? 0 : g - 1;
    for (int s = 1; s <= g - 1; ++s) {
        for (int i = 0; i < g; ++i) {
            const chunk& block = blocks[static_cast<std::size_t>(mod(i - s + 1 - shift, g))];
            // One segment (the default) is the block itself: no vector per transfer.
            const std::vector<chunk> pieces =
                segments == 1 ? std::vector<chunk>{} : partition(block, segments);
            for (uint32_t k = 0; k < segments; ++k) {
                const uint32_t round = first_round + static_cast<uint32_t>(s - 1) * segments + k;
                b.transfer(members[static_cast<std::size_t>(i)],
                           members[static_cast<std::size_t>((i + 1) % g)],
                           segments == 1 ? block : pieces[k], kind, round);
            }
        }
    }
}

// The block position i of a ring of g owns after the reduce-scatter.
chunk owned_after_reduce_scatter(const chunk& range, int g, int i) {
    return partition(range, static_cast<uint64_t>(g))[static_cast<std::size_t>((i + 1) % g)];
}

schedule multi_level_ring(const std::string& name, const std::vector<int>& group_sizes,
                          uint64_t elements) {
    if (group_sizes.empty()) throw std::invalid_argument(name + ": no group sizes given");
    int64_t ranks = 1;
    for (int g : group_sizes) {
        if (g < 1) {
            throw std::invalid_argument(name + ": group size " + std::to_string(g) +
                                        " must be at least 1");
        }
        ranks *= g;
        if (ranks > std::numeric_limits<int>::max()) {
            throw std::invalid_argument(name + ": too many ranks");
        }
    }
    if (ranks < 2) {
        throw std::invalid_argument(name + ": needs at least 2 ranks, the group sizes give " +
                                    std::to_string(ranks));
    }
    if (elements < 1) throw std::invalid_argument(name + ": needs at least 1 element");

    const int n = static_cast<int>(ranks);
    schedule_builder b(name, n, elements);
    const std::size_t levels = group_sizes.size();
    // held[l][r]: the range rank r reduces at level l (before that level's reduce-scatter).
    std::vector<std::vector<chunk>> held(levels + 1,
                                         std::vector<chunk>(static_cast<std::size_t>(n)));
    for (int r = 0; r < n; ++r) held[0][static_cast<std::size_t>(r)] = {0, elements};

    auto for_each_ring = [&](std::size_t level, auto&& fn) {
        const int g = group_sizes[level];
        int stride = 1;
        for (std::size_t k = 0; k < level; ++k) stride *= group_sizes[k];
        for (int base = 0; base < n; ++base) {
            if ((base / stride) % g != 0) continue;  // one ring per base with digit 0
            std::vector<int> members;
            for (int t = 0; t < g; ++t) members.push_back(base + t * stride);
            fn(members);
        }
    };

    uint32_t round = 0;
    for (std::size_t l = 0; l < levels; ++l) {
        const int g = group_sizes[l];
        for_each_ring(l, [&](const std::vector<int>& members) {
            const chunk range = held[l][static_cast<std::size_t>(members[0])];
            ring_phase(b, members, range, step_kind::RECV_REDUCE, round, 1);
            for (int i = 0; i < g; ++i) {
                held[l + 1][static_cast<std::size_t>(members[static_cast<std::size_t>(i)])] =
                    owned_after_reduce_scatter(range, g, i);
            }
        });
        round += static_cast<uint32_t>(g - 1);
    }
    for (std::size_t l = levels; l-- > 0;) {
        const int g = group_sizes[l];
        for_each_ring(l, [&](const std::vector<int>& members) {
            ring_phase(b, members, held[l][static_cast<std::size_t>(members[0])],
                       step_kind::RECV_COPY, round, 1);
        });
        round += static_cast<uint32_t>(g - 1);
    }
    return b.finish();
}

// The ring's name ("ring" or "ring_pipelined"), once its arguments are checked.
std::string checked_ring(int ranks, uint64_t elements, uint32_t segments) {
    std::string name = segments > 1 ? "ring_pipelined" : "ring";
    if (ranks < 2) {
        throw std::invalid_argument(name + ": needs at least 2 ranks, got " +
                                    std::to_string(ranks));
    }
    if (elements < 1) throw std::invalid_argument(name + ": needs at least 1 element");
    if (segments < 1) throw std::invalid_argument(name + ": segments must be at least 1");
    return name;
}

}  // namespace

schedule ring_allreduce(int ranks, uint64_t elements, uint32_t segments) {
    schedule_builder b(checked_ring(ranks, elements, segments), ranks, elements);
    // Each rank sends once and receives once in each of the 2 (ranks - 1) x segments rounds.
    b.reserve_per_rank(4 * static_cast<std::size_t>(ranks - 1) * segments);
    std::vector<int> members;
    for (int r = 0; r < ranks; ++r) members.push_back(r);
    const chunk all{0, elements};
    const uint32_t phase_rounds = static_cast<uint32_t>(ranks - 1) * segments;
    ring_phase(b, members, all, step_kind::RECV_REDUCE, 0, segments);
    ring_phase(b, members, all, step_kind::RECV_COPY, phase_rounds, segments);
    return b.finish();
}

std::vector<step> ring_allreduce_steps(int ranks, uint64_t elements, int rank, uint32_t segments) {
    const std::string name = checked_ring(ranks, elements, segments);
    if (rank < 0 || rank >= ranks) {
        throw std::invalid_argument(name + ": rank " + std::to_string(rank) + " is not in 0.." +
                                    std::to_string(ranks - 1));
    }
    // What ring_phase's transfers leave in steps[rank] once finish() ordered them by round:
    // per round one send to rank + 1 and one receive from rank - 1; rank 0 lists its send
    // first (its transfer is emitted first), every other rank its receive (emitted by
    // rank - 1).  A pair's tags count its transfers: (phase, s, k) in emission order.
    const int g = ranks;
    const std::vector<chunk> blocks = partition(chunk{0, elements}, static_cast<uint64_t>(g));
    const int next = (rank + 1) % g, prev = (rank + g - 1) % g;
    std::vector<step> out;
    out.reserve(4 * static_cast<std::size_t>(g - 1) * segments);
    uint32_t round = 0;
    for (const step_kind kind : {step_kind::RECV_REDUCE, step_kind::RECV_COPY}) {
        const int shift = kind == step_kind::RECV_REDUCE ? 0 : g - 1;
        for (int s = 1; s <= g - 1; ++s) {
            const chunk& sent = blocks[static_cast<std::size_t>(mod(rank - s + 1 - shift, g))];
            const chunk& got = blocks[static_cast<std::size_t>(mod(prev - s + 1 - shift, g))];
            const std::vector<chunk> sent_pieces =
                segments == 1 ? std::vector<chunk>{} : partition(sent, segments);
            const std::vector<chunk> got_pieces =
                segments == 1 ? std::vector<chunk>{} : partition(got, segments);
            for (uint32_t k = 0; k < segments; ++k, ++round) {
                const step send{step_kind::SEND, next, segments == 1 ? sent : sent_pieces[k], round,
                                round};
                const step recv{kind, prev, segments == 1 ? got : got_pieces[k], round, round};
                if (rank == 0) {
                    out.push_back(send);
                    out.push_back(recv);
                } else {
                    out.push_back(recv);
                    out.push_back(send);
                }
            }
        }
    }
    return out;
}

schedule hierarchical_ring(const std::vector<int>& group_sizes, uint64_t elements) {
    return multi_level_ring("hierarchical_ring", group_sizes, elements);
}

schedule hierarchical_ring(int ranks, int levels, uint64_t elements) {
    if (levels < 1) {
        throw std::invalid_argument("hierarchical_ring: levels must be at least 1, got " +
                                    std::to_string(levels));
    }
    // Integer L-th root by search: floating pow() can land one below an exact root.
    int g = levels == 1 ? ranks : 1;
    auto power = [&](int base) {
        int64_t p = 1;
        for (int l = 0; l < levels && p <= ranks; ++l) p *= base;
        return p;
    };
    while (levels > 1 && power(g + 1) <= ranks) ++g;
    if (g < 2 || power(g) != ranks) {
        throw std::invalid_argument("hierarchical_ring: " + std::to_string(ranks) +
                                    " ranks is not the " + std::to_string(levels) +
                                    "-th power of an integer >= 2");
    }
    return multi_level_ring("hierarchical_ring",
                            std::vector<int>(static_cast<std::size_t>(levels), g), elements);
}

schedule ring_2d(int rows, int cols, uint64_t elements) {
    if (rows < 1 || cols < 1) {
        throw std::invalid_argument("ring_2d: rows and cols must be at least 1, got " +
                                    std::to_string(rows) + "x" + std::to_string(cols));
    }
    return multi_level_ring("ring_2d", {cols, rows}, elements);
}

collective_info ring_collective() {
    collective_info c;
    c.name = "ring";
    c.description =
        "Ring all-reduce: N-1 reduce-scatter and N-1 all-gather steps, each rank sending one "
        "block to the next (inceptionn.md Alg. 1, aries.md §II-C); `segments` pipelines each "
        "block (smartnic.md §IV-A)";
    c.fabrics = {fabric::HOST, fabric::NOC, fabric::FPGA, fabric::FLOW};
    c.make = [](const collective_args& a) {
        return ring_allreduce(a.ranks, a.elements, a.segments);
    };
    c.rank_steps = [](const collective_args& a, int rank) {
        return ring_allreduce_steps(a.ranks, a.elements, rank, a.segments);
    };
    return c;
}

collective_info ring_2d_collective() {
    collective_info c;
    c.name = "ring_2d";
    c.description =
        "2D ring: a ring along each row, then along each column on the row's block, all-gathers "
        "in reverse (aries.md §II-D, Table I)";
    c.needs.grid = true;
    c.fabrics = {fabric::HOST, fabric::NOC, fabric::FLOW};
    c.make = [](const collective_args& a) { return ring_2d(a.rows, a.cols, a.elements); };
    return c;
}

collective_info hierarchical_ring_collective() {
    collective_info c;
    c.name = "hierarchical_ring";
    c.description =
        "Latency-optimised ring: ring reduce-scatters over `levels` levels of equal size "
        "N^(1/levels) (or a fabric's tiers), all-gathers in reverse (aries.md §IV-A-2)";
    c.needs.perfect_power = true;
    c.fabrics = {fabric::HOST, fabric::NOC, fabric::FLOW};
    c.make = [](const collective_args& a) {
        return a.group_sizes.empty() ? hierarchical_ring(a.ranks, a.levels, a.elements)
                                     : hierarchical_ring(a.group_sizes, a.elements);
    };
    return c;
}

}  // namespace trainvp::collectives
