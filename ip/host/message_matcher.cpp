#include "ip/host/message_matcher.h"

#include <utility>

namespace trainvp::ip {

bool message_matcher::complete_send(std::uint64_t msg_id, pending_send& out) {
    const std::uint64_t k = msg_id - m_sends_base;  // wraps if below the base
    if (msg_id < m_sends_base || k >= m_sends.size() || m_sends[k].op == k_none) return false;
    out = m_sends[k];
    m_sends[k].op = k_none;
    --m_sends_pending;
    std::size_t finished = 0;
    while (finished < m_sends.size() && m_sends[finished].op == k_none) ++finished;
    m_sends.drop_front(finished);
    m_sends_base += finished;
    return true;
}

std::vector<std::size_t> message_matcher::pending_send_ops() const {
    std::vector<std::size_t> out;
    for (const pending_send& p : m_sends) {
        if (p.op != k_none) out.push_back(p.op);
    }
    return out;
}

bool message_matcher::post_recv(std::size_t u, std::size_t op, std::uint32_t peer,
                                std::uint32_t tag, arrival& out) {
    for (auto it = m_unexpected.begin(); it != m_unexpected.end(); ++it) {
        if (it->peer == peer && it->tag == tag) {
            out = std::move(*it);
            m_unexpected.erase(it);
            return true;
        }
    }
    m_posted[u] = posted_recv{op, peer, tag};
    return false;
}

}  // namespace trainvp::ip
