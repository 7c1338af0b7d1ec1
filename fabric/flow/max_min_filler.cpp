#include "fabric/flow/max_min_filler.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace trainvp::fabric {

namespace {
// A resource is full, or a flow at its cap, within this fraction (progressive filling in
// doubles).
constexpr double k_rel = 1e-12;
}  // namespace

max_min_filler::max_min_filler(std::vector<double> capacity)
    : m_capacity(std::move(capacity)),
      m_mark(m_capacity.size(), 0),
      m_left(m_capacity.size(), 0.0),
      m_rising(m_capacity.size(), 0) {}

void max_min_filler::clear() {
    m_res.clear();
    m_first.clear();
    m_cap.clear();
}

void max_min_filler::add_flow(double cap) {
    m_first.push_back(m_res.size());
    m_cap.push_back(cap);
}

void max_min_filler::use(int r) { m_res.push_back(r); }

const std::vector<double>& max_min_filler::solve() {
    const std::size_t n = m_cap.size();
    m_first.push_back(m_res.size());  // the last flow's end
    m_rate.assign(n, 0.0);
    m_frozen.assign(n, false);
    if (++m_epoch == 0) {
        std::fill(m_mark.begin(), m_mark.end(), 0);
        m_epoch = 1;
    }
    m_play.clear();
    for (int r : m_res) {
        const auto ur = static_cast<std::size_t>(r);
        if (m_mark[ur] != m_epoch) {
            m_mark[ur] = m_epoch;
            m_play.push_back(r);
            m_left[ur] = m_capacity[ur];
            m_rising[ur] = 0;
        }
        ++m_rising[ur];
    }
    std::size_t rising = n;
    double level = 0.0;
    while (rising > 0) {
        double step = std::numeric_limits<double>::infinity();
        for (int r : m_play) {
            const auto ur = static_cast<std::size_t>(r);
            if (m_rising[ur] > 0) step = std::min(step, m_left[ur] / m_rising[ur]);
        }
        for (std::size_t f = 0; f < n; ++f) {
            if (!m_frozen[f] && m_cap[f] > 0.0) step = std::min(step, m_cap[f] - level);
        }
        if (step == std::numeric_limits<double>::infinity()) {
            throw std::logic_error("max_min_filler: a flow with neither resources nor a cap");
        }
        step = std::max(step, 0.0);
        level += step;
        for (int r : m_play) {
            const auto ur = static_cast<std::size_t>(r);
            if (m_rising[ur] > 0) m_left[ur] -= step * m_rising[ur];
        }
        // Freeze the flows on a full resource or at their cap.
        for (std::size_t f = 0; f < n; ++f) {
            if (m_frozen[f]) continue;
            bool freeze = m_cap[f] > 0.0 && level >= m_cap[f] * (1.0 - k_rel);
            for (std::size_t j = m_first[f]; j < m_first[f + 1] && !freeze; ++j) {
                const auto ur = static_cast<std::size_t>(m_res[j]);
                if (m_left[ur] <= m_capacity[ur] * k_rel) freeze = true;
            }
            if (!freeze) continue;
            m_frozen[f] = true;
            m_rate[f] = level;
            --rising;
            for (std::size_t j = m_first[f]; j < m_first[f + 1]; ++j) {
                --m_rising[static_cast<std::size_t>(m_res[j])];
            }
        }
    }
    m_first.pop_back();
    return m_rate;
}

}  // namespace trainvp::fabric
