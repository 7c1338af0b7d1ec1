// A frame endpoint for network studies: sends `frames` frames of `payload` bytes to node `dst`
// through `tx`, paced by `rate` and by the link's back-pressure, and receives frames on `rx`.
// It is a driver: it finishes when every frame it sent has landed (or was dropped) and it has
// received `expect` frames.  Frames are sent at their real ready time (one wait per frame, no
// temporal decoupling) so that frames from many endpoints reach a shared switch port in time
// order.
#pragma once

#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "ip/ethernet/framing.h"
#include "kit/ip_module.h"
#include "traces/traced_level.h"

namespace trainvp::ip {

class ethernet_endpoint : public ip_module, public framing {
public:
    tlm_utils::simple_initiator_socket<ethernet_endpoint> tx{"tx"};
    tlm_utils::simple_target_socket<ethernet_endpoint> rx{"rx"};

    SC_HAS_PROCESS(ethernet_endpoint);
    ethernet_endpoint(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<ethernet_endpoint>& d);

    bool is_driver() const override { return true; }
    bool finished() const override { return m_finished; }
    std::string pending_work() const override;

private:
    void run();
    void receive(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

    // params
    std::uint64_t m_node_id = 0;
    std::int64_t m_dst = -1;
    std::uint64_t m_frames = 0;
    units::data_size m_payload;
    units::bandwidth m_rate;
    units::duration m_start;
    std::uint64_t m_expect = 0;

    bool m_finished = false;
    std::uint64_t m_sent = 0;
    std::uint64_t m_received = 0;
    sc_core::sc_time m_last_landing = sc_core::SC_ZERO_TIME;  // last bit of our last frame there
    sc_core::sc_time m_last_arrival = sc_core::SC_ZERO_TIME;  // last bit of a frame received
    sc_core::sc_event m_received_event;
    std::vector<unsigned char> m_scratch;  // the data pointer of timing-only frames
    tlm::tlm_generic_payload m_trans;      // the frame being sent (its extensions: the frame's)

    counter m_frames_sent, m_bytes_sent, m_payload_sent, m_frames_lost, m_bytes_lost;
    counter m_frames_received, m_bytes_received, m_payload_received;
    distribution m_latency_ns;
    scalar m_finish_ns;
    traced_level m_in_flight;
};

}  // namespace trainvp::ip
