#include "workloads/collectives/halving_doubling.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule_builder.h"

namespace trainvp::collectives {

namespace {

// The power-of-two core of N ranks and the fold around it.
struct fold {
    int ranks = 0;
    int core = 0;    // p, the largest power of two <= ranks
    int extra = 0;   // r = ranks - p
    int levels = 0;  // log2(p)

    explicit fold(int n) : ranks(n) {
        core = 1;
        while (core * 2 <= n) {
            core *= 2;
            ++levels;
        }
        extra = n - core;
    }
    // Real rank of core rank v.
    int real(int v) const { return v < extra ? 2 * v + 1 : v + extra; }
};

void check_common(const std::string& name, int ranks, uint64_t elements) {
    if (ranks < 2) {
        throw std::invalid_argument(name + ": needs at least 2 ranks, got " +
                                    std::to_string(ranks));
    }
    if (elements < 1) throw std::invalid_argument(name + ": needs at least 1 element");
}

// Emits the fold-in round (if any); returns the first round for the core algorithm.
uint32_t fold_in(schedule_builder& b, const fold& f) {
    const chunk all{0, b.elements()};
    for (int i = 0; i < f.extra; ++i) b.transfer(2 * i, 2 * i + 1, all, step_kind::RECV_REDUCE, 0);
    return f.extra > 0 ? 1 : 0;
}

void fold_out(schedule_builder& b, const fold& f, uint32_t round) {
    const chunk all{0, b.elements()};
    for (int i = 0; i < f.extra; ++i)
        b.transfer(2 * i + 1, 2 * i, all, step_kind::RECV_COPY, round);
}

}  // namespace

schedule halving_doubling_allreduce(int ranks, uint64_t elements) {
    const std::string name = "halving_doubling";
    check_common(name, ranks, elements);
    const fold f(ranks);
    schedule_builder b(name, ranks, elements);
    uint32_t round = fold_in(b, f);

    const std::vector<chunk> blocks = partition(elements, static_cast<uint64_t>(f.core));
    auto span = [&](int lo, int hi) {  // blocks [lo, hi) as one contiguous range
        const chunk& first = blocks[static_cast<std::size_t>(lo)];
        const chunk& last = blocks[static_cast<std::size_t>(hi - 1)];
        return chunk{first.offset, last.offset + last.count - first.offset};
    };
    // [lo[v], hi[v]): the blocks core rank v is responsible for so far.
    std::vector<int> lo(static_cast<std::size_t>(f.core), 0);
    std::vector<int> hi(static_cast<std::size_t>(f.core), f.core);
    std::vector<int> distances;
    for (int d = f.core / 2; d >= 1; d /= 2) distances.push_back(d);

    for (int d : distances) {
        std::vector<int> new_lo = lo, new_hi = hi;
        for (int v = 0; v < f.core; ++v) {
            const std::size_t u = static_cast<std::size_t>(v);
            const int mid = (lo[u] + hi[u]) / 2;
            const bool upper = (v & d) != 0;
            // v keeps one half and sends the other, which is the half its partner keeps.
            const int send_lo = upper ? lo[u] : mid;
            const int send_hi = upper ? mid : hi[u];
            b.transfer(f.real(v), f.real(v ^ d), span(send_lo, send_hi), step_kind::RECV_REDUCE,
                       round);
            new_lo[u] = upper ? mid : lo[u];
            new_hi[u] = upper ? hi[u] : mid;
        }
        lo = new_lo;
        hi = new_hi;
        ++round;
    }
    for (auto it = distances.rbegin(); it != distances.rend(); ++it) {
        const int d = *it;
        std::vector<int> new_lo = lo, new_hi = hi;
        for (int v = 0; v < f.core; ++v) {
            const std::size_t u = static_cast<std::size_t>(v);
            const std::size_t w = static_cast<std::size_t>(v ^ d);
            b.transfer(f.real(v), f.real(v ^ d), span(lo[u], hi[u]), step_kind::RECV_COPY, round);
            new_lo[u] = std::min(lo[u], lo[w]);
            new_hi[u] = std::max(hi[u], hi[w]);
        }
        lo = new_lo;
        hi = new_hi;
        ++round;
    }
    fold_out(b, f, round);
    return b.finish();
}

schedule recursive_doubling_allreduce(int ranks, uint64_t elements) {
    const std::string name = "recursive_doubling";
    check_common(name, ranks, elements);
    const fold f(ranks);
    schedule_builder b(name, ranks, elements);
    uint32_t round = fold_in(b, f);
    const chunk all{0, elements};
    for (int d = 1; d < f.core; d *= 2) {
        for (int v = 0; v < f.core; ++v) {
            b.transfer(f.real(v), f.real(v ^ d), all, step_kind::RECV_REDUCE, round);
        }
        ++round;
    }
    fold_out(b, f, round);
    return b.finish();
}

collective_info halving_doubling_collective() {
    collective_info c;
    c.name = "halving_doubling";
    c.description =
        "Halving-doubling: recursive-halving reduce-scatter and recursive-doubling all-gather "
        "(Rabenseifner; smartnic.md §III), folding the extra ranks of a non-power-of-two N "
        "(MPICH)";
    c.fabrics = {fabric::HOST, fabric::FLOW};
    c.make = [](const collective_args& a) {
        return halving_doubling_allreduce(a.ranks, a.elements);
    };
    return c;
}

collective_info recursive_doubling_collective() {
    collective_info c;
    c.name = "recursive_doubling";
    c.description =
        "Recursive doubling: log2 N rounds of exchanging and adding the whole vector "
        "(paleo.md §2 Butterfly AllReduce), folding the extra ranks of a non-power-of-two N";
    c.fabrics = {fabric::HOST, fabric::FLOW};
    c.make = [](const collective_args& a) {
        return recursive_doubling_allreduce(a.ranks, a.elements);
    };
    return c;
}

}  // namespace trainvp::collectives
