#include "noc/network/noc_network.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "noc/network/traffic_source.h"

namespace trainvp::noc {

noc_network::noc_network(const noc_topology& topo, const route_table& routes,
                         const network_config& cfg)
    : m_topo(topo), m_routes(routes), m_cfg(cfg) {
    if (cfg.vcs < topo.vc_classes() || cfg.vcs % topo.vc_classes() != 0 || cfg.vcs > 64) {
        throw std::invalid_argument("vcs must be a multiple of the topology's " +
                                    std::to_string(topo.vc_classes()) + " VC classes (at most 64)");
    }
    std::uint32_t max_latency = 1;
    for (const auto& ch : topo.channels()) {
        m_timing.push_back(link_timing::of(ch.length, cfg.pitch_latency_cycles, cfg.flit_bytes,
                                           cfg.bytes_per_cycle));
        max_latency = std::max(max_latency, m_timing.back().latency);
    }
    // The wheel spans the longest delay of an event (switch traversal + link) with room.
    std::uint64_t w = 4;
    while (w < max_latency + 4) w *= 2;
    m_wheel.resize(w);
    m_wheel_mask = w - 1;
    const int n = topo.routers();
    m_routers.reserve(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
        m_routers.emplace_back(r, topo.ports(), cfg.vcs, cfg.buffer_depth, topo.vc_classes(),
                               cfg.local_port_width,
                               cfg.circuit_local ? topo.ports() : cfg.local_port_width);
        for (int p = 1; p < topo.ports(); ++p) {
            m_routers.back().set_credits(p, topo.out_channel(r, p) >= 0 ? cfg.buffer_depth : 0);
        }
    }
    m_ni.resize(static_cast<std::size_t>(n));
    if (cfg.local_port_width < 1 || cfg.local_port_width > cfg.vcs) {
        throw std::invalid_argument("local_port_width must be in [1, vcs]");
    }
    for (auto& ni : m_ni) {
        ni.credits.assign(static_cast<std::size_t>(cfg.vcs), cfg.buffer_depth);
        ni.slots.resize(static_cast<std::size_t>(cfg.local_port_width));
    }
    m_forwarded.assign(static_cast<std::size_t>(n), 0);
    m_channel_flits.assign(topo.channels().size(), 0);
    if (cfg.message_level) {
        m_message = std::make_unique<message_timing>(
            topo, routes, m_timing, cfg.pipeline_stages, cfg.local_port_width, cfg.packet_flits,
            cfg.buffer_depth, cfg.circuit_local ? topo.ports() : cfg.local_port_width);
    }
}

std::size_t noc_network::channels_used() const {
    std::size_t n = 0;
    for (auto f : m_channel_flits) n += f > 0;
    return n;
}

std::uint32_t noc_network::add_packet(int src, int dst, int flits, std::uint64_t created,
                                      bool measured, std::uint64_t tag, int variant) {
    std::uint32_t id;
    if (!m_free_packets.empty()) {
        id = m_free_packets.back();
        m_free_packets.pop_back();
    } else {
        id = static_cast<std::uint32_t>(m_packets.size());
        m_packets.emplace_back();
    }
    noc_packet& p = m_packets[id];
    p = noc_packet{};
    p.src = src;
    p.dst = dst;
    if (!m_message && flits > 65535) {
        throw std::invalid_argument("a flit-level packet has at most 65535 flits");
    }
    p.flits = static_cast<std::uint32_t>(flits);
    p.measured = measured;
    p.created = created;
    p.tag = tag;
    p.variant = static_cast<std::uint8_t>(variant);
    ++m_live;
    ++m_added_total;
    ++m_counts.packets_created;
    if (measured) ++m_measured_outstanding;
    if (m_message) {
        p.injected = created;
        p.hops = static_cast<std::uint16_t>(
            m_message->add(id, src, dst, static_cast<std::uint64_t>(flits), created, variant,
                           m_counts, m_channel_flits, m_forwarded));
        return id;
    }
    interface& ni = m_ni[static_cast<std::size_t>(src)];
    ni.queue.push_back(id);
    if (!ni.active) {
        ni.active = true;
        m_active_ni.push_back(src);
    }
    return id;
}

void noc_network::schedule(std::uint64_t at, const event& e) {
    m_wheel[at & m_wheel_mask].push_back(e);
    ++m_pending_events;
}

void noc_network::activate(int r) {
    noc_router& rt = m_routers[static_cast<std::size_t>(r)];
    if (!rt.active) {
        rt.active = true;
        m_active.push_back(r);
    }
}

noc_network::route_result noc_network::route(int router, int in_port, int in_class,
                                             std::uint32_t packet) const {
    const noc_packet& p = m_packets[packet];
    const int port = m_routes.port(router, p.dst, p.variant);
    if (port <= PORT_LOCAL) return {PORT_LOCAL, 0};
    const int in = in_port == PORT_LOCAL ? -1 : m_topo.in_channel(router, in_port);
    return {port, m_topo.next_class(in, in_class, m_topo.out_channel(router, port))};
}

void noc_network::on_leave(int router, int in_port, int vc, std::uint64_t now) {
    ++m_counts.buffer_reads;
    ++m_counts.switch_allocations;
    ++m_counts.crossbar;
    if (on_occupancy) on_occupancy(router, in_port, -1, now);
    if (in_port == PORT_LOCAL) {
        // The interface sees the freed slot from the next cycle on (it runs before routers).
        ++m_ni[static_cast<std::size_t>(router)].credits[static_cast<std::size_t>(vc)];
        return;
    }
    const int c = m_topo.in_channel(router, in_port);
    const noc_channel& ch = m_topo.channels()[static_cast<std::size_t>(c)];
    event e{event_kind::CREDIT, static_cast<std::uint8_t>(ch.src_port),
            static_cast<std::uint8_t>(vc), static_cast<std::uint32_t>(ch.src), noc_flit{}};
    schedule(now + 1 + m_timing[static_cast<std::size_t>(c)].latency, e);
}

std::uint32_t noc_network::send(int router, int out_port, int vc, const noc_flit& f,
                                std::uint64_t now) {
    const int c = m_topo.out_channel(router, out_port);
    const noc_channel& ch = m_topo.channels()[static_cast<std::size_t>(c)];
    const link_timing& t = m_timing[static_cast<std::size_t>(c)];
    ++m_counts.flit_hops;
    m_counts.link_flit_pitches += ch.length;
    m_counts.bypass_flit_hops +=
        ch.kind == channel_kind::BYPASS_X || ch.kind == channel_kind::BYPASS_Y ? 1 : 0;
    ++m_forwarded[static_cast<std::size_t>(router)];
    ++m_channel_flits[static_cast<std::size_t>(c)];
    if (f.seq == 0) ++m_packets[f.packet].hops;
    const std::uint64_t at = now + 1 + t.latency;
    event e{event_kind::FLIT, static_cast<std::uint8_t>(ch.dst_port), static_cast<std::uint8_t>(vc),
            static_cast<std::uint32_t>(ch.dst), f};
    e.flit.ready = at + static_cast<std::uint64_t>(m_cfg.pipeline_stages - 1);
    schedule(at, e);
    return t.cycles_per_flit;
}

void noc_network::eject(int router, const noc_flit& f, std::uint64_t now) {
    const std::uint64_t at = now + 1;
    ++m_counts.flits_delivered;
    ++m_forwarded[static_cast<std::size_t>(router)];
    if (at >= m_window_begin && at < m_window_end) ++m_window_flits;
    if (f.seq != f.last) return;
    deliver(f.packet, at);
}

void noc_network::deliver(std::uint32_t packet, std::uint64_t at) {
    noc_packet& p = m_packets[packet];
    ++m_counts.packets_delivered;
    if (p.measured) {
        m_latency.sample(static_cast<double>(at - p.created));
        m_net_latency.sample(static_cast<double>(at - p.injected));
        m_hops.sample(p.hops);
        --m_measured_outstanding;
    }
    if (on_delivered) on_delivered(p, at);
    --m_live;
    ++m_delivered_total;
    m_free_packets.push_back(packet);
}

void noc_network::inject(int node, std::uint64_t now) {
    interface& ni = m_ni[static_cast<std::size_t>(node)];
    for (auto& slot : ni.slots) inject_slot(node, ni, slot, now);
}

void noc_network::inject_slot(int node, interface& ni, injection& slot, std::uint64_t now) {
    if (slot.current < 0) {
        if (ni.queue.empty()) return;
        // A new packet takes the next local-port VC (round robin) that has room and that no
        // other packet of this interface is being written into.
        const int vcs = m_cfg.vcs;
        int chosen = -1;
        for (int i = 0; i < vcs && chosen < 0; ++i) {
            const int v = (ni.next_vc + i) % vcs;
            if (ni.credits[static_cast<std::size_t>(v)] == 0) continue;
            bool in_use = false;
            for (const auto& o : ni.slots) in_use |= o.current >= 0 && o.vc == v;
            if (!in_use) chosen = v;
        }
        if (chosen < 0) return;
        slot.current = ni.queue.front();
        ni.queue.pop_front();
        slot.vc = chosen;
        ni.next_vc = (chosen + 1) % vcs;
        slot.seq = 0;
        m_packets[static_cast<std::size_t>(slot.current)].injected = now;
    }
    int& credits = ni.credits[static_cast<std::size_t>(slot.vc)];
    if (credits == 0) return;
    --credits;
    const noc_packet& p = m_packets[static_cast<std::size_t>(slot.current)];
    noc_flit f;
    f.packet = static_cast<std::uint32_t>(slot.current);
    f.seq = static_cast<std::uint16_t>(slot.seq);
    f.last = static_cast<std::uint16_t>(p.flits - 1);
    f.ready = now + static_cast<std::uint64_t>(m_cfg.pipeline_stages - 1);
    m_routers[static_cast<std::size_t>(node)].write(PORT_LOCAL, slot.vc, f);
    ++m_counts.buffer_writes;
    if (on_occupancy) on_occupancy(node, PORT_LOCAL, +1, now);
    activate(node);
    if (static_cast<std::uint32_t>(++slot.seq) == p.flits) slot.current = -1;
}

void noc_network::cycle(std::uint64_t now) {
    if (m_source && m_source->next_cycle() <= now) m_source->generate(now, *this);
    auto& bucket = m_wheel[now & m_wheel_mask];
    if (!bucket.empty()) {
        m_pending_events -= bucket.size();
        for (const event& e : bucket) {
            noc_router& r = m_routers[e.router];
            if (e.kind == event_kind::FLIT) {
                r.write(e.port, e.vc, e.flit);
                ++m_counts.buffer_writes;
                if (on_occupancy) on_occupancy(static_cast<int>(e.router), e.port, +1, now);
                activate(static_cast<int>(e.router));
            } else {
                r.credit(e.port, e.vc);
            }
        }
        bucket.clear();
    }
    if (!m_active_ni.empty()) {
        m_still_active_ni.clear();
        for (int n : m_active_ni) {
            inject(n, now);
            interface& ni = m_ni[static_cast<std::size_t>(n)];
            if (ni.busy()) {
                m_still_active_ni.push_back(n);
            } else {
                ni.active = false;
            }
        }
        m_active_ni.swap(m_still_active_ni);
    }
    if (!m_active.empty()) {
        m_still_active.clear();
        for (int r : m_active) {
            noc_router& rt = m_routers[static_cast<std::size_t>(r)];
            if (rt.step(now, *this)) {
                m_still_active.push_back(r);
            } else {
                rt.active = false;
            }
        }
        m_active.swap(m_still_active);
    }
}

void noc_network::run_messages(std::uint64_t end) {
    // Visits only the cycles in which the source creates packets, a flow starts or ends, or a
    // message is delivered; a delivery's callback may make the source create packets from the
    // next cycle on.
    while (m_now < end) {
        std::uint64_t next = m_source ? m_source->next_cycle() : end;
        if (!m_deliveries.empty()) next = std::min(next, m_deliveries.top().first);
        next = std::min(next, m_message->next_event_cycle());
        if (next > m_now) m_now = std::min(next, end);
        if (m_now >= end) break;
        m_done.clear();
        m_message->advance(static_cast<double>(m_now), m_done);
        for (const auto& d : m_done) m_deliveries.push({std::max(d.delivered, m_now), d.id});
        if (m_source && m_source->next_cycle() <= m_now) m_source->generate(m_now, *this);
        while (!m_deliveries.empty() && m_deliveries.top().first <= m_now) {
            const std::uint32_t id = m_deliveries.top().second;
            const std::uint64_t at = m_deliveries.top().first;
            m_deliveries.pop();
            const noc_packet& p = m_packets[id];
            if (at >= m_window_begin && at < m_window_end) m_window_flits += p.flits;
            deliver(id, at);
        }
        ++m_now;
    }
}

void noc_network::run_until(std::uint64_t end) {
    if (m_message) {
        run_messages(end);
        return;
    }
    while (m_now < end) {
        if (idle()) {
            // Nothing moves until the source's next packet: jump there.
            const std::uint64_t next = m_source ? m_source->next_cycle() : end;
            if (next > m_now) m_now = std::min(next, end);
            if (m_now >= end) break;
        }
        cycle(m_now);
        ++m_now;
    }
}

}  // namespace trainvp::noc
