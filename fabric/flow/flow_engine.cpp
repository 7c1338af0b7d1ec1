#include "fabric/flow/flow_engine.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace trainvp::fabric {

namespace {
constexpr double k_ps_per_s = 1e12;
}  // namespace

flow_engine::flow_engine(std::vector<double> capacity)
    : m_capacity(std::move(capacity)),
      m_carried(m_capacity.size(), 0.0),
      m_components(m_capacity.size()),
      m_filler(m_capacity) {
    for (double c : m_capacity) {
        if (!(c > 0.0)) throw std::invalid_argument("flow_engine: a capacity is not positive");
    }
}

void flow_engine::add(std::uint64_t tag, double bytes, const std::vector<int>& res, double cap) {
    if (!(bytes > 0.0)) throw std::invalid_argument("flow_engine: a flow of no bytes");
    if (res.empty() && !(cap > 0.0)) {
        throw std::invalid_argument("flow_engine: a flow with neither resources nor a cap");
    }
    for (int r : res) {
        if (r < 0 || static_cast<std::size_t>(r) >= m_capacity.size()) {
            throw std::out_of_range("flow_engine: no resource " + std::to_string(r));
        }
    }
    std::uint32_t f;
    if (!m_free.empty()) {
        f = m_free.back();
        m_free.pop_back();
    } else {
        f = static_cast<std::uint32_t>(m_flows.size());
        m_flows.emplace_back();
    }
    flow& x = m_flows[f];
    x.tag = tag;
    x.order = m_next_order++;
    x.remaining = bytes;
    x.rate = 0.0;
    x.since = m_now;
    x.cap = cap;
    ++x.version;
    x.res.assign(res.begin(), res.end());
    x.live = true;
    ++m_active;
    for (int r : x.res) m_components.use(f, r);
    if (x.res.empty()) {
        x.rate = cap;
        schedule(f);
    }
}

void flow_engine::settle(std::uint32_t f) {
    flow& x = m_flows[f];
    const double moved = std::min(x.remaining, x.rate * (m_now - x.since) / k_ps_per_s);
    x.remaining -= moved;
    x.since = m_now;
    for (int r : x.res) m_carried[static_cast<std::size_t>(r)] += moved;
}

void flow_engine::schedule(std::uint32_t f) {
    flow& x = m_flows[f];
    ++x.version;
    if (x.rate <= 0.0) return;
    m_events.push({m_now + x.remaining / x.rate * k_ps_per_s, x.order, f, x.version});
}

void flow_engine::rebalance() {
    if (!m_components.touched()) return;
    // The connected component(s) of the touched resources (flow_components).
    const std::vector<std::uint32_t>& comp = m_components.collect(
        [this](std::uint32_t f) -> const std::vector<int>& { return m_flows[f].res; });
    // Max-min fair rates over the component (progressive filling: max_min_filler).
    m_filler.clear();
    for (std::uint32_t f : comp) {
        settle(f);
        m_filler.add_flow(m_flows[f].cap);
        for (int r : m_flows[f].res) m_filler.use(r);
    }
    const std::vector<double>& rate = m_filler.solve();
    for (std::size_t i = 0; i < comp.size(); ++i) m_flows[comp[i]].rate = rate[i];
    for (std::uint32_t f : comp) schedule(f);
}

void flow_engine::prune() const {
    while (!m_events.empty()) {
        const event& e = m_events.top();
        const flow& x = m_flows[e.flow];
        if (x.live && x.version == e.version) return;
        m_events.pop();
    }
}

double flow_engine::next_finish() const {
    const_cast<flow_engine*>(this)->rebalance();
    prune();
    if (m_events.empty()) return std::numeric_limits<double>::infinity();
    return m_events.top().at;
}

void flow_engine::advance(double t_ps, std::vector<std::uint64_t>& finished) {
    rebalance();
    for (;;) {
        prune();
        if (m_events.empty() || m_events.top().at > t_ps) break;
        // Every flow finishing at this instant, then one rebalance.
        const double at = m_events.top().at;
        m_now = std::max(m_now, at);
        while (!m_events.empty()) {
            prune();
            if (m_events.empty() || m_events.top().at != at) break;
            const std::uint32_t f = m_events.top().flow;
            m_events.pop();
            flow& x = m_flows[f];
            settle(f);
            for (int r : x.res) m_components.drop(f, r);
            x.live = false;
            ++x.version;
            --m_active;
            m_free.push_back(f);
            finished.push_back(x.tag);
        }
        rebalance();
    }
    m_now = std::max(m_now, t_ps);
}

double flow_engine::rate_of(std::uint64_t tag) const {
    const_cast<flow_engine*>(this)->rebalance();
    for (const flow& x : m_flows) {
        if (x.live && x.tag == tag) return x.rate;
    }
    return -1.0;
}

double flow_engine::carried(int r) const {
    // Plus what its current users moved since they were last settled.
    double c = m_carried[static_cast<std::size_t>(r)];
    for (std::uint32_t f : m_components.users(r)) {
        const flow& x = m_flows[f];
        c += std::min(x.remaining, x.rate * (m_now - x.since) / k_ps_per_s);
    }
    return c;
}

}  // namespace trainvp::fabric
