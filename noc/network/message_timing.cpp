#include "noc/network/message_timing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "noc/network/noc_network.h"

namespace trainvp::noc {

namespace {
// Fluid times are sums of many fractions: a flow is finished within this many flits.
constexpr double k_eps = 1e-9;

// A flow's resources in use, for flow_components::collect.
struct resource_span {
    const int* first;
    const int* last;
    const int* begin() const { return first; }
    const int* end() const { return last; }
};
}  // namespace

message_timing::message_timing(const noc_topology& topo, const route_table& routes,
                               const std::vector<link_timing>& timing, int pipeline_stages,
                               int width, int packet_flits, int buffer_depth, int eject_width)
    : m_topo(topo),
      m_routes(routes),
      m_timing(timing),
      m_stages(static_cast<std::uint64_t>(pipeline_stages)),
      m_packet_flits(static_cast<std::uint64_t>(std::max(1, packet_flits))),
      m_width(static_cast<std::uint64_t>(std::max(1, width))),
      m_buffer_depth(static_cast<double>(std::max(1, buffer_depth))) {
    for (const auto& t : timing) m_capacity.push_back(1.0 / t.cycles_per_flit);
    const auto n = static_cast<std::size_t>(topo.routers());
    m_capacity.insert(m_capacity.end(), n, static_cast<double>(width));  // injection
    m_capacity.insert(m_capacity.end(), n,
                      static_cast<double>(eject_width > 0 ? eject_width : width));  // ejection
    m_injecting.assign(n, 0);
    m_waiting.resize(n);
    m_filler = fabric::max_min_filler(m_capacity);
    m_components = fabric::flow_components(m_capacity.size());
}

void message_timing::track(const flow& fl, std::size_t lo, std::size_t hi, bool gone) {
    std::size_t lo1 = fl.holds_slot ? 0 : 1, hi1 = fl.started ? fl.reached : 0;
    if (gone) lo1 = hi1 = 0;
    for (std::size_t j = lo; j < hi; ++j) {
        if (j < lo1 || j >= hi1) m_components.drop(fl.slot, fl.resources[j]);
    }
    for (std::size_t j = lo1; j < hi1; ++j) {
        if (j < lo || j >= hi) m_components.use(fl.slot, fl.resources[j]);
    }
}

void message_timing::admit(int router, double now) {
    auto& q = m_waiting[static_cast<std::size_t>(router)];
    auto& busy = m_injecting[static_cast<std::size_t>(router)];
    while (busy < m_width && !q.empty()) {
        flow fl = std::move(q.front());
        q.pop_front();
        --m_queued;
        ++busy;
        fl.start = std::max(fl.start, now);
        fl.slot_until = fl.start + fl.remaining;
        if (m_free_slots.empty()) {
            fl.slot = static_cast<std::uint32_t>(m_index.size());
            m_index.push_back(0);
        } else {
            fl.slot = m_free_slots.back();
            m_free_slots.pop_back();
        }
        m_index[fl.slot] = m_flows.size();
        m_flows.push_back(std::move(fl));
    }
}

std::uint32_t message_timing::add(std::uint32_t id, int src, int dst, std::uint64_t flits,
                                  std::uint64_t created, int variant, network_counts& counts,
                                  std::vector<std::uint64_t>& channel_flits,
                                  std::vector<std::uint64_t>& forwarded) {
    const std::uint64_t f = std::max<std::uint64_t>(1, flits);
    const int channels = static_cast<int>(m_timing.size()), n = m_topo.routers();
    flow fl;
    fl.id = id;
    fl.src = src;
    fl.start = static_cast<double>(created + m_stages - 1);
    fl.remaining = static_cast<double>(f);
    fl.resources.push_back(channels + src);  // injection port
    fl.reach.push_back(0);
    std::uint64_t latency = 0, routers = 0, slowest = 1;
    std::uint32_t hops = 0;
    int router = src;
    for (;;) {
        ++routers;
        forwarded[static_cast<std::size_t>(router)] += f;
        const int port = m_routes.port(router, dst, variant);
        if (port <= PORT_LOCAL) break;
        const int c = m_topo.out_channel(router, port);
        if (c < 0) throw std::logic_error("message_timing: the route leaves on an unused port");
        const auto ci = static_cast<std::size_t>(c);
        const link_timing& lt = m_timing[ci];
        fl.resources.push_back(c);
        fl.reach.push_back(static_cast<double>(latency));
        slowest = std::max<std::uint64_t>(slowest, lt.cycles_per_flit);
        latency += lt.latency + m_stages;
        channel_flits[ci] += f;
        counts.flit_hops += f;
        const noc_channel& ch = m_topo.channels()[ci];
        counts.link_flit_pitches += static_cast<double>(f) * ch.length;
        if (ch.kind == channel_kind::BYPASS_X || ch.kind == channel_kind::BYPASS_Y) {
            counts.bypass_flit_hops += f;
        }
        router = ch.dst;
        if (++hops > static_cast<std::uint32_t>(channels)) {
            throw std::logic_error("message_timing: the route table loops");
        }
    }
    fl.resources.push_back(channels + n + dst);  // ejection port
    fl.reach.push_back(static_cast<double>(latency));
    fl.cap = 1.0 / static_cast<double>(slowest);
    fl.tail_latency = 1 - slowest;
    fl.buffered = m_buffer_depth * static_cast<double>(hops + 1);
    m_waiting[static_cast<std::size_t>(src)].push_back(std::move(fl));
    ++m_queued;
    admit(src, m_t);
    // The flit level's events for these flits: every router on the route writes, reads,
    // allocates the switch for and crosses the crossbar with each flit once; each packet of
    // packet_flits allocates a VC at every router-to-router hop.
    counts.buffer_writes += f * routers;
    counts.buffer_reads += f * routers;
    counts.switch_allocations += f * routers;
    counts.crossbar += f * routers;
    counts.vc_allocations += (f + m_packet_flits - 1) / m_packet_flits * hops;
    counts.flits_delivered += f;
    return hops;
}

void message_timing::rates() {
    // Max-min fair over the started flows (fabric/flow/max_min_filler, the flow level's
    // allocator): a flow competes for the resources its head has reached, and for its
    // injection port until its tail is injected.  Only the flows connected to a resource some
    // flow started or stopped using since the last time are recomputed (flow_components, as
    // the flow level's flow_engine does); the others' rates stand.
    if (!m_components.touched()) return;
    const auto in_use = [this](std::uint32_t slot) {
        const flow& fl = m_flows[m_index[slot]];
        const int* r = fl.resources.data();
        return resource_span{r + (fl.holds_slot ? 0 : 1), r + fl.reached};
    };
    const std::vector<std::uint32_t>& comp = m_components.collect(in_use);
    m_filler.clear();
    for (std::uint32_t slot : comp) {
        m_filler.add_flow(m_flows[m_index[slot]].cap);
        for (int r : in_use(slot)) m_filler.use(r);
    }
    if (comp.empty()) return;
    const std::vector<double>& rate = m_filler.solve();
    for (std::size_t k = 0; k < comp.size(); ++k) m_flows[m_index[comp[k]]].rate = rate[k];
}

double message_timing::next_time() const {
    double t = std::numeric_limits<double>::infinity();
    for (const auto& fl : m_flows) {
        if (!fl.started) {
            t = std::min(t, std::max(fl.start, m_t));
        } else if (fl.rate > 0) {
            if (fl.reached == fl.reach.size()) t = std::min(t, m_t + fl.remaining / fl.rate);
        }
        if (fl.started && fl.reached < fl.reach.size()) {
            t = std::min(t, fl.start + fl.reach[fl.reached]);
        }
        if (fl.started && fl.holds_slot) {
            // The interface moves on once the rest fits in the buffers on the route.
            const double over = fl.remaining - fl.buffered;
            const double when = over <= 0     ? m_t
                                : fl.rate > 0 ? m_t + over / fl.rate
                                              : std::numeric_limits<double>::infinity();
            t = std::min(t, std::max(when, fl.slot_until));
        }
    }
    return t;
}

std::uint64_t message_timing::next_event_cycle() const {
    const double t = next_time();
    if (!std::isfinite(t)) return std::numeric_limits<std::uint64_t>::max();
    return static_cast<std::uint64_t>(std::ceil(t - k_eps));
}

void message_timing::advance(double t, std::vector<done>& out) {
    for (;;) {
        const double next = next_time();
        if (!(next <= t + k_eps)) break;
        // Events are handled at the end of the cycle they fall in, all of that cycle's
        // together (one rate computation per cycle with events).
        progress(std::max(m_t, std::ceil(next - k_eps)));
        m_released.clear();
        for (std::size_t i = 0; i < m_flows.size();) {
            flow& fl = m_flows[i];
            const std::size_t lo = fl.holds_slot ? 0 : 1, hi = fl.started ? fl.reached : 0;
            if (!fl.started && fl.start <= m_t + k_eps) fl.started = true;
            while (fl.started && fl.reached < fl.reach.size() &&
                   fl.start + fl.reach[fl.reached] <= m_t + k_eps) {
                ++fl.reached;
            }
            // As next_time() sees them: a remainder that takes less than the clock's resolution
            // at m_t is done now (else an event at m_t would change nothing, and come again).
            const bool finished = fl.started && (fl.remaining <= k_eps * std::max(1.0, fl.rate) ||
                                                 (fl.rate > 0 && fl.reached == fl.reach.size() &&
                                                  m_t + fl.remaining / fl.rate <= m_t + k_eps));
            const double over = fl.remaining - fl.buffered;
            if (fl.started && fl.holds_slot && m_t + k_eps >= fl.slot_until &&
                (finished || over <= k_eps ||
                 (fl.rate > 0 && m_t + over / fl.rate <= m_t + k_eps))) {
                // Its flits are all written into the local buffer: the interface takes the
                // next queued message, whose head switches one cycle after this tail's write.
                fl.holds_slot = false;
                --m_injecting[static_cast<std::size_t>(fl.src)];
                m_released.push_back(fl.src);
            }
            track(fl, lo, hi, finished);
            if (finished) {
                // The tail is ejected in the cycle the last flit is sent.
                out.push_back({fl.id, static_cast<std::uint64_t>(m_t) + fl.tail_latency});
                m_free_slots.push_back(fl.slot);
                m_flows[i] = std::move(m_flows.back());
                m_flows.pop_back();
                if (i < m_flows.size()) m_index[m_flows[i].slot] = i;
                continue;
            }
            ++i;
        }
        for (int src : m_released) admit(src, m_t);
        rates();
    }
    // No event until after t, but the flows move on up to t: a caller may advance to any
    // cycle (a training plan wakes the network at its compute events), and the flits sent
    // since the last event count.
    if (t > m_t) progress(t);
}

void message_timing::progress(double to) {
    const double dt = to - m_t;
    for (auto& fl : m_flows) {
        // Flits count as sent once the head reaches the destination (the pipeline fill
        // before it is the latency added by the reach times).
        if (fl.started && fl.reached == fl.reach.size()) fl.remaining -= fl.rate * dt;
    }
    m_t = to;
}

}  // namespace trainvp::noc
