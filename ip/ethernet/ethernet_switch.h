// An output-queued Ethernet switch: a frame arriving on rx[i] is forwarded to the tx port that
// reaches its destination node, after the port-to-port latency, once it is received
// (store-and-forward) or once its header is (cut-through).  Each output port has a queue of
// `queue` bytes holding frames waiting for their egress link.  A frame that does not fit is
// dropped, or (802.3x PAUSE, modelled as ideal hop-by-hop back-pressure) held upstream until
// enough queued bytes have left.  See ip/ethernet/README.md.
#pragma once

#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "fabric/topology/ecmp.h"
#include "kit/flat_queue.h"
#include "kit/ip_module.h"
#include "traces/traced_level.h"

namespace trainvp::ip {

class ethernet_switch : public ip_module {
public:
    sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<ethernet_switch>> rx{"rx"};
    sc_core::sc_vector<tlm_utils::simple_initiator_socket<ethernet_switch>> tx{"tx"};

    ethernet_switch(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<ethernet_switch>& d);

    std::string pending_work() const override;
    void audit(audit_log& log) const override;

    enum class forwarding { STORE_AND_FORWARD, CUT_THROUGH };
    enum class overflow { DROP, PAUSE };

private:
    // A frame in an output queue: it entered at `ready` and leaves when its egress link starts
    // serialising it.  `cum` is the bytes pushed into the port's FIFO up to and including this
    // frame, so the bytes of any suffix of the FIFO are one subtraction.
    struct queued {
        sc_core::sc_time ready;
        sc_core::sc_time tx_start;
        std::uint64_t bytes;
        std::uint64_t cum;
    };
    // One output port's queue.  The FIFO is in call order, which is tx_start order (the egress
    // link serves frames in the order it is handed them); frames that left before now are
    // popped.  A frame handed over before another may still be ready after it (frames of
    // different sizes, loosely timed): the few whose ready time is still ahead of now are
    // also kept in `arriving`, so that they are not counted before they are in.
    struct out_queue {
        flat_queue<queued> fifo;
        std::vector<queued> arriving;
        std::uint64_t pushed = 0;
    };

    void receive(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    std::size_t egress_port(std::uint32_t dst, std::uint32_t src, int in_port,
                            std::uint64_t msg_id) const;
    // Bytes queued at output `port` at time t >= now.
    std::uint64_t occupancy(const out_queue& q, const sc_core::sc_time& t) const;
    // The earliest time >= t at which a frame of `bytes` fits the queue of `port`.
    sc_core::sc_time admission(const out_queue& q, const sc_core::sc_time& t,
                               std::uint64_t bytes) const;

    // params
    std::uint64_t m_ports = 0;
    std::vector<double> m_addresses;
    std::uint64_t m_nodes_per_port = 1;
    std::uint64_t m_node_stride = 1;
    std::uint64_t m_uplinks = 0;
    fabric::ecmp_rule m_ecmp = fabric::ecmp_rule::HASH;
    std::uint64_t m_ecmp_below = 1;
    std::uint64_t m_ecmp_salt = 0;
    forwarding m_forwarding = forwarding::STORE_AND_FORWARD;
    units::duration m_latency;
    units::data_size m_header;
    units::data_size m_queue;
    overflow m_overflow = overflow::PAUSE;

    std::vector<std::int64_t> m_port_of_node;  // node id -> port, -1 when unreachable
    std::vector<out_queue> m_out_queues;
    sc_core::sc_time m_last_departure = sc_core::SC_ZERO_TIME;

    std::vector<counter> m_frames_in, m_bytes_in, m_frames_out, m_bytes_out;
    std::vector<counter> m_frames_dropped, m_bytes_dropped, m_pause_events;
    std::vector<scalar> m_pause_ns, m_max_queue;
    std::vector<distribution> m_queue_ns;
    counter m_total_in, m_total_out, m_total_dropped;
    flow_tally m_flow;  // all ports, never reset: the audit's in = out + dropped
    scalar m_total_pause_ns;
    std::vector<traced_level> m_queue_level;
};

}  // namespace trainvp::ip
