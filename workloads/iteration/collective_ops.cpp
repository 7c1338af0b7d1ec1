#include "workloads/iteration/collective_ops.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace trainvp::workloads {

using collectives::chunk;
using collectives::schedule;
using collectives::step;
using collectives::step_kind;

namespace {

// The sorted distinct ends of the non-empty ranges of `steps`.
std::vector<std::uint64_t> bounds_of(const std::vector<step>& steps) {
    std::vector<std::uint64_t> b;
    b.reserve(2 * steps.size());
    for (const step& st : steps) {
        if (st.range.count == 0) continue;
        // A step often repeats the range of the one before (a ring receives a block and
        // sends it on): skipped here rather than sorted.
        if (!b.empty() && b[b.size() - 1] == st.range.offset + st.range.count &&
            b[b.size() - 2] == st.range.offset) {
            continue;
        }
        b.push_back(st.range.offset);
        b.push_back(st.range.offset + st.range.count);
    }
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    return b;
}

// Which op last wrote each element of the rank's buffer.  Every range the rank's steps touch
// starts and ends on one of `bounds` (sorted, distinct), so the buffer splits into the
// segments [bounds[j], bounds[j + 1]) and one writer per segment says it all: an op index,
// or k_none while the segment holds the input.  Each step's range is the segments
// [first[i], last[i]), found once up front; a ring's ranges are one segment each, so marking
// and asking cost no search and no allocation (a map of intervals cost a node per write).
class writer_map {
public:
    static constexpr std::size_t k_none = static_cast<std::size_t>(-1);

    // `shared`: bounds that may hold the ranks' (collective_op_options::bounds), or null.
    writer_map(const std::vector<step>& steps, const std::vector<std::uint64_t>* shared) {
        if (shared == nullptr || !locate(steps, *shared)) {
            const std::vector<std::uint64_t> own = bounds_of(steps);
            locate(steps, own);  // always succeeds
        }
    }

    // Appends the ops that wrote some element of step i's range (each once per run of
    // segments).
    void writers_of(std::size_t i, std::vector<std::size_t>& out) const {
        std::size_t last = k_none;
        for (std::uint32_t j = m_first[i]; j < m_last[i]; ++j) {
            if (m_writer[j] != k_none && m_writer[j] != last) out.push_back(m_writer[j]);
            last = m_writer[j];
        }
    }

    void assign(std::size_t i, std::size_t op) {
        for (std::uint32_t j = m_first[i]; j < m_last[i]; ++j) m_writer[j] = op;
    }

private:
    // Finds every non-empty range's ends in `bounds`; false when one is missing.
    bool locate(const std::vector<step>& steps, const std::vector<std::uint64_t>& bounds) {
        m_first.assign(steps.size(), 0);
        m_last.assign(steps.size(), 0);
        std::size_t hint = 0;
        // The index of x in bounds, or npos; searched within 4 of the previous one first (a
        // ring rank's next lookup is at most 3 away: it walks the blocks down by one a round).
        auto find = [&](std::uint64_t x) -> std::size_t {
            const std::size_t n = bounds.size();
            for (std::size_t d = 0; d <= 4; ++d) {
                if (hint + d < n && bounds[hint + d] == x) return hint += d;
                if (d > 0 && hint >= d && bounds[hint - d] == x) return hint -= d;
            }
            const auto it = std::lower_bound(bounds.begin(), bounds.end(), x);
            if (it == bounds.end() || *it != x) return static_cast<std::size_t>(-1);
            return hint = static_cast<std::size_t>(it - bounds.begin());
        };
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const chunk& r = steps[i].range;
            if (r.count == 0) continue;
            const std::size_t a = find(r.offset);
            const std::size_t b = a == static_cast<std::size_t>(-1) ? a : find(r.offset + r.count);
            if (b == static_cast<std::size_t>(-1)) return false;
            m_first[i] = static_cast<std::uint32_t>(a);
            m_last[i] = static_cast<std::uint32_t>(b);
        }
        m_writer.assign(bounds.empty() ? 0 : bounds.size() - 1, k_none);
        return true;
    }

    std::vector<std::uint32_t> m_first, m_last;  // per step: its segments
    std::vector<std::size_t> m_writer;           // per segment
};

// Sorts and drops repeats (the lists are a few entries long: insertion sort).
void sort_unique(std::vector<std::size_t>& v) {
    if (v.size() > 16) {
        std::sort(v.begin(), v.end());
    } else {
        for (std::size_t i = 1; i < v.size(); ++i) {
            const std::size_t x = v[i];
            std::size_t j = i;
            for (; j > 0 && v[j - 1] > x; --j) v[j] = v[j - 1];
            v[j] = x;
        }
    }
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

void check(const std::string& what, int ranks, const std::vector<std::uint32_t>& node_of_rank,
           const collective_op_options& o) {
    if (node_of_rank.size() != static_cast<std::size_t>(ranks)) {
        throw std::invalid_argument(what + ": node_of_rank has " +
                                    std::to_string(node_of_rank.size()) + " entries for " +
                                    std::to_string(ranks) + " ranks");
    }
    if (o.element_bytes == 0) throw std::invalid_argument(what + ": element_bytes is 0");
    for (std::size_t a : o.start_after) {
        if (a >= o.index_base) {
            throw std::invalid_argument(what + ": start_after op " + std::to_string(a) +
                                        " is not before index_base " +
                                        std::to_string(o.index_base));
        }
    }
}

void expand(std::vector<ops::op>& out, const std::vector<step>& steps,
            const std::vector<std::uint32_t>& node_of_rank, const collective_op_options& o);

}  // namespace

std::vector<ops::op> collective_ops(const schedule& s, int rank,
                                    const std::vector<std::uint32_t>& node_of_rank,
                                    const collective_op_options& o) {
    std::vector<ops::op> out;
    append_collective_ops(out, s, rank, node_of_rank, o);
    return out;
}

void append_collective_ops(std::vector<ops::op>& out, const schedule& s, int rank,
                           const std::vector<std::uint32_t>& node_of_rank,
                           const collective_op_options& o) {
    const std::string what = "collective_ops(" + s.algorithm + ")";
    if (rank < 0 || rank >= s.ranks || static_cast<std::size_t>(rank) >= s.steps.size()) {
        throw std::invalid_argument(what + ": rank " + std::to_string(rank) + " is not in 0.." +
                                    std::to_string(s.ranks - 1));
    }
    check(what, s.ranks, node_of_rank, o);
    expand(out, s.steps[static_cast<std::size_t>(rank)], node_of_rank, o);
}

void append_collective_ops(std::vector<ops::op>& out, const std::vector<step>& steps, int ranks,
                           const std::vector<std::uint32_t>& node_of_rank,
                           const collective_op_options& o) {
    check("collective_ops", ranks, node_of_rank, o);
    for (const step& st : steps) {
        if (st.peer < 0 || st.peer >= ranks) {
            throw std::invalid_argument("collective_ops: a step's peer " + std::to_string(st.peer) +
                                        " is not in 0.." + std::to_string(ranks - 1));
        }
    }
    expand(out, steps, node_of_rank, o);
}

namespace {

void expand(std::vector<ops::op>& out, const std::vector<step>& steps,
            const std::vector<std::uint32_t>& node_of_rank, const collective_op_options& o) {
    // An empty message would still cost a descriptor, a frame and a notification on a host;
    // dropping both ends of every empty transfer only removes waits (schedule.h).  Only this
    // rank's steps are read, skipping the empty ones as collectives::without_empty_transfers
    // does (a copy of the whole schedule per rank made a 1024-rank ring's op lists cubic in N).
    std::size_t ops_made = 0;  // a RECV_REDUCE step makes two ops, the others one
    for (const step& st : steps) {
        if (st.range.count != 0) ops_made += st.kind == step_kind::RECV_REDUCE ? 2 : 1;
    }
    if (out.capacity() < out.size() + ops_made) {
        out.reserve(std::max(2 * out.capacity(), out.size() + ops_made));
    }
    // Local index l (from 0 at the first op made here) is op index_base + l of the list.
    const std::size_t local0 = out.size();
    auto global = [&](std::size_t local) { return o.index_base + local; };
    auto local_index = [&]() { return out.size() - local0; };
    // Named <prefix><what>_n<peer node>_t<tag>, built in place (a 1024-rank ring makes millions).
    auto make = [&](ops::op_kind kind, ops::op_unit unit, const char* what,
                    const step& st) -> ops::op& {
        ops::op& x = out.emplace_back();
        x.kind = kind;
        x.unit = unit;
        x.bytes = st.range.count * o.element_bytes;
        x.address = o.base_address + st.range.offset * o.element_bytes;
        x.peer = node_of_rank[static_cast<std::size_t>(st.peer)];
        x.tag = o.tag_base + st.tag;
        if (!o.names) return x;
        char suffix[48];
        std::snprintf(suffix, sizeof suffix, "%s_n%u_t%u", what, x.peer, x.tag);
        x.name.reserve(o.name_prefix.size() + std::strlen(suffix));
        x.name += o.name_prefix;
        x.name += suffix;
        return x;
    };
    auto set_after = [](ops::op& x, std::vector<std::size_t>& deps) {
        sort_unique(deps);
        x.after.assign(deps.data(), deps.data() + deps.size());
    };

    writer_map writers(steps, o.bounds);               // local indices
    std::vector<std::size_t> barrier = o.start_after;  // global indices
    sort_unique(barrier);
    // Scratch lists, kept across rounds (no allocation per op).
    std::vector<std::size_t> frontier;  // ops of this round nothing later in it waits for
    std::vector<std::pair<chunk, std::size_t>> sends;  // this round's sends (local)
    std::vector<std::size_t> deps;
    // The rank's steps by round: collectives::group_by_round of its non-empty steps, without
    // copying them.  steps[g_begin, g_end) holds a round's non-empty steps (and maybe empty
    // ones, skipped); a round whose steps are all empty makes no ops.
    for (std::size_t next = 0;;) {
        while (next < steps.size() && steps[next].range.count == 0) ++next;
        if (next == steps.size()) break;
        const std::size_t g_begin = next;
        for (++next; next < steps.size(); ++next) {
            if (steps[next].range.count != 0 && steps[next].round != steps[g_begin].round) break;
        }
        const std::size_t g_end = next;
        frontier.clear();
        sends.clear();

        // Sends first: they are posted and do not hold the comm unit past the NIC's accept,
        // so the round's receives are posted right behind them.  A send carries its range as
        // it stood when the round began, so it waits for the earlier op that wrote it.
        for (std::size_t i = g_begin; i < g_end; ++i) {
            const step& st = steps[i];
            if (st.kind != step_kind::SEND || st.range.count == 0) continue;
            deps.clear();
            writers.writers_of(i, deps);
            for (std::size_t& d : deps) d = global(d);
            deps.insert(deps.end(), barrier.begin(), barrier.end());
            const std::size_t index = local_index();
            ops::op& x = make(ops::op_kind::SEND, o.comm_unit, "send", st);
            x.tos = o.tos;
            set_after(x, deps);
            sends.emplace_back(st.range, index);
            frontier.push_back(index);
        }

        // Receives in list order (overlapping receives land in that order: the aggregator
        // copies its first child and adds the others).
        for (std::size_t i = g_begin; i < g_end; ++i) {
            const step& st = steps[i];
            if (st.kind == step_kind::SEND || st.range.count == 0) continue;
            const std::size_t recv_index = local_index();
            ops::op& r = make(ops::op_kind::RECV, o.comm_unit, "recv", st);
            r.after = barrier;  // sorted, without repeats
            if (st.kind == step_kind::RECV_COPY) {
                // The NIC lands the message in host memory; it is the range's new content.
                writers.assign(i, recv_index);
                frontier.push_back(recv_index);
                continue;
            }
            // RECV_REDUCE: local[range] += message.  The add reads and rewrites the range, so
            // it waits for the message, for the range's last writer, and for this round's
            // sends of an overlapping range (they must have read the round's snapshot).
            deps.clear();
            deps.push_back(recv_index);
            writers.writers_of(i, deps);
            for (const auto& [range, index] : sends) {
                if (collectives::overlaps(range, st.range)) deps.push_back(index);
            }
            for (std::size_t& d : deps) d = global(d);
            const std::size_t sum_index = local_index();
            ops::op& sum = make(ops::op_kind::SUM, o.sum_unit, "sum", st);
            sum.peer = 0;
            sum.tag = 0;
            sum.inputs = 2;
            set_after(sum, deps);
            writers.assign(i, sum_index);
            frontier.push_back(sum_index);
        }

        // The rank enters its next round when every op of this one is done: a send at its
        // SEND_DONE, a receive when its message is in memory, an add when it is written.
        // (Local indices ascend, so the barrier stays sorted.)
        barrier.clear();
        for (std::size_t f : frontier) barrier.push_back(global(f));
        sort_unique(barrier);
    }
}

}  // namespace

std::vector<std::uint64_t> range_bounds(const schedule& s, int rank) {
    if (rank < 0 || static_cast<std::size_t>(rank) >= s.steps.size()) return {};
    return range_bounds(s.steps[static_cast<std::size_t>(rank)]);
}

std::vector<std::uint64_t> range_bounds(const std::vector<step>& steps) { return bounds_of(steps); }

std::uint32_t max_tag(const schedule& s) {
    std::uint32_t t = 0;
    for (const auto& rank_steps : s.steps) {
        for (const step& st : rank_steps) t = std::max(t, st.tag);
    }
    return t;
}

}  // namespace trainvp::workloads
