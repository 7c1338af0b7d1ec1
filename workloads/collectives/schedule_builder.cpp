#include "workloads/collectives/schedule_builder.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace trainvp::collectives {

schedule_builder::schedule_builder(std::string algorithm, int ranks, uint64_t elements) {
    if (ranks < 1) {
        throw std::invalid_argument(algorithm + ": needs at least 1 rank, got " +
                                    std::to_string(ranks));
    }
    m_schedule.algorithm = std::move(algorithm);
    m_schedule.ranks = ranks;
    m_schedule.elements = elements;
    m_schedule.steps.resize(static_cast<std::size_t>(ranks));
    m_schedule.contributes.assign(static_cast<std::size_t>(ranks), true);
    m_next_tag.resize(static_cast<std::size_t>(ranks));
}

void schedule_builder::reserve_per_rank(std::size_t steps) {
    for (auto& rank_steps : m_schedule.steps) rank_steps.reserve(steps);
}

void schedule_builder::check_rank(int rank, const char* what) const {
    if (rank < 0 || rank >= m_schedule.ranks) {
        throw std::logic_error(m_schedule.algorithm + ": builder " + what + " rank " +
                               std::to_string(rank) + " out of range [0, " +
                               std::to_string(m_schedule.ranks) + ")");
    }
}

void schedule_builder::set_contributes(int rank, bool contributes) {
    check_rank(rank, "set_contributes");
    m_schedule.contributes[static_cast<std::size_t>(rank)] = contributes;
}

void schedule_builder::transfer(int src, int dst, const chunk& src_range, const chunk& dst_range,
                                step_kind recv_kind, uint32_t round) {
    check_rank(src, "transfer src");
    check_rank(dst, "transfer dst");
    // Builder bugs, not user errors: a builder must never emit these.
    if (src == dst) throw std::logic_error(m_schedule.algorithm + ": builder self-transfer");
    if (!is_recv(recv_kind)) {
        throw std::logic_error(m_schedule.algorithm + ": builder transfer needs a RECV kind");
    }
    if (src_range.count != dst_range.count) {
        throw std::logic_error(m_schedule.algorithm + ": builder transfer size mismatch");
    }
    auto& peers = m_next_tag[static_cast<std::size_t>(src)];
    auto it = peers.rbegin();  // the latest peer first: builders mostly repeat it
    while (it != peers.rend() && it->first != dst) ++it;
    uint32_t tag = 0;
    if (it == peers.rend()) {
        peers.emplace_back(dst, 1);
    } else {
        tag = it->second++;
    }
    m_schedule.steps[static_cast<std::size_t>(src)].push_back(
        {step_kind::SEND, dst, src_range, round, tag});
    m_schedule.steps[static_cast<std::size_t>(dst)].push_back(
        {recv_kind, src, dst_range, round, tag});
}

schedule schedule_builder::finish() {
    const auto by_round = [](const step& a, const step& b) { return a.round < b.round; };
    for (auto& rank_steps : m_schedule.steps) {
        // Most builders emit each rank's steps in round order already: no sort, no buffer.
        if (!std::is_sorted(rank_steps.begin(), rank_steps.end(), by_round)) {
            std::stable_sort(rank_steps.begin(), rank_steps.end(), by_round);
        }
    }
    m_next_tag.clear();
    schedule out = std::move(m_schedule);
    m_schedule = schedule{};
    return out;
}

}  // namespace trainvp::collectives
