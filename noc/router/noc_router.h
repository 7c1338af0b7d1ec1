// One interposer router, built from its units: input units (per port, `vcs` virtual channels
// of `depth` flit buffers each, route looked up from the table when a head reaches the front
// of its VC), a VC allocator, a separable input-first switch allocator with round-robin
// arbiters per input and per output, the crossbar, and output units that count the
// downstream buffers' credits and own each downstream VC from head to tail.
//
// Pipeline (aries.md §V: "two pipeline stages (look-ahead routing and speculative
// optimizations)"): a flit written into its buffer at cycle t may win the switch at
// t + stages - 1 (with 2 stages: route was computed upstream, VA and SA in parallel in stage 1),
// traverses the crossbar in the next cycle and reaches the next router's buffer `latency`
// cycles later.  Zero-load per hop: stages + link latency cycles.
//
// Event-driven: the network visits a router only in cycles when it holds flits.
//
// The router does not know the network type: step() is a template over the `fabric` that
// owns it (noc/network/noc_network in the simulator, a stub in tests), so that the calls it
// makes per flit (route, on_leave, send, eject) are inlined as before, with no virtual call
// on the hot path, and the router folder does not include the network's (which includes it).
// A fabric provides:
//   route(router, in_port, in_class, packet) -> {port, vc_class}   look-ahead route of a head
//   on_leave(router, in_port, vc, now)        a flit left an input buffer (credit upstream)
//   send(router, out_port, vc, flit, now)     a flit crosses to a link; returns the cycles it
//                                             occupies the link
//   eject(router, flit, now)                  a flit leaves through the ejection port
//   count_vc_allocation()                     an output VC was granted (energy)
#pragma once

#include <cstdint>
#include <vector>

#include "noc/router/round_robin_arbiter.h"
#include "noc/topology/noc_topology.h"

namespace trainvp::noc {

struct noc_flit {
    std::uint32_t packet = 0;
    std::uint16_t seq = 0;    // 0 = head
    std::uint16_t last = 0;   // seq of the tail
    std::uint64_t ready = 0;  // first cycle it may win the switch
};

class noc_router {
public:
    // `local_width`: flits per cycle the local port injects into the crossbar and the
    // ejection port accepts (1 in a conventional router).
    // `eject_width`: flits per cycle the ejection port takes (0: local_width; ARIES's
    // circuit-switched local path: one per input port).
    noc_router(int id, int ports, int vcs, int depth, int vc_classes, int local_width = 1,
               int eject_width = 0);

    int id() const { return m_id; }
    int buffered() const { return m_buffered; }
    int buffered(int port) const { return m_port_count[static_cast<std::size_t>(port)]; }

    // Input unit: a flit arrives into VC `vc` of input port `port` (the upstream output unit
    // held a credit for it, so there is room).
    void write(int port, int vc, const noc_flit& f);
    // Output unit: a credit for downstream VC `vc` of output port `port` came back.
    void credit(int port, int vc) { ++out_vc(port, vc).credits; }
    // Sets the credits of an output port (the downstream buffer depth; ejection: unlimited).
    void set_credits(int port, int credits);

    // One cycle of allocation and switch traversal.  Returns true when the router still holds
    // flits (it must be visited next cycle).
    template <typename fabric>
    bool step(std::uint64_t now, fabric& net);

    bool active = false;  // in the network's list of routers to visit

private:
    struct input_vc {
        std::uint32_t head = 0, count = 0;  // ring buffer in m_buffer
        std::int16_t out_port = -1;         // routed when >= 0
        std::int16_t out_vc = -1;           // allocated when >= 0
        std::int16_t out_class = 0;
    };
    struct output_vc {
        std::int32_t credits = 0;
        bool owned = false;
    };
    struct output_unit {
        std::uint64_t free_at = 0;  // cycle the link accepts the next flit (serialisation)
        round_robin_arbiter sa;     // switch allocation, output stage
        int va_next = 0;            // round-robin start of VC allocation
    };

    input_vc& in_vc(int p, int v) { return m_in[static_cast<std::size_t>(p * m_vcs + v)]; }
    output_vc& out_vc(int p, int v) { return m_outvc[static_cast<std::size_t>(p * m_vcs + v)]; }
    // Buffer slot i (< 2 depth) of a VC's ring: no division on the hot path.
    noc_flit& slot(int p, int v, std::uint32_t i) {
        if (i >= static_cast<std::uint32_t>(m_depth)) i -= static_cast<std::uint32_t>(m_depth);
        return m_buffer[static_cast<std::size_t>((p * m_vcs + v) * m_depth) + i];
    }
    template <typename fabric>
    bool allocate_vc(int port, int cls, input_vc& ivc, fabric& net);
    // The flit at the front of input VC (p, v) crosses to output op.
    template <typename fabric>
    void traverse(int p, int v, int op, std::uint64_t now, fabric& net);

    int m_id, m_local_width, m_eject_width, m_ports, m_vcs, m_depth, m_vcs_per_class;
    int m_buffered = 0;
    std::vector<int> m_port_count;
    std::vector<std::uint64_t> m_nonempty;  // per input port: bit v set when VC v holds flits
    std::vector<input_vc> m_in;
    std::vector<noc_flit> m_buffer;
    std::vector<output_vc> m_outvc;
    std::vector<output_unit> m_out;
    std::vector<round_robin_arbiter> m_sa_in;  // switch allocation, input stage
    // Scratch of step(): the VC each input port nominated per output, the inputs each output
    // port heard.
    std::vector<int> m_nominee;
    std::vector<std::uint64_t> m_requests;
};

// Defined here so that each fabric's calls inline into the router's cycle.
template <typename fabric>
bool noc_router::allocate_vc(int port, int cls, input_vc& ivc, fabric& net) {
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
            net.count_vc_allocation();
            return true;
        }
    }
    return false;
}

template <typename fabric>
void noc_router::traverse(int p, int v, int op, std::uint64_t now, fabric& net) {
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

template <typename fabric>
bool noc_router::step(std::uint64_t now, fabric& net) {
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
        const int width = op == PORT_LOCAL ? m_eject_width : 1;
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
