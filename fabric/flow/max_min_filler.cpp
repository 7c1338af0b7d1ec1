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
      m_rising(m_capacity.size(), 0),
      m_user_first(m_capacity.size(), 0),
      m_user_end(m_capacity.size(), 0) {}

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
    // Progressive filling.  Each round raises every rising flow by the same step, the
    // smallest that fills a resource or brings a flow to its cap; the flows on a full
    // resource or at their cap freeze at that level.  A round costs the resources in play
    // plus the flows it freezes (each resource's users are listed once per problem, the
    // capped flows sorted by cap once), not a pass over every flow.
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
    // Users of each resource in play, m_user[m_user_first[r] ...) (counting sort).
    std::size_t at = 0;
    for (int r : m_play) {
        const auto ur = static_cast<std::size_t>(r);
        m_user_first[ur] = at;
        m_user_end[ur] = at;
        at += static_cast<std::size_t>(m_rising[ur]);
    }
    m_user.resize(at);
    for (std::size_t f = 0; f < n; ++f) {
        for (std::size_t j = m_first[f]; j < m_first[f + 1]; ++j) {
            m_user[m_user_end[static_cast<std::size_t>(m_res[j])]++] =
                static_cast<std::uint32_t>(f);
        }
    }
    // The capped flows, lowest cap first.
    m_by_cap.clear();
    for (std::size_t f = 0; f < n; ++f) {
        if (m_cap[f] > 0.0) m_by_cap.push_back(static_cast<std::uint32_t>(f));
    }
    const auto lower = [this](std::uint32_t a, std::uint32_t b) { return m_cap[a] < m_cap[b]; };
    // Often sorted already (the NoC's flows all have one cap unless a link is slow).
    if (!std::is_sorted(m_by_cap.begin(), m_by_cap.end(), lower)) {
        std::stable_sort(m_by_cap.begin(), m_by_cap.end(), lower);
    }
    std::size_t next_cap = 0;
    std::size_t rising = n;
    double level = 0.0;
    const auto freeze = [&](std::uint32_t f) {
        if (m_frozen[f]) return;
        m_frozen[f] = true;
        m_rate[f] = level;
        --rising;
        for (std::size_t j = m_first[f]; j < m_first[f + 1]; ++j) {
            --m_rising[static_cast<std::size_t>(m_res[j])];
        }
    };
    // The resources with users still rising (the others take no part in a round).
    m_live.assign(m_play.begin(), m_play.end());
    while (rising > 0) {
        double step = std::numeric_limits<double>::infinity();
        for (int r : m_live) {
            const auto ur = static_cast<std::size_t>(r);
            if (m_rising[ur] > 0) step = std::min(step, m_left[ur] / m_rising[ur]);
        }
        while (next_cap < m_by_cap.size() && m_frozen[m_by_cap[next_cap]]) ++next_cap;
        // The lowest cap still rising: min over flows of (cap - level) is (min cap) - level,
        // rounding being monotone.
        if (next_cap < m_by_cap.size()) step = std::min(step, m_cap[m_by_cap[next_cap]] - level);
        if (step == std::numeric_limits<double>::infinity()) {
            throw std::logic_error("max_min_filler: a flow with neither resources nor a cap");
        }
        step = std::max(step, 0.0);
        level += step;
        for (int r : m_live) {
            const auto ur = static_cast<std::size_t>(r);
            if (m_rising[ur] > 0) m_left[ur] -= step * m_rising[ur];
        }
        // Freeze the flows at their cap (a prefix of the rising capped flows) and those on a
        // full resource.
        for (; next_cap < m_by_cap.size(); ++next_cap) {
            const std::uint32_t f = m_by_cap[next_cap];
            if (m_frozen[f]) continue;
            if (!(level >= m_cap[f] * (1.0 - k_rel))) break;
            freeze(f);
        }
        for (int r : m_live) {
            const auto ur = static_cast<std::size_t>(r);
            if (m_rising[ur] == 0 || m_left[ur] > m_capacity[ur] * k_rel) continue;
            for (std::size_t k = m_user_first[ur]; k < m_user_end[ur]; ++k) freeze(m_user[k]);
        }
        m_live.erase(
            std::remove_if(m_live.begin(), m_live.end(),
                           [this](int r) { return m_rising[static_cast<std::size_t>(r)] == 0; }),
            m_live.end());
    }
    m_first.pop_back();
    return m_rate;
}

}  // namespace trainvp::fabric
