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
#pragma once

#include <cstdint>
#include <vector>

#include "noc/router/round_robin_arbiter.h"

namespace trainvp::noc {

class noc_network;

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
    noc_router(int id, int ports, int vcs, int depth, int vc_classes, int local_width = 1);

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
    bool step(std::uint64_t now, noc_network& net);

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
    bool allocate_vc(int port, int cls, input_vc& ivc, noc_network& net);
    // The flit at the front of input VC (p, v) crosses to output op.
    void traverse(int p, int v, int op, std::uint64_t now, noc_network& net);

    int m_id, m_local_width, m_ports, m_vcs, m_depth, m_vcs_per_class;
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

}  // namespace trainvp::noc
