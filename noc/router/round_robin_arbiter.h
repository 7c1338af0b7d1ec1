// A round-robin arbiter over up to 64 requesters: the grant goes to the first requester after
// the last winner, so every requester is served within one round (aries.md §III-B-1: "We use
// round-robin arbitration to ensure the fairness of packets").
#pragma once

#include <cstdint>

namespace trainvp::noc {

class round_robin_arbiter {
public:
    // `requests` has bit i set when requester i asks; not 0.  Returns the winner and moves
    // the priority past it.
    int pick(std::uint64_t requests) {
        const std::uint64_t after =
            m_last >= 63 ? 0 : requests & (~std::uint64_t{0} << (m_last + 1));
        const int w = __builtin_ctzll(after ? after : requests);
        m_last = w;
        return w;
    }

private:
    int m_last = 63;  // so that requester 0 has priority first
};

}  // namespace trainvp::noc
