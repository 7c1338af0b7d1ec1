#include "noc/traffic/uniform_traffic.h"

#include <cmath>
#include <limits>

#include "noc/network/noc_network.h"

namespace trainvp::noc {

uniform_traffic::uniform_traffic(int nodes, double rate, int packet_flits, std::uint64_t warmup,
                                 std::uint64_t measure, std::uint64_t stop, std::uint64_t seed)
    : m_nodes(nodes),
      m_flits(packet_flits),
      m_p(std::min(1.0, rate / packet_flits)),
      m_warmup(warmup),
      m_measure(measure),
      m_stop(stop),
      m_rng(seed) {
    if (m_p <= 0) return;
    for (int n = 0; n < nodes; ++n) m_next.push({gap() - 1, n});
}

double uniform_traffic::uniform() {
    // 53 random bits: the same value on every platform (std distributions may differ).
    return static_cast<double>(m_rng() >> 11) * 0x1.0p-53;
}

std::uint64_t uniform_traffic::gap() {
    // Cycles until the next success of a Bernoulli(p) trial, >= 1.
    if (m_p >= 1.0) return 1;
    const double u = uniform();
    return 1 + static_cast<std::uint64_t>(std::floor(std::log1p(-u) / std::log1p(-m_p)));
}

std::uint64_t uniform_traffic::next_cycle() const {
    if (m_next.empty() || m_next.top().first >= m_stop) {
        return std::numeric_limits<std::uint64_t>::max();
    }
    return m_next.top().first;
}

void uniform_traffic::generate(std::uint64_t now, noc_network& net) {
    while (!m_next.empty() && m_next.top().first <= now && now < m_stop) {
        const int src = m_next.top().second;
        m_next.pop();
        int dst = static_cast<int>(uniform() * (m_nodes - 1));
        if (dst >= src) ++dst;
        const bool measured = now >= m_warmup && now < m_warmup + m_measure;
        if (measured) m_window_flits += static_cast<std::uint64_t>(m_flits);
        net.add_packet(src, dst, m_flits, now, measured);
        m_next.push({now + gap(), src});
    }
}

}  // namespace trainvp::noc
