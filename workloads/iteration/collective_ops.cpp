#include "workloads/iteration/collective_ops.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <stdexcept>

namespace trainvp::workloads {

using collectives::chunk;
using collectives::schedule;
using collectives::step;
using collectives::step_kind;

namespace {

// Which op last wrote each element of the rank's buffer, as disjoint intervals
// [begin, end) -> op index.  Elements nobody wrote yet are absent (they hold the input).
class writer_map {
public:
    // The ops that wrote some element of `r`.
    void writers_of(const chunk& r, std::vector<std::size_t>& out) const {
        if (r.count == 0) return;
        const std::uint64_t end = r.offset + r.count;
        auto it = m_intervals.upper_bound(r.offset);
        if (it != m_intervals.begin()) --it;
        for (; it != m_intervals.end() && it->first < end; ++it) {
            if (it->second.end > r.offset) out.push_back(it->second.op);
        }
    }

    void assign(const chunk& r, std::size_t op) {
        if (r.count == 0) return;
        const std::uint64_t begin = r.offset, end = r.offset + r.count;
        // Trim the interval that starts before `begin` and the one that runs past `end`.
        auto it = m_intervals.upper_bound(begin);
        if (it != m_intervals.begin()) {
            auto prev = std::prev(it);
            if (prev->second.end > begin) {
                const interval old = prev->second;
                prev->second.end = begin;
                if (old.end > end) m_intervals[end] = {old.end, old.op};
            }
        }
        it = m_intervals.lower_bound(begin);
        while (it != m_intervals.end() && it->first < end) {
            if (it->second.end > end) m_intervals[end] = {it->second.end, it->second.op};
            it = m_intervals.erase(it);
        }
        // Also replaces an interval trimmed to nothing above (one that started at `begin`).
        m_intervals[begin] = {end, op};
    }

private:
    struct interval {
        std::uint64_t end = 0;
        std::size_t op = 0;
    };
    std::map<std::uint64_t, interval> m_intervals;
};

void sort_unique(std::vector<std::size_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

std::vector<ops::op> collective_ops(const schedule& s, int rank,
                                    const std::vector<std::uint32_t>& node_of_rank,
                                    const collective_op_options& o) {
    const std::string what = "collective_ops(" + s.algorithm + ")";
    if (rank < 0 || rank >= s.ranks || static_cast<std::size_t>(rank) >= s.steps.size()) {
        throw std::invalid_argument(what + ": rank " + std::to_string(rank) + " is not in 0.." +
                                    std::to_string(s.ranks - 1));
    }
    if (node_of_rank.size() != static_cast<std::size_t>(s.ranks)) {
        throw std::invalid_argument(what + ": node_of_rank has " +
                                    std::to_string(node_of_rank.size()) + " entries for " +
                                    std::to_string(s.ranks) + " ranks");
    }
    if (o.element_bytes == 0) throw std::invalid_argument(what + ": element_bytes is 0");
    for (std::size_t a : o.start_after) {
        if (a >= o.index_base) {
            throw std::invalid_argument(what + ": start_after op " + std::to_string(a) +
                                        " is not before index_base " +
                                        std::to_string(o.index_base));
        }
    }

    // An empty message would still cost a descriptor, a frame and a notification on a host;
    // dropping both ends of every empty transfer only removes waits (schedule.h).
    // This rank's steps only, filtered as collectives::without_empty_transfers does (a copy of
    // the whole schedule per rank made a 1024-rank ring's op lists cubic in N).
    std::vector<step> steps;
    for (const step& st : s.steps[static_cast<std::size_t>(rank)]) {
        if (st.range.count != 0) steps.push_back(st);
    }

    std::vector<ops::op> out;
    out.reserve(2 * steps.size());  // a RECV_REDUCE step makes two ops, the others one
    auto global = [&](std::size_t local) { return o.index_base + local; };
    // Named <prefix><what>_n<peer node>_t<tag>, built in place (a 1024-rank ring makes millions).
    auto make = [&](ops::op_kind kind, ops::op_unit unit, const char* what, const step& st) {
        ops::op x;
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

    writer_map writers;                                // local indices
    std::vector<std::size_t> barrier = o.start_after;  // global indices
    for (const collectives::step_group& g : collectives::group_by_round(steps)) {
        std::vector<std::size_t> frontier;  // ops of this round nothing later in it waits for
        std::vector<std::pair<chunk, std::size_t>> sends;  // this round's sends (local)

        // Sends first: they are posted and do not hold the comm unit past the NIC's accept,
        // so the round's receives are posted right behind them.  A send carries its range as
        // it stood when the round began, so it waits for the earlier op that wrote it.
        for (std::size_t i = g.begin; i < g.end; ++i) {
            const step& st = steps[i];
            if (st.kind != step_kind::SEND) continue;
            ops::op x = make(ops::op_kind::SEND, o.comm_unit, "send", st);
            x.tos = o.tos;
            std::vector<std::size_t> deps;
            writers.writers_of(st.range, deps);
            for (std::size_t& d : deps) d = global(d);
            deps.insert(deps.end(), barrier.begin(), barrier.end());
            sort_unique(deps);
            x.after = std::move(deps);
            sends.emplace_back(st.range, out.size());
            frontier.push_back(out.size());
            out.push_back(std::move(x));
        }

        // Receives in list order (overlapping receives land in that order: the aggregator
        // copies its first child and adds the others).
        for (std::size_t i = g.begin; i < g.end; ++i) {
            const step& st = steps[i];
            if (st.kind == step_kind::SEND) continue;
            ops::op r = make(ops::op_kind::RECV, o.comm_unit, "recv", st);
            r.after = barrier;
            sort_unique(r.after);
            const std::size_t recv_index = out.size();
            out.push_back(std::move(r));
            if (st.kind == step_kind::RECV_COPY) {
                // The NIC lands the message in host memory; it is the range's new content.
                writers.assign(st.range, recv_index);
                frontier.push_back(recv_index);
                continue;
            }
            // RECV_REDUCE: local[range] += message.  The add reads and rewrites the range, so
            // it waits for the message, for the range's last writer, and for this round's
            // sends of an overlapping range (they must have read the round's snapshot).
            ops::op sum = make(ops::op_kind::SUM, o.sum_unit, "sum", st);
            sum.peer = 0;
            sum.tag = 0;
            sum.inputs = 2;
            std::vector<std::size_t> deps{recv_index};
            writers.writers_of(st.range, deps);
            for (const auto& [range, index] : sends) {
                if (collectives::overlaps(range, st.range)) deps.push_back(index);
            }
            for (std::size_t& d : deps) d = global(d);
            sort_unique(deps);
            sum.after = std::move(deps);
            writers.assign(st.range, out.size());
            frontier.push_back(out.size());
            out.push_back(std::move(sum));
        }

        // The rank enters its next round when every op of this one is done: a send at its
        // SEND_DONE, a receive when its message is in memory, an add when it is written.
        barrier.clear();
        for (std::size_t f : frontier) barrier.push_back(global(f));
    }
    return out;
}

std::uint32_t max_tag(const schedule& s) {
    std::uint32_t t = 0;
    for (const auto& rank_steps : s.steps) {
        for (const step& st : rank_steps) t = std::max(t, st.tag);
    }
    return t;
}

}  // namespace trainvp::workloads
