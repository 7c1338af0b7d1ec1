// Test-only driver for the "nic" protocol: posts `messages` sends of `bytes` to `peer`, one
// after the other's SEND_DONE, and expects `expect` messages to arrive.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "ip/ethernet/packet_ext.h"
#include "kit/ip_module.h"

namespace trainvp::test {

class nic_driver : public ip_module {
public:
    tlm_utils::simple_initiator_socket<nic_driver> nic{"nic"};
    tlm_utils::simple_target_socket<nic_driver> nic_notify{"nic_notify"};

    SC_HAS_PROCESS(nic_driver);
    nic_driver(const sc_core::sc_module_name& n, const params& p);
    static void declare(type_decl<nic_driver>& d);
    bool is_driver() const override { return true; }
    bool finished() const override { return m_done; }
    std::string pending_work() const override;

    // Times (ps) each SEND_DONE and RECEIVED happened.
    counter sends_done, received;
    scalar last_send_done_ps, last_received_ps;
    // With `data: true`: the largest |received - sent| over every float received, and the
    // largest |sent| (the sender's floats are data_value(i) of the message's element i).
    scalar max_error, max_value;
    counter data_bytes;
    // A gradient-like deterministic pattern spanning every codec class: magnitudes from 2^-20
    // to 2 (a few above 1 pass uncompressed), both signs, some zeros.
    static float data_value(std::uint64_t i);

private:
    void run();
    void on_notify(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
    std::uint64_t m_peer = 0, m_messages = 0, m_expect = 0, m_tos = 0;
    bool m_data = false;
    units::data_size m_bytes;
    bool m_done = false;
    sc_core::sc_event m_wake;
};

}  // namespace trainvp::test
