#include "ip/ethernet/ethernet_link.h"

#include <algorithm>

#include "core/units.h"
#include "ip/ethernet/packet_ext.h"
#include "kit/registry.h"
#include "kit/sim_time.h"

namespace trainvp::ip {

void ethernet_link::down_interval::declare(param_list<down_interval>& d) {
    d.required("from", &down_interval::from, "When the link goes down (simulated time)")
        .range("0s", "100000s");
    d.required("to", &down_interval::to,
               "When it is up again (exclusive: a frame starting at `to` is carried)")
        .range("0s", "100000s");
}

void ethernet_link::declare(type_decl<ethernet_link>& d) {
    d.describe(
        "Full-duplex Ethernet link: direction A->B (a_in -> b_out) and B->A (b_in -> a_out) "
        "each serialise one frame at a time. A frame whose first bit is ready at t starts at "
        "start = max(t, direction free) and ends at end = max(start + wire*8/rate, its last bit "
        "ready upstream); its first and last bit reach the far side `propagation` later. The "
        "direction stays busy until max(end, far side's accept time - propagation), which is "
        "when the sender may hand over its next frame (back-pressure from a paused switch "
        "port). The `eth` protocol is documented in ip/ethernet/README.md.");
    d.param("rate", &ethernet_link::m_rate, "10Gb/s",
            "Line rate of each direction (default: the 10 GbE cluster of inceptionn.md "
            "§VII-C; smartnic.md §V uses 40Gb/s and §III 100Gb/s); a NIC bound to it must "
            "have the same rate (checked)")
        .range("1Gb/s", "400Gb/s");
    d.param("propagation", &ethernet_link::m_propagation, "10ns",
            "Signal flight time over the cable (default: a 2 m in-rack cable at ~5 ns/m, a "
            "velocity of ~0.67c in fibre or twinax; IEEE 802.3 caps a 100 m twisted-pair "
            "segment at 570 ns, 5.7 ns/m)")
        .range("0ns", "1ms");
    d.group_list("down", &ethernet_link::m_down,
                 "Fault: intervals [from, to) during which the link is down in both directions "
                 "(a cable pulled, a port flapping), in increasing order and not overlapping, "
                 "e.g. [{from: 2ms, to: 3ms}]. A frame whose serialisation would overlap one is "
                 "lost: one that would start inside it is discarded by the sender's MAC without "
                 "taking the wire (Linux replaces the qdisc of a device without carrier by "
                 "noop_qdisc, which drops: net/sched/sch_generic.c dev_deactivate), one cut by "
                 "it took the wire until `from`. Counted in frames_dropped_*; a NIC resends it "
                 "(nic.* `rto`). Default: never down",
                 down_interval::declare);
    d.param("frame_error_rate", &ethernet_link::m_frame_error_rate, "0",
            "Fault: probability that a frame is corrupted on the wire, drawn per frame from the "
            "run's seeded random stream for this link (simulation.seed; no draw when 0). A "
            "corrupted frame takes the wire and is dropped by the receiving MAC (FCS check, "
            "IEEE 802.3 clause 3.2.9); counted in frames_corrupted and frames_dropped_*. A "
            "NIC resends it (nic.* `rto`). For a bit error rate b and w wire bytes, "
            "1 - (1 - b)^(8w)")
        .range("0", "1");
    d.target("a_in", &ethernet_link::a_in, "eth", "Frames from side A, sent towards B").line_rate =
        "rate";
    d.initiator("b_out", &ethernet_link::b_out, "eth", "Frames delivered to side B").line_rate =
        "rate";
    d.target("b_in", &ethernet_link::b_in, "eth", "Frames from side B, sent towards A").line_rate =
        "rate";
    d.initiator("a_out", &ethernet_link::a_out, "eth", "Frames delivered to side A").line_rate =
        "rate";
    d.stat("frames_ab", &ethernet_link::m_frames_ab, "1", "Frames carried A->B");
    d.stat("frames_ba", &ethernet_link::m_frames_ba, "1", "Frames carried B->A");
    d.stat("bytes_ab", &ethernet_link::m_bytes_ab, "B",
           "Wire bytes carried A->B (preamble, headers, FCS and inter-frame gap included)");
    d.stat("bytes_ba", &ethernet_link::m_bytes_ba, "B", "Wire bytes carried B->A");
    d.stat("busy_time_ab", &ethernet_link::m_busy_ab, "ns", "Time A->B was serialising frames");
    d.stat("busy_time_ba", &ethernet_link::m_busy_ba, "ns", "Time B->A was serialising frames");
    d.stat("blocked_time_ab", &ethernet_link::m_blocked_ab, "ns",
           "Time A->B was held idle after a frame by back-pressure from side B (PAUSE)");
    d.stat("blocked_time_ba", &ethernet_link::m_blocked_ba, "ns",
           "Time B->A was held idle after a frame by back-pressure from side A (PAUSE)");
    d.headline("utilisation_ab", &ethernet_link::m_util_ab, "1",
               "busy_time_ab / simulated time of the run");
    d.headline("utilisation_ba", &ethernet_link::m_util_ba, "1",
               "busy_time_ba / simulated time of the run");
    d.stat("wait_ab", &ethernet_link::m_wait_ab, "ns",
           "Per frame A->B: time from its first bit being ready to its serialisation start "
           "(after a switch, the time it waited in the switch's output queue)");
    d.stat("wait_ba", &ethernet_link::m_wait_ba, "ns", "Per frame B->A: as wait_ab");
    d.stat("frames_dropped_ab", &ethernet_link::m_frames_dropped_ab, "1",
           "Fault: frames A->B not delivered (the link was down, or the frame was corrupted)");
    d.stat("frames_dropped_ba", &ethernet_link::m_frames_dropped_ba, "1",
           "Fault: frames B->A not delivered");
    d.stat("bytes_dropped_ab", &ethernet_link::m_bytes_dropped_ab, "B",
           "Fault: wire bytes A->B not delivered (audit: bytes in = carried + dropped)");
    d.stat("bytes_dropped_ba", &ethernet_link::m_bytes_dropped_ba, "B",
           "Fault: wire bytes B->A not delivered");
    d.stat("frames_corrupted", &ethernet_link::m_frames_corrupted, "1",
           "Fault: frames (both directions) dropped by the receiver's FCS check "
           "(frame_error_rate)");
    d.stat("frames_down", &ethernet_link::m_frames_down, "1",
           "Fault: frames (both directions) lost because the link was down");
    d.stat("down_time", &ethernet_link::m_down_time, "ns",
           "Fault: time the link was down within the run (the `down` intervals up to its end)");
    d.signal("busy_ab", &ethernet_link::m_busy_flag_ab, "1 while A->B serialises a frame");
    d.signal("busy_ba", &ethernet_link::m_busy_flag_ba, "1 while B->A serialises a frame");
}

ethernet_link::ethernet_link(const sc_core::sc_module_name& name, const params& p)
    : ip_module(name, p) {
    p.apply(*this);
    // The down intervals: each from < to, in increasing order, not overlapping.
    const config_node* down = p.find("down");
    for (std::size_t i = 0; i < m_down.size(); ++i) {
        const config_node& item = down->items()[i];
        const auto where = [&](const char* key) {
            const config_node* v = item.find(key);
            return v != nullptr ? v->loc() : item.loc();
        };
        const std::string key = path() + ".down[" + std::to_string(i) + "]";
        if (m_down[i].to.ps <= m_down[i].from.ps) {
            throw input_error(where("to"), key + ".to",
                              "the link comes up (" + units::format_time(m_down[i].to.seconds()) +
                                  ") no later than it goes down (from: " +
                                  units::format_time(m_down[i].from.seconds()) +
                                  "); give to > from");
        }
        if (i > 0 && m_down[i].from.ps < m_down[i - 1].to.ps) {
            throw input_error(where("from"), key + ".from",
                              "this interval starts (" +
                                  units::format_time(m_down[i].from.seconds()) +
                                  ") before the one before it ends (down[" + std::to_string(i - 1) +
                                  "].to: " + units::format_time(m_down[i - 1].to.seconds()) +
                                  "); give the intervals in increasing order, not overlapping");
        }
    }
    if (m_frame_error_rate > 0.0) m_rng = ctx().rng_for(path());
    if (!m_down.empty() || m_frame_error_rate > 0.0) ctx().declare_frame_faults();
    m_dir[0].name = "A->B";
    m_dir[0].frames_dropped = &m_frames_dropped_ab;
    m_dir[0].bytes_dropped = &m_bytes_dropped_ab;
    m_dir[1].frames_dropped = &m_frames_dropped_ba;
    m_dir[1].bytes_dropped = &m_bytes_dropped_ba;
    m_dir[0].frames = &m_frames_ab;
    m_dir[0].bytes = &m_bytes_ab;
    m_dir[0].busy_ns = &m_busy_ab;
    m_dir[0].blocked_ns = &m_blocked_ab;
    m_dir[0].utilisation = &m_util_ab;
    m_dir[0].wait_ns = &m_wait_ab;
    m_dir[0].busy = &m_busy_flag_ab;
    m_dir[1].name = "B->A";
    m_dir[1].frames = &m_frames_ba;
    m_dir[1].bytes = &m_bytes_ba;
    m_dir[1].busy_ns = &m_busy_ba;
    m_dir[1].blocked_ns = &m_blocked_ba;
    m_dir[1].utilisation = &m_util_ba;
    m_dir[1].wait_ns = &m_wait_ba;
    m_dir[1].busy = &m_busy_flag_ba;
    a_in.register_b_transport(this, &ethernet_link::transport_ab);
    b_in.register_b_transport(this, &ethernet_link::transport_ba);
}

void ethernet_link::transport_ab(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    transport(m_dir[0], *b_out.operator->(), trans, delay);
}

void ethernet_link::transport_ba(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    transport(m_dir[1], *a_out.operator->(), trans, delay);
}

void ethernet_link::transport(direction& dir, tlm::tlm_fw_transport_if<>& out,
                              tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    auto* ext = trans.get_extension<packet_ext>();
    if (ext == nullptr) {
        throw sim_error(path() + ": a frame without a packet_ext arrived (" + dir.name +
                        "); every eth frame carries one");
    }
    dir.flow.enter(ext->wire);
    const sc_core::sc_time now = sim_now();
    const sc_core::sc_time ready = now + delay;
    const sc_core::sc_time prop = ps_time(m_propagation.ps);
    // The upstream may still be receiving the frame (cut-through): the tail cannot leave
    // before it has arrived.
    const sc_core::sc_time tail_ready = std::max(ps_time(ext->last_bit_ps), ready);
    const sc_core::sc_time ser = ps_time(m_rate.transfer_time(ext->wire).ps);

    if (!m_down.empty()) {
        // Down (README, "Faults"): a frame that would start inside an interval is discarded
        // by the sender's MAC without taking the wire; one the interval cuts took it until
        // the link went down.  Either way the far side never sees it.
        const sc_core::sc_time start = std::max(ready, dir.wire.busy_until());
        const sc_core::sc_time finish = std::max(start + ser, tail_ready);
        if (const down_interval* d = down_during(start, finish)) {
            const sc_core::sc_time from = ps_time(d->from.ps);
            sc_core::sc_time free = ready;
            if (from > start) {
                const timed_resource::slot cut = dir.wire.reserve(ready, from - start);
                dir.busy_ns->add(ns(cut.end - cut.start));
                dir.busy->busy(cut.start, cut.end);
                free = cut.end;
            }
            m_frames_down += ext->train;
            // It left a switch's output queue when the MAC took (and discarded) it.
            ext->tx_start_ps = start.value();
            drop(dir, *ext);
            delay = free > now ? free - now : sc_core::SC_ZERO_TIME;
            trans.set_response_status(tlm::TLM_OK_RESPONSE);
            progress_until(free);
            return;
        }
    }
    const timed_resource::slot s = dir.wire.reserve(ready, ser);
    sc_core::sc_time end = std::max(s.end, tail_ready);
    if (m_frame_error_rate > 0.0) {
        // One draw per frame, all of them drawn (a train is lost whole if any is hit).
        bool hit = false;
        for (std::uint32_t k = 0; k < ext->train; ++k) hit = corrupted() || hit;
        if (hit) {
            // The frame took the wire; the receiving MAC drops it on its FCS.
            dir.wire.block_until(end);
            dir.busy_ns->add(ns(ser));
            dir.wait_ns->sample(ns(s.start - ready));
            dir.busy->busy(s.start, s.start + ser);
            m_frames_corrupted += ext->train;
            ext->tx_start_ps = s.start.value();
            drop(dir, *ext);
            delay = end - now;
            trans.set_response_status(tlm::TLM_OK_RESPONSE);
            progress_until(end);
            return;
        }
    }
    if (ext->train > 1) {
        // A message-level train (README, "Message granularity"): its head frame is through
        // after one frame's serialisation (or when the upstream has it); a stored tail frame
        // still has to be serialised here after it is in.
        if (ext->tail_stored)
            end = std::max(end, tail_ready + ps_time(m_rate.transfer_time(ext->tail_wire).ps));
        const sc_core::sc_time head_end =
            std::max(s.start + ps_time(m_rate.transfer_time(ext->head_wire).ps),
                     ps_time(ext->head_last_bit_ps));
        ext->head_last_bit_ps = (std::min(head_end, end) + prop).value();
        ext->tail_stored = false;
    }
    dir.wire.block_until(end);

    ext->tx_start_ps = s.start.value();
    ext->first_bit_ps = (s.start + prop).value();
    ext->last_bit_ps = (end + prop).value();
    sc_core::sc_time far = s.start + prop - now;
    out.b_transport(trans, far);
    if (trans.is_response_ok()) dir.flow.leave(ext->wire);
    const sc_core::sc_time accept = now + far;
    // Restored after the far side returns: a switch there forwards the frame over another link,
    // which overwrites the field, and our sender (a switch port) reads it to learn how long the
    // frame waited in its queue.
    ext->tx_start_ps = s.start.value();

    // The far side may accept later than the last bit arrives (a paused switch port): the
    // direction cannot start the next frame before then.
    const sc_core::sc_time held = accept > prop ? std::max(end, accept - prop) : end;
    dir.wire.block_until(held);

    *dir.frames += ext->train;
    *dir.bytes += ext->wire;
    dir.busy_ns->add(ns(ser));
    dir.blocked_ns->add(ns(held - end));
    dir.wait_ns->sample(ns(s.start - ready));
    dir.busy->busy(s.start, s.start + ser);
    if (end + prop > dir.last_delivery) dir.last_delivery = end + prop;

    delay = held - now;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    progress_until(dir.last_delivery);
}

const ethernet_link::down_interval* ethernet_link::down_during(const sc_core::sc_time& start,
                                                               const sc_core::sc_time& end) const {
    const std::uint64_t a = start.value(), b = end.value();
    for (const down_interval& d : m_down) {
        if (d.from.ps >= b) break;  // in increasing order: none later overlaps
        if (a < d.to.ps) return &d;
    }
    return nullptr;
}

bool ethernet_link::corrupted() {
    // 53 random bits as a double in [0, 1): the same on every compiler and library (a
    // std::uniform_real_distribution is not).
    const double u = static_cast<double>(m_rng() >> 11) * 0x1.0p-53;
    return u < m_frame_error_rate;
}

void ethernet_link::drop(direction& dir, packet_ext& ext) {
    dir.flow.drop(ext.wire);
    *dir.frames_dropped += ext.train;
    *dir.bytes_dropped += ext.wire;
    ext.dropped = true;
}

void ethernet_link::audit(audit_log& log) const {
    for (const direction& d : m_dir) d.flow.audit(log, path(), d.name);
}

std::string ethernet_link::pending_work() const {
    const sc_core::sc_time now = sim_now();
    std::string w;
    for (const direction& d : m_dir) {
        if (d.last_delivery > now) {
            if (!w.empty()) w += "; ";
            w += std::string(d.name) + " frames in flight until " + d.last_delivery.to_string();
        }
    }
    return w;
}

void ethernet_link::end_of_run() {
    const double t = ns(sim_now());
    double down = 0.0;
    for (const down_interval& d : m_down) {
        const std::uint64_t to = std::min<std::uint64_t>(d.to.ps, sim_now().value());
        if (to > d.from.ps) down += static_cast<double>(to - d.from.ps) * 1e-3;
    }
    m_down_time.set(down);
    for (direction& d : m_dir) {
        d.utilisation->set(
            resource_usage::busy_fraction(d.busy_ns->value(), ns(d.wire.busy_until()), t));
    }
}

TRAINVP_REGISTER_IP(ethernet_link, "ethernet.link");

}  // namespace trainvp::ip
