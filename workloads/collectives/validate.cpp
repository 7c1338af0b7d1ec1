#include "workloads/collectives/validate.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "workloads/collectives/schedule_walker.h"

namespace trainvp::collectives {

namespace {

[[noreturn]] void fail(const schedule& s, int rank, std::size_t i, const std::string& problem) {
    throw std::logic_error("schedule '" + s.algorithm + "': " + describe_step(s, rank, i) + ": " +
                           problem);
}

// A RECV_COPY that overlaps a receive listed before it in the same round would discard that
// data.  Groups can hold hundreds of receives (a multi-tree rank at broadcast time), so look
// for any overlap first in O(g log g) and only compare pairs when there is one.
void check_overlapping_copies(const schedule& s, int rank, const step_group& g) {
    const auto& rs = s.steps[static_cast<std::size_t>(rank)];
    std::vector<std::size_t> recvs;
    for (std::size_t i = g.begin; i < g.end; ++i) {
        if (is_recv(rs[i].kind) && rs[i].range.count > 0) recvs.push_back(i);
    }
    std::sort(recvs.begin(), recvs.end(), [&](std::size_t a, std::size_t b) {
        return rs[a].range.offset < rs[b].range.offset;
    });
    bool any_overlap = false;
    uint64_t reach = 0;  // end of the furthest range seen so far
    for (std::size_t k = 0; k < recvs.size(); ++k) {
        const chunk& c = rs[recvs[k]].range;
        if (k > 0 && c.offset < reach) any_overlap = true;
        reach = std::max(reach, c.offset + c.count);
    }
    if (!any_overlap) return;
    for (std::size_t i = g.begin; i < g.end; ++i) {
        if (rs[i].kind != step_kind::RECV_COPY) continue;
        for (std::size_t j = g.begin; j < i; ++j) {
            if (is_recv(rs[j].kind) && overlaps(rs[i].range, rs[j].range)) {
                fail(
                    s, rank, i,
                    "overwrites data received by step " + std::to_string(j) + " in the same round");
            }
        }
    }
}

}  // namespace

void validate(const schedule& s) {
    const std::string name = "schedule '" + s.algorithm + "': ";
    if (s.ranks < 1) throw std::logic_error(name + "needs at least one rank");
    if (s.steps.size() != static_cast<std::size_t>(s.ranks)) {
        throw std::logic_error(name + "has " + std::to_string(s.steps.size()) + " step lists for " +
                               std::to_string(s.ranks) + " ranks");
    }
    if (s.contributes.size() != static_cast<std::size_t>(s.ranks)) {
        throw std::logic_error(name + "has " + std::to_string(s.contributes.size()) +
                               " contributes flags for " + std::to_string(s.ranks) + " ranks");
    }

    for (int r = 0; r < s.ranks; ++r) {
        const auto& rs = s.steps[static_cast<std::size_t>(r)];
        for (std::size_t i = 0; i < rs.size(); ++i) {
            const step& st = rs[i];
            if (st.peer < 0 || st.peer >= s.ranks) fail(s, r, i, "peer out of range");
            if (st.peer == r) fail(s, r, i, "peer is the rank itself");
            // Written so that offset + count cannot overflow.
            if (st.range.offset > s.elements || st.range.count > s.elements - st.range.offset) {
                fail(s, r, i, "chunk out of range [0, " + std::to_string(s.elements) + ")");
            }
            if (i > 0 && st.round < rs[i - 1].round) {
                fail(s, r, i, "round goes back from " + std::to_string(rs[i - 1].round));
            }
        }
        for (const step_group& g : group_by_round(rs)) check_overlapping_copies(s, r, g);
    }

    const schedule_walker walker(s);  // throws on unmatched steps
    walker.walk({});                  // throws on deadlock
}

}  // namespace trainvp::collectives
