#include "workloads/ops/message_pairing.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace trainvp::ops {

std::optional<message_pairing::mismatch> message_pairing::first_mismatch() const {
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
    return std::nullopt;
}

}  // namespace trainvp::ops
