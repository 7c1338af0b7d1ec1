#include "workloads/ops/message_pairing.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace trainvp::ops {

std::optional<message_pairing::mismatch> message_pairing::first_mismatch(
    const std::vector<std::uint32_t>& nodes) const {
    using channel = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;
    struct queue {
        std::vector<const entry*> sends;  // in the order added
        std::size_t taken = 0;            // by receives so far
        std::size_t recvs = 0;            // receives in all
    };
    std::map<channel, queue> channels;
    for (const entry& s : m_sends) channels[{s.src, s.dst, s.tag}].sends.push_back(&s);
    for (const entry& r : m_recvs) ++channels[{r.src, r.dst, r.tag}].recvs;
    for (const entry& r : m_recvs) {
        queue& q = channels[{r.src, r.dst, r.tag}];
        mismatch m;
        m.recv = r;
        m.sends = q.sends.size();
        m.recvs = q.recvs;
        if (q.taken == q.sends.size()) {
            m.kind = problem::UNANSWERED_RECV;
            return m;
        }
        const entry& s = *q.sends[q.taken++];
        if (s.bytes != r.bytes) {
            m.kind = problem::SIZE;
            m.send = s;
            return m;
        }
    }
    for (const entry& s : m_sends) {
        const queue& q = channels[{s.src, s.dst, s.tag}];
        if (q.taken == q.sends.size()) continue;
        // The first send of the channel no receive took.
        const entry& first = *q.sends[q.taken];
        if (&first != &s) continue;
        mismatch m;
        m.kind = problem::UNTAKEN_SEND;
        m.send = s;
        m.sends = q.sends.size();
        m.recvs = q.recvs;
        return m;
    }
    return first_allreduce_mismatch(nodes);
}

std::optional<message_pairing::mismatch> message_pairing::first_allreduce_mismatch(
    const std::vector<std::uint32_t>& nodes) const {
    // Per tag: its first post, and the nodes that posted it.
    std::map<std::uint32_t, std::pair<const entry*, std::map<std::uint32_t, const entry*>>> tags;
    for (const entry& a : m_allreduces) {
        auto& [first, by_node] = tags[a.tag];
        if (first == nullptr) first = &a;
        mismatch m;
        m.send = *first;
        m.recv = a;
        if (a.bytes != first->bytes) {
            m.kind = problem::ALLREDUCE_SIZE;
            return m;
        }
        const auto [it, fresh] = by_node.emplace(a.src, &a);
        if (!fresh) {
            m.send = *it->second;
            m.kind = problem::ALLREDUCE_TWICE;
            return m;
        }
    }
    for (const entry& a : m_allreduces) {
        const auto& [first, by_node] = tags[a.tag];
        if (first != &a) continue;
        for (std::uint32_t n : nodes) {
            if (by_node.count(n) != 0) continue;
            mismatch m;
            m.kind = problem::ALLREDUCE_MISSING;
            m.send = a;
            m.missing = n;
            m.sends = by_node.size();
            return m;
        }
    }
    return std::nullopt;
}

}  // namespace trainvp::ops
