#include "ip/ethernet/ethernet_switch.h"

#include <algorithm>
#include <cmath>

#include "fabric/topology/ecmp.h"
#include "ip/ethernet/packet_ext.h"
#include "kit/registry.h"
#include "kit/sim_time.h"

namespace trainvp::ip {

namespace {}  // namespace

void ethernet_switch::declare(type_decl<ethernet_switch>& d) {
    d.describe(
        "Output-queued Ethernet switch. A frame on rx[i] goes to the tx port that reaches "
        "ext.dst (`addresses`). It is ready at its last bit + latency (store_and_forward) or at "
        "its first bit + header time + latency (cut_through; header time = header bytes at the "
        "ingress rate). Each output queue holds up to `queue` bytes of frames waiting for the "
        "egress link (a frame is queued from its ready time until its serialisation starts). "
        "A frame that does not fit is dropped (overflow: drop) or, with overflow: pause "
        "(802.3x, modelled as ideal hop-by-hop back-pressure), admitted when enough queued "
        "bytes have left; the ingress link, and so the sender, is held until then. An empty "
        "queue always admits one frame. Invariant: bytes in = bytes out + bytes dropped.");
    d.required("ports", &ethernet_switch::m_ports,
               "Ports in use; every rx[i] and tx[i] must be connected")
        .range("2", "4096");
    d.param("addresses", &ethernet_switch::m_addresses, "[]",
            "The first node id reachable on port i, one per port that is not an uplink; empty: "
            "port i reaches node i x nodes_per_port");
    d.param("nodes_per_port", &ethernet_switch::m_nodes_per_port, "1",
            "Node ids each port reaches, from its address on (a spine's port reaches a leaf's "
            "hosts)")
        .range("1", "2^20");
    d.param("node_stride", &ethernet_switch::m_node_stride, "1",
            "Step between the node ids a port reaches: address, address + node_stride, ... "
            "(a rail-optimised spine's port reaches one rail of a group's hosts, every "
            "`rails`-th node id)")
        .range("1", "2^20");
    d.param("uplinks", &ethernet_switch::m_uplinks, "0",
            "The last `uplinks` ports lead up (a leaf's links to the spines): a frame for a "
            "node no other port reaches leaves on the uplink `ecmp` picks (fabric.flow's rules, "
            "fabric/topology/ecmp.h), so a message's frames keep one path")
        .range("0", "4095");
    d.choice("ecmp", &ethernet_switch::m_ecmp,
             {{"hash", fabric::ecmp_rule::HASH},
              {"fixed", fabric::ecmp_rule::FIXED},
              {"dest_mod", fabric::ecmp_rule::DEST_MOD}},
             "hash",
             "The uplink of a frame: hash(source, destination, message id) mod uplinks (hash), "
             "the message id (fixed) or the destination node id (dest_mod, D-mod-k), each "
             "divided first by `ecmp_below`; fabric.flow's `ecmp` with the same names");
    d.param("ecmp_below", &ethernet_switch::m_ecmp_below, "1",
            "Choices the tiers under this switch make (1 at a leaf, a leaf's uplinks at a fat "
            "tree's aggregation switch): fixed and dest_mod divide the message id or the "
            "destination by it, as fabric.flow's fat tree does for its core choice")
        .range("1", "4096");
    d.param("ecmp_salt", &ethernet_switch::m_ecmp_salt, "0",
            "Mixed into the uplink hash (0: none), so that a second tier picks independently of "
            "the first: fabric.flow's fat tree salts its core choice with 24301 (0x5eed), and "
            "the generated fat tree's aggregation switches do the same")
        .range("0", "2^32");
    d.choice("forwarding", &ethernet_switch::m_forwarding,
             {{"store_and_forward", forwarding::STORE_AND_FORWARD},
              {"cut_through", forwarding::CUT_THROUGH}},
             "store_and_forward",
             "When a frame may leave: after its last bit (store_and_forward, the mode of "
             "small-business 10 GbE switches such as the NETGEAR ProSafe of inceptionn.md "
             "§VII-C) or after its header (cut_through, low-latency datacenter switches)");
    d.param("latency", &ethernet_switch::m_latency, "1us",
            "Port-to-port forwarding latency, added after the frame (or its header) is in. "
            "Default: a TYPICAL value for a 10 GbE store-and-forward switch (datasheets of this "
            "class give ~0.5-3 us); the NETGEAR datasheet (inceptionn.md ref. [50]) was not "
            "available to us, so calibrate before predicting")
        .range("0ns", "1ms");
    d.param("header", &ethernet_switch::m_header, "22B",
            "Bytes a cut-through port receives before it can forward: preamble/SFD 8 B + "
            "destination, source and type 14 B (IEEE 802.3 clause 3.1.1 frame format)")
        .range("1B", "1KiB");
    d.param("queue", &ethernet_switch::m_queue, "256KiB",
            "Capacity of each output queue. Default: a TYPICAL shallow-buffer 10 GbE switch "
            "(a few MB of packet memory shared by its ports); calibrate for a given model")
        .range("1B", "1GiB");
    d.choice("overflow", &ethernet_switch::m_overflow,
             {{"drop", overflow::DROP}, {"pause", overflow::PAUSE}}, "pause",
             "A frame that does not fit its output queue: drop it (counted), or pause the "
             "ingress (802.3x flow control, ideal back-pressure). Default pause: the platform "
             "models no retransmission, so a drop loses data for good");
    d.target("rx", &ethernet_switch::rx, "eth", "Ingress port i (from the link to port i)");
    d.initiator("tx", &ethernet_switch::tx, "eth", "Egress port i (to the link of port i)");
    d.stat("frames_in", &ethernet_switch::m_frames_in, "1", "Per ingress port: frames received");
    d.stat("bytes_in", &ethernet_switch::m_bytes_in, "B", "Per ingress port: wire bytes received");
    d.stat("frames_out", &ethernet_switch::m_frames_out, "1", "Per egress port: frames forwarded");
    d.stat("bytes_out", &ethernet_switch::m_bytes_out, "B",
           "Per egress port: wire bytes forwarded");
    d.stat("frames_dropped", &ethernet_switch::m_frames_dropped, "1",
           "Per egress port: frames dropped because its queue was full (overflow: drop)");
    d.stat("bytes_dropped", &ethernet_switch::m_bytes_dropped, "B",
           "Per egress port: wire bytes dropped");
    d.stat("pause_events", &ethernet_switch::m_pause_events, "1",
           "Per ingress port: frames held upstream because their output queue was full "
           "(overflow: pause)");
    d.stat("pause_time", &ethernet_switch::m_pause_ns, "ns",
           "Per ingress port: total time frames were held upstream");
    d.stat("max_queue", &ethernet_switch::m_max_queue, "B",
           "Per egress port: largest queue occupancy seen when a frame entered");
    d.stat("queue_delay", &ethernet_switch::m_queue_ns, "ns",
           "Per egress port: time a forwarded frame waited in the queue");
    d.stat("received_bytes", &ethernet_switch::m_total_in, "B", "All ports: wire bytes received");
    d.stat("forwarded_bytes", &ethernet_switch::m_total_out, "B",
           "All ports: wire bytes forwarded");
    d.headline("dropped_bytes", &ethernet_switch::m_total_dropped, "B",
               "All ports: wire bytes dropped (received = forwarded + dropped)");
    d.headline("paused_time", &ethernet_switch::m_total_pause_ns, "ns",
               "All ports: total time frames were held upstream by PAUSE");
    d.signal("queue", &ethernet_switch::m_queue_level,
             "Per egress port: bytes waiting in the output queue");
}

ethernet_switch::ethernet_switch(const sc_core::sc_module_name& name, const params& p)
    : ip_module(name, p) {
    p.apply(*this);
    const std::size_t n = static_cast<std::size_t>(m_ports);
    if (m_uplinks >= n) {
        const config_node* v = p.find("uplinks");
        throw input_error(v ? v->loc() : p.where(), path() + ".uplinks",
                          std::to_string(m_uplinks) + " uplinks leave no port of " +
                              std::to_string(n) + " for nodes");
    }
    const std::size_t down = n - static_cast<std::size_t>(m_uplinks);
    // Errors about the table point at the value (or its element) when the config gave one.
    const config_node* given = p.find("addresses");
    const auto where = [&](std::size_t i) {
        if (given == nullptr) return p.where();
        if (given->is_seq() && i < given->items().size()) return given->items()[i].loc();
        return given->loc();
    };
    if (!m_addresses.empty() && m_addresses.size() != down) {
        throw input_error(where(down), path() + ".addresses",
                          "has " + std::to_string(m_addresses.size()) +
                              " entries but the switch has " + std::to_string(down) +
                              (m_uplinks > 0 ? " ports that are not uplinks" : " ports") +
                              "; give one node id per port");
    }
    std::vector<double> ids = m_addresses;
    if (ids.empty()) {
        for (std::size_t i = 0; i < down; ++i) {
            ids.push_back(static_cast<double>(i * m_nodes_per_port * m_node_stride));
        }
    }
    for (std::size_t i = 0; i < down; ++i) {
        const double id = ids[i];
        if (id < 0 || id > 4294967295.0 || std::floor(id) != id) {
            throw input_error(where(i), path() + ".addresses[" + std::to_string(i) + "]",
                              "a node id is a whole number in [0, 2^32-1]");
        }
        const auto first = static_cast<std::size_t>(id);
        // Node ids are small in practice (array indices); a table indexed by id is the fastest
        // lookup on the per-frame path.
        const std::size_t last = first + (m_nodes_per_port - 1) * m_node_stride;
        if (last >= (1u << 20)) {
            throw input_error(where(i), path() + ".addresses[" + std::to_string(i) + "]",
                              "node ids above 2^20 are not supported");
        }
        for (std::size_t node = first; node <= last; node += m_node_stride) {
            if (node >= m_port_of_node.size()) m_port_of_node.resize(node + 1, -1);
            if (m_port_of_node[node] >= 0) {
                throw input_error(where(i), path() + ".addresses[" + std::to_string(i) + "]",
                                  "node " + std::to_string(node) + " is already on port " +
                                      std::to_string(m_port_of_node[node]));
            }
            m_port_of_node[node] = static_cast<std::int64_t>(i);
        }
    }

    rx.init(n);
    tx.init(n);
    for (std::size_t i = 0; i < n; ++i) {
        rx[i].register_b_transport(this, &ethernet_switch::receive, static_cast<int>(i));
    }
    m_out_queues.resize(n);
    m_frames_in.resize(n);
    m_bytes_in.resize(n);
    m_frames_out.resize(n);
    m_bytes_out.resize(n);
    m_frames_dropped.resize(n);
    m_bytes_dropped.resize(n);
    m_pause_events.resize(n);
    m_pause_ns.resize(n);
    m_max_queue.resize(n);
    m_queue_ns.resize(n);
    m_queue_level.resize(n);
}

std::size_t ethernet_switch::egress_port(std::uint32_t dst, std::uint32_t src, int in_port,
                                         std::uint64_t msg_id) const {
    if (dst < m_port_of_node.size() && m_port_of_node[dst] >= 0) {
        return static_cast<std::size_t>(m_port_of_node[dst]);
    }
    if (m_uplinks > 0) {
        const std::uint64_t h =
            fabric::ecmp_pick(m_ecmp, src, dst, msg_id, m_ecmp_salt, m_ecmp_below);
        return static_cast<std::size_t>(m_ports - m_uplinks + h % m_uplinks);
    }
    throw sim_error(path() + ": a frame from node " + std::to_string(src) + " (rx[" +
                    std::to_string(in_port) + "]) is addressed to node " + std::to_string(dst) +
                    ", which no port reaches; set `addresses` (node id per port)");
}

namespace {

// The first frame of the FIFO that is still queued after t (tx_start > t).
template <typename Fifo>
auto first_after(const Fifo& fifo, const sc_core::sc_time& t) {
    return std::upper_bound(
        fifo.begin(), fifo.end(), t,
        [](const sc_core::sc_time& x, const auto& q) { return x < q.tx_start; });
}

}  // namespace

std::uint64_t ethernet_switch::occupancy(const out_queue& q, const sc_core::sc_time& t) const {
    // Queued at t: entered (ready <= t) and not yet left (t < tx_start).  The FIFO suffix
    // after t has not left; of it, only frames still arriving can have ready > t.
    const auto it = first_after(q.fifo, t);
    if (it == q.fifo.end()) return 0;
    std::uint64_t bytes = q.pushed - (it->cum - it->bytes);
    for (const queued& a : q.arriving) {
        if (a.ready > t && a.tx_start > t) bytes -= a.bytes;
    }
    return bytes;
}

sc_core::sc_time ethernet_switch::admission(const out_queue& q, const sc_core::sc_time& t,
                                            std::uint64_t bytes) const {
    // Occupancy only falls when a queued frame starts on the egress link, so the candidates
    // are t and the departures after it, in order.
    sc_core::sc_time at = t;
    auto next = first_after(q.fifo, at);
    while (true) {
        const std::uint64_t occ = occupancy(q, at);
        if (occ == 0 || occ + bytes <= m_queue.bytes) return at;
        if (next == q.fifo.end()) return at;  // unreachable: occ > 0 has a departure
        at = next->tx_start;
        while (next != q.fifo.end() && next->tx_start <= at) ++next;
    }
}

void ethernet_switch::receive(int in_port, tlm::tlm_generic_payload& trans,
                              sc_core::sc_time& delay) {
    auto* ext = trans.get_extension<packet_ext>();
    if (ext == nullptr) {
        throw sim_error(path() + ": a frame without a packet_ext arrived on rx[" +
                        std::to_string(in_port) + "]; every eth frame carries one");
    }
    const auto in = static_cast<std::size_t>(in_port);
    const sc_core::sc_time now = sim_now();
    const sc_core::sc_time first = std::max(now + delay, ps_time(ext->first_bit_ps));
    const sc_core::sc_time last = std::max(first, ps_time(ext->last_bit_ps));
    const std::uint64_t wire = ext->wire;
    const sc_core::sc_time latency = ps_time(m_latency.ps);

    // A message-level train (README, "Message granularity") is forwarded once its head frame
    // is in; in the output queue it stands for its head frame (the frames behind the head
    // stream through as the egress takes them).
    const bool train = ext->train > 1;
    const std::uint64_t queued_bytes = train ? ext->head_wire : wire;
    const sc_core::sc_time head_last =
        train ? std::max(first, std::min(last, ps_time(ext->head_last_bit_ps))) : last;

    const std::size_t out = egress_port(ext->dst, ext->src, in_port, ext->msg_id);
    m_frames_in[in] += ext->train;
    m_bytes_in[in] += wire;
    m_total_in += wire;
    m_flow.enter(wire);

    sc_core::sc_time ready;
    if (m_forwarding == forwarding::STORE_AND_FORWARD) {
        ready = head_last + latency;
    } else {
        // The header arrives at the ingress rate, which the (head) frame's own timing tells:
        // its wire bytes took last - first.
        const std::uint64_t head_bytes = train ? ext->head_wire : wire;
        const std::uint64_t span = (head_last - first).value();
        const std::uint64_t header = std::min<std::uint64_t>(m_header.bytes, head_bytes);
        ready = first + ps_time(head_bytes ? span * header / head_bytes : 0) + latency;
    }

    out_queue& q = m_out_queues[out];
    // Frames that left the queue before now cannot matter: later frames are ready after now.
    while (!q.fifo.empty() && q.fifo.front().tx_start <= now) q.fifo.pop_front();
    q.arriving.erase(std::remove_if(q.arriving.begin(), q.arriving.end(),
                                    [&](const queued& a) { return a.ready <= now; }),
                     q.arriving.end());

    const std::uint64_t occ = occupancy(q, ready);
    if (occ > 0 && occ + queued_bytes > m_queue.bytes && m_overflow == overflow::DROP) {
        m_frames_dropped[out] += ext->train;
        m_bytes_dropped[out] += wire;
        m_total_dropped += wire;
        m_flow.drop(wire);
        ext->dropped = true;
        // The frame was received in full; the ingress link is free after its last bit.
        delay = last - now;
        trans.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    // PAUSE: the frame enters the queue only when it fits; the shift holds the ingress link
    // (and the sender behind it) for as long, as 802.3x PAUSE frames would.
    const sc_core::sc_time admitted = admission(q, ready, queued_bytes);
    const sc_core::sc_time shift = admitted - ready;
    if (shift > sc_core::SC_ZERO_TIME) {
        ++m_pause_events[in];
        m_pause_ns[in].add(ns(shift));
        m_total_pause_ns.add(ns(shift));
    }
    const std::uint64_t occ_at_entry = occupancy(q, admitted);

    // A cut-through frame's tail is still arriving at the ingress rate; a stored one is whole.
    ext->first_bit_ps = admitted.value();
    ext->last_bit_ps = m_forwarding == forwarding::STORE_AND_FORWARD
                           ? admitted.value()
                           : std::max(admitted, last + latency + shift).value();
    if (train) {
        // Stored: the head is whole at `admitted`, the tail frame at its last bit + latency.
        // Cut-through: both stream on, `latency` (and any pause) later.
        const bool stored = m_forwarding == forwarding::STORE_AND_FORWARD;
        ext->head_last_bit_ps =
            stored ? admitted.value() : std::max(admitted, head_last + latency + shift).value();
        ext->last_bit_ps = std::max(admitted, last + latency + shift).value();
        ext->tail_stored = stored;
    }
    // If the egress is not a link that reports its start, the frame did not wait.
    ext->tx_start_ps = admitted.value();
    sc_core::sc_time d = admitted - now;
    tx[out]->b_transport(trans, d);
    const sc_core::sc_time tx_start = std::max(admitted, ps_time(ext->tx_start_ps));

    if (tx_start > admitted) {
        if (!q.fifo.empty() && tx_start < q.fifo.back().tx_start) {
            throw sim_error(path() + ": tx[" + std::to_string(out) +
                            "] started a frame before the one handed to it earlier; an eth "
                            "egress must serve frames in order (connect it to an ethernet.link)");
        }
        q.pushed += queued_bytes;
        q.fifo.push_back(queued{admitted, tx_start, queued_bytes, q.pushed});
        if (admitted > now) q.arriving.push_back(q.fifo.back());
        m_queue_level[out].change_at(admitted, static_cast<std::int64_t>(queued_bytes));
        m_queue_level[out].change_at(tx_start, -static_cast<std::int64_t>(queued_bytes));
        const double depth = static_cast<double>(occ_at_entry + queued_bytes);
        if (depth > m_max_queue[out].value()) m_max_queue[out].set(depth);
    }
    m_queue_ns[out].sample(ns(tx_start - admitted));
    m_frames_out[out] += ext->train;
    m_bytes_out[out] += wire;
    m_total_out += wire;
    if (trans.is_response_ok()) m_flow.leave(wire);
    if (tx_start > m_last_departure) m_last_departure = tx_start;

    delay = last + shift - now;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    progress_until(m_last_departure);
}

void ethernet_switch::audit(audit_log& log) const {
    // A frame's departure may be annotated past the end of the run (loosely timed: it was
    // already handed to the egress link, e.g. a credit frame nobody waits for), so only
    // conservation is checked, not that the queues are empty by now.
    m_flow.audit(log, path(), "all ports");
}

std::string ethernet_switch::pending_work() const {
    if (m_last_departure <= sim_now()) return {};
    return "frames queued until " + m_last_departure.to_string();
}

TRAINVP_REGISTER_IP(ethernet_switch, "ethernet.switch");

}  // namespace trainvp::ip
