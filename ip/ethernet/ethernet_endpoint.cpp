#include "ip/ethernet/ethernet_endpoint.h"

#include <algorithm>

#include "ip/ethernet/packet_ext.h"
#include "kit/registry.h"
#include "kit/sim_time.h"

namespace trainvp::ip {

namespace {

// What an endpoint attaches to its own frames so the receiving endpoint can measure latency
// and tell the sender when the frame landed (for the audit and the sender's finish time; no
// real network reports this).  packet_ext has no send-time field.
struct endpoint_stamp : tlm::tlm_extension<endpoint_stamp> {
    std::uint64_t sent_ps = 0;    // the frame's ready time at the sender
    std::uint64_t landed_ps = 0;  // its last bit at the receiving endpoint; 0 if not received

    tlm::tlm_extension_base* clone() const override { return new endpoint_stamp(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const endpoint_stamp&>(other);
    }
};

}  // namespace

void ethernet_endpoint::declare(type_decl<ethernet_endpoint>& d) {
    d.describe(
        "Frame endpoint for network studies. Sends `frames` frames of payload + l3l4_header + "
        "l2_overhead wire bytes (at least min_wire) to node `dst`: frame i+1 is ready at "
        "max(ready_i + wire*8/rate, the time the link takes it), and is handed to the link at "
        "that time. Receives frames on rx and measures their latency (last bit here - ready at "
        "the sender). Finishes when every frame it sent has landed or was dropped and `expect` "
        "frames have arrived.");
    d.param("node_id", &ethernet_endpoint::m_node_id, "0",
            "This endpoint's node id (frames' src; frames arriving here must be for it)")
        .range("0", "4294967295");
    d.param("dst", &ethernet_endpoint::m_dst, "-1",
            "Node id the frames are sent to; -1 for a receive-only endpoint")
        .range("-1", "4294967295");
    d.param("frames", &ethernet_endpoint::m_frames, "0", "Frames to send").range("0", "2^40");
    d.param("payload", &ethernet_endpoint::m_payload, "1460B",
            "Payload bytes per frame (default: the TCP MSS of a 1500 B MTU, 1500 - 20 IPv4 - "
            "20 TCP; RFC 791, RFC 793). Above 1460 B the frames are jumbo frames")
        .range("1B", "64KiB");
    // No mtu: the endpoint sends frames of `payload` bytes, whatever their size.
    framing::declare(d, framing::spec{});
    d.param("rate", &ethernet_endpoint::m_rate, "0b/s",
            "Offered rate in wire bytes; 0b/s sends each frame as soon as the link takes it")
        .range("0b/s", "1Tb/s");
    d.param("start", &ethernet_endpoint::m_start, "0ns", "Ready time of the first frame")
        .range("0s", "1e6s");
    d.param("expect", &ethernet_endpoint::m_expect, "0",
            "Frames to receive before this endpoint counts as finished")
        .range("0", "2^40");
    d.initiator("tx", &ethernet_endpoint::tx, "eth", "Frames sent (to a link's a_in or b_in)");
    d.target("rx", &ethernet_endpoint::rx, "eth", "Frames received (from a link's a_out/b_out)");
    d.stat("frames_sent", &ethernet_endpoint::m_frames_sent, "1", "Frames sent");
    d.stat("bytes_sent", &ethernet_endpoint::m_bytes_sent, "B", "Wire bytes sent");
    d.stat("payload_sent", &ethernet_endpoint::m_payload_sent, "B", "Payload bytes sent");
    d.stat("frames_dropped", &ethernet_endpoint::m_frames_lost, "1",
           "Frames sent that the network dropped (a real sender would not see this; the audit "
           "does: bytes sent = bytes delivered + bytes dropped)");
    d.stat("bytes_dropped", &ethernet_endpoint::m_bytes_lost, "B",
           "Wire bytes sent that the network dropped");
    d.stat("frames_received", &ethernet_endpoint::m_frames_received, "1", "Frames received");
    d.stat("bytes_received", &ethernet_endpoint::m_bytes_received, "B", "Wire bytes received");
    d.stat("payload_received", &ethernet_endpoint::m_payload_received, "B",
           "Payload bytes received");
    d.stat("latency", &ethernet_endpoint::m_latency_ns, "ns",
           "Per received frame: its last bit here - its ready time at the sending endpoint");
    d.stat("finish_time", &ethernet_endpoint::m_finish_ns, "ns",
           "When this endpoint finished (last frame landed, `expect` frames received)");
    d.signal("in_flight", &ethernet_endpoint::m_in_flight,
             "Frames sent whose last bit has not reached the receiver");
}

ethernet_endpoint::ethernet_endpoint(const sc_core::sc_module_name& name, const params& p)
    : ip_module(name, p) {
    p.apply(*this);
    if (m_frames > 0 && m_dst < 0) {
        const config_node* frames = p.find("frames");
        throw input_error(
            frames ? frames->loc() : p.where(), path() + ".dst",
            "frames: " + std::to_string(m_frames) + " needs a destination node id (dst >= 0)");
    }
    rx.register_b_transport(this, &ethernet_endpoint::receive);
    spawn_thread("run", [this] { run(); });
}

void ethernet_endpoint::run() {
    using sc_core::sc_time;
    const sc_time start = ps_time(m_start.ps);
    const std::uint64_t wire = frame_wire(m_payload.bytes);
    const sc_time gap = ps_time(m_rate.transfer_time(wire).ps);
    m_scratch.assign(static_cast<std::size_t>(wire), 0);
    sc_time ready = start;
    sc_time link_free = start;  // when the link takes the next frame

    for (std::uint64_t i = 0; i < m_frames; ++i) {
        const sc_time now = sim_now();
        if (ready > now) {
            // Waiting for a paced or back-pressured send is scheduled work, not a stall.
            progress_until(ready);
            wait(ready - now);
        }
        // The payload is a member: the link may hold this thread inside b_transport (switch
        // back-pressure), and a run that stops there never unwinds the thread's stack.
        tlm::tlm_generic_payload& trans = m_trans;
        trans.free_all_extensions();
        auto* ext = new packet_ext;  // owned and freed by the payload
        ext->src = static_cast<std::uint32_t>(m_node_id);
        ext->dst = static_cast<std::uint32_t>(m_dst);
        ext->msg_id = 0;
        ext->seq = static_cast<std::uint32_t>(i);
        ext->frames = static_cast<std::uint32_t>(m_frames);
        ext->msg_bytes = m_frames * m_payload.bytes;
        ext->payload = static_cast<std::uint32_t>(m_payload.bytes);
        ext->raw_payload = ext->payload;
        ext->wire = static_cast<std::uint32_t>(wire);
        ext->first_bit_ps = ready.value();
        ext->last_bit_ps = ready.value();
        auto* stamp = new endpoint_stamp;
        stamp->sent_ps = ready.value();
        trans.set_extension(ext);
        trans.set_extension(stamp);
        trans.set_command(tlm::TLM_WRITE_COMMAND);
        trans.set_address(0);
        trans.set_data_ptr(m_scratch.data());
        trans.set_data_length(static_cast<unsigned>(wire));
        trans.set_streaming_width(static_cast<unsigned>(wire));
        trans.set_byte_enable_ptr(nullptr);
        trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);

        sc_time delay = sc_core::SC_ZERO_TIME;
        tx->b_transport(trans, delay);
        if (trans.is_response_error()) {
            throw sim_error(path() + ": frame " + std::to_string(i) +
                            " failed: " + trans.get_response_string());
        }
        link_free = sim_now() + delay;
        ++m_frames_sent;
        m_bytes_sent += wire;
        m_payload_sent += m_payload.bytes;
        sc_time gone = link_free;
        if (ext->dropped) {
            ++m_frames_lost;
            m_bytes_lost += wire;
        } else if (stamp->landed_ps > 0) {
            gone = ps_time(stamp->landed_ps);
            m_last_landing = std::max(m_last_landing, gone);
        }
        m_in_flight.change_at(ready, +1);
        m_in_flight.change_at(gone, -1);
        ++m_sent;
        progress();
        ready = std::max(ready + gap, link_free);
    }
    if (m_frames > 0 && spans_on())
        span("send " + std::to_string(m_frames) + " frames", "eth", start, link_free);

    while (m_received < m_expect) wait(m_received_event);
    const sc_time done = std::max(std::max(link_free, m_last_landing), m_last_arrival);
    const sc_time now = sim_now();
    if (done > now) {
        progress_until(done);
        wait(done - now);
    }
    m_finished = true;
    m_finish_ns.set(ns(sim_now()));
    notify_finished();
}

void ethernet_endpoint::receive(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    auto* ext = trans.get_extension<packet_ext>();
    if (ext == nullptr) {
        throw sim_error(path() +
                        ": a frame without a packet_ext arrived; every eth frame "
                        "carries one");
    }
    if (ext->dst != m_node_id) {
        throw sim_error(path() + ": a frame for node " + std::to_string(ext->dst) + " from node " +
                        std::to_string(ext->src) + " arrived at node " + std::to_string(m_node_id) +
                        " (check node_id and switch addresses)");
    }
    const sc_core::sc_time now = sim_now();
    const sc_core::sc_time last = std::max(now + delay, ps_time(ext->last_bit_ps));
    ++m_frames_received;
    m_bytes_received += ext->wire;
    m_payload_received += ext->payload;
    if (auto* stamp = trans.get_extension<endpoint_stamp>()) {
        m_latency_ns.sample(ns(last - ps_time(stamp->sent_ps)));
        stamp->landed_ps = last.value();
    }
    m_last_arrival = std::max(m_last_arrival, last);
    if (++m_received == m_expect) m_received_event.notify(sc_core::SC_ZERO_TIME);
    // An endpoint never back-pressures: the frame is accepted when its last bit is in.
    delay = last - now;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    progress_until(last);
}

std::string ethernet_endpoint::pending_work() const {
    if (m_finished) return {};
    std::string w;
    if (m_sent < m_frames) {
        w = std::to_string(m_frames - m_sent) + " of " + std::to_string(m_frames) +
            " frames not sent";
    }
    if (m_received < m_expect) {
        if (!w.empty()) w += "; ";
        w += std::to_string(m_expect - m_received) + " of " + std::to_string(m_expect) +
             " expected frames not received";
    }
    return w;
}

TRAINVP_REGISTER_IP(ethernet_endpoint, "ethernet.endpoint");

}  // namespace trainvp::ip
