#include "noc/router/noc_router.h"

#include "noc/network/noc_network.h"
#include "noc/topology/noc_topology.h"

namespace trainvp::noc {

noc_router::noc_router(int id, int ports, int vcs, int depth, int vc_classes, int local_width)
    : m_id(id),
      m_local_width(local_width),
      m_ports(ports),
      m_vcs(vcs),
      m_depth(depth),
      m_vcs_per_class(vcs / vc_classes),
      m_port_count(static_cast<std::size_t>(ports), 0),
      m_nonempty(static_cast<std::size_t>(ports), 0),
      m_in(static_cast<std::size_t>(ports * vcs)),
      m_buffer(static_cast<std::size_t>(ports * vcs * depth)),
      m_outvc(static_cast<std::size_t>(ports * vcs)),
      m_out(static_cast<std::size_t>(ports)),
      m_sa_in(static_cast<std::size_t>(ports)),
      m_nominee(static_cast<std::size_t>(ports * ports), -1),
      m_requests(static_cast<std::size_t>(ports), 0) {}

void noc_router::set_credits(int port, int credits) {
    for (int v = 0; v < m_vcs; ++v) out_vc(port, v).credits = credits;
}

void noc_router::write(int port, int vc, const noc_flit& f) {
    input_vc& ivc = in_vc(port, vc);
    slot(port, vc, ivc.head + ivc.count) = f;
    ++ivc.count;
    ++m_port_count[static_cast<std::size_t>(port)];
    m_nonempty[static_cast<std::size_t>(port)] |= std::uint64_t{1} << vc;
    ++m_buffered;
}

bool noc_router::allocate_vc(int port, int cls, input_vc& ivc, noc_network& net) {
    if (port == PORT_LOCAL) {  // the ejection port's sink takes every packet at once
        ivc.out_vc = 0;
        return true;
    }
    output_unit& o = m_out[static_cast<std::size_t>(port)];
    const int base = cls * m_vcs_per_class;
    for (int i = 0; i < m_vcs_per_class; ++i) {
        const int v = base + (o.va_next + i) % m_vcs_per_class;
        output_vc& ov = out_vc(port, v);
        if (!ov.owned) {
            ov.owned = true;
            ivc.out_vc = static_cast<std::int16_t>(v);
            o.va_next = (v - base + 1) % m_vcs_per_class;
            ++net.counts().vc_allocations;
            return true;
        }
    }
    return false;
}

void noc_router::traverse(int p, int v, int op, std::uint64_t now, noc_network& net) {
    input_vc& ivc = in_vc(p, v);
    const noc_flit f = slot(p, v, ivc.head);
    if (++ivc.head == static_cast<std::uint32_t>(m_depth)) ivc.head = 0;
    if (--ivc.count == 0) m_nonempty[static_cast<std::size_t>(p)] &= ~(std::uint64_t{1} << v);
    --m_port_count[static_cast<std::size_t>(p)];
    --m_buffered;
    const int ov = ivc.out_vc;
    output_unit& o = m_out[static_cast<std::size_t>(op)];
    net.on_leave(m_id, p, v, now);
    if (op == PORT_LOCAL) {
        o.free_at = now + 1;
        net.eject(m_id, f, now);
    } else {
        --out_vc(op, ov).credits;
        o.free_at = now + net.send(m_id, op, ov, f, now);
    }
    if (f.seq == f.last) {
        if (op != PORT_LOCAL) out_vc(op, ov).owned = false;
        ivc.out_port = -1;
        ivc.out_vc = -1;
    }
}

bool noc_router::step(std::uint64_t now, noc_network& net) {
    if (m_buffered == 0) return false;
    // Input stage: VC allocation for heads at the front of their VC, then each input port
    // nominates one VC that has a VC downstream, a credit and a free output link.
    std::uint64_t outputs = 0;
    for (int p = 0; p < m_ports; ++p) {
        std::uint64_t ready = 0;
        for (std::uint64_t vcs = m_nonempty[static_cast<std::size_t>(p)]; vcs != 0;
             vcs &= vcs - 1) {
            const int v = __builtin_ctzll(vcs);
            input_vc& ivc = in_vc(p, v);
            const noc_flit& f = slot(p, v, ivc.head);
            if (f.ready > now) continue;
            if (ivc.out_port < 0) {
                const auto r = net.route(m_id, p, v / m_vcs_per_class, f.packet);
                ivc.out_port = static_cast<std::int16_t>(r.port);
                ivc.out_class = static_cast<std::int16_t>(r.vc_class);
            }
            if (ivc.out_vc < 0 && !allocate_vc(ivc.out_port, ivc.out_class, ivc, net)) continue;
            const int op = ivc.out_port;
            if (m_out[static_cast<std::size_t>(op)].free_at > now) continue;
            if (op != PORT_LOCAL && out_vc(op, ivc.out_vc).credits <= 0) continue;
            ready |= std::uint64_t{1} << v;
        }
        if (ready == 0) continue;
        // The local port may feed `local_width` outputs per cycle (ARIES's circuit-switched
        // injection path), other ports one.
        const int width = p == PORT_LOCAL ? m_local_width : 1;
        std::uint64_t taken = 0;
        for (int n = 0; n < width && ready != 0; ++n) {
            const int v = m_sa_in[static_cast<std::size_t>(p)].pick(ready);
            ready &= ~(std::uint64_t{1} << v);
            const int op = in_vc(p, v).out_port;
            if (taken & (std::uint64_t{1} << op)) {
                --n;
                continue;
            }
            taken |= std::uint64_t{1} << op;
            m_nominee[static_cast<std::size_t>(p * m_ports + op)] = v;
            m_requests[static_cast<std::size_t>(op)] |= std::uint64_t{1} << p;
            outputs |= std::uint64_t{1} << op;
        }
    }
    // Output stage: each requested output port grants one input (the ejection port
    // `local_width`); the winners cross the crossbar this cycle.
    while (outputs != 0) {
        const int op = __builtin_ctzll(outputs);
        outputs &= outputs - 1;
        output_unit& o = m_out[static_cast<std::size_t>(op)];
        std::uint64_t& req = m_requests[static_cast<std::size_t>(op)];
        const int width = op == PORT_LOCAL ? m_local_width : 1;
        for (int n = 0; n < width && req != 0; ++n) {
            const int p = o.sa.pick(req);
            req &= ~(std::uint64_t{1} << p);
            traverse(p, m_nominee[static_cast<std::size_t>(p * m_ports + op)], op, now, net);
        }
        req = 0;
    }
    return m_buffered > 0;
}

}  // namespace trainvp::noc
