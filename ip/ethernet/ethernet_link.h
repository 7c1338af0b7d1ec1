// A full-duplex Ethernet link (MAC/PHY serialisation plus the cable): two independent
// directions, A->B (a_in -> b_out) and B->A (b_in -> a_out), each a resource busy while it
// serialises a frame.  Loosely timed and synchronous: a frame handed to a_in is delivered to
// b_out within the same call, with the times its first and last bit reach the far side; the
// far side answers when it accepted the frame, so back-pressure (802.3x PAUSE from a switch)
// travels back to the sender as a later return time.  See ip/ethernet/README.md.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "kit/ip_module.h"
#include "kit/timed_resource.h"
#include "traces/traced_level.h"

namespace trainvp {
struct packet_ext;
}

namespace trainvp::ip {

class ethernet_link : public ip_module {
public:
    tlm_utils::simple_target_socket<ethernet_link> a_in{"a_in"};
    tlm_utils::simple_initiator_socket<ethernet_link> b_out{"b_out"};
    tlm_utils::simple_target_socket<ethernet_link> b_in{"b_in"};
    tlm_utils::simple_initiator_socket<ethernet_link> a_out{"a_out"};

    ethernet_link(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<ethernet_link>& d);

    std::string pending_work() const override;
    void end_of_run() override;
    void audit(audit_log& log) const override;

    // One interval [from, to) during which the link is down (`down:` in the config).
    struct down_interval {
        units::duration from;
        units::duration to;
        static void declare(param_list<down_interval>& d);
    };

private:
    // One direction's state; the stats it updates are members of the link (declared stats
    // must be direct members), reached through these pointers.
    struct direction {
        const char* name = "";
        timed_resource wire;
        counter* frames = nullptr;
        counter* bytes = nullptr;
        scalar* busy_ns = nullptr;
        scalar* blocked_ns = nullptr;
        scalar* utilisation = nullptr;
        distribution* wait_ns = nullptr;
        traced_level* busy = nullptr;
        sc_core::sc_time last_delivery = sc_core::SC_ZERO_TIME;  // last bit at the far side
        flow_tally flow;  // for the audit: every frame that enters is delivered or dropped
        counter* frames_dropped = nullptr;
        counter* bytes_dropped = nullptr;
    };

    void transport_ab(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    void transport_ba(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    void transport(direction& dir, tlm::tlm_fw_transport_if<>& out, tlm::tlm_generic_payload& trans,
                   sc_core::sc_time& delay);

    // Faults (README, "Faults"): the down interval that [start, end) overlaps, if any.
    const down_interval* down_during(const sc_core::sc_time& start,
                                     const sc_core::sc_time& end) const;
    // One draw of the link's random stream: whether a frame is corrupted (FCS error).
    bool corrupted();
    // Drops a frame (or a train) that `dir` does not deliver: counted, marked in the packet_ext.
    void drop(direction& dir, packet_ext& ext);

    units::bandwidth m_rate;
    units::duration m_propagation;
    std::vector<down_interval> m_down;
    double m_frame_error_rate = 0.0;
    // Only when frame_error_rate > 0 (no draws otherwise: fault-free runs are unchanged).
    std::mt19937_64 m_rng;

    direction m_dir[2];

    counter m_frames_ab, m_frames_ba, m_bytes_ab, m_bytes_ba;
    scalar m_busy_ab, m_busy_ba, m_blocked_ab, m_blocked_ba, m_util_ab, m_util_ba;
    distribution m_wait_ab, m_wait_ba;
    counter m_frames_dropped_ab, m_frames_dropped_ba, m_bytes_dropped_ab, m_bytes_dropped_ba;
    counter m_frames_corrupted, m_frames_down;
    scalar m_down_time;
    traced_level m_busy_flag_ab{traced_level::style::FLAG};
    traced_level m_busy_flag_ba{traced_level::style::FLAG};
};

}  // namespace trainvp::ip
