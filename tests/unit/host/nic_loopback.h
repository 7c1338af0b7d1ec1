// A test-only NIC shared by several hosts ("test.nic_loopback"): it implements the host<->NIC
// contract of ip/ethernet/packet_ext.h (nic_msg_ext) with a closed-form timing, so host tests do
// not depend on the real NIC, PCIe and Ethernet blocks.  Node i's host binds host[i] and
// notify[i].  A SEND of B bytes from node s posted at t occupies s's wire from
// start = max(t, end of s's previous send) for B / bandwidth; SEND_DONE reaches s at the end
// of that, and RECEIVED reaches the destination `latency` later.
#pragma once

#include <map>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "ip/ethernet/packet_ext.h"
#include "kit/ip_module.h"

namespace trainvp::test {

class nic_loopback : public ip_module {
public:
    sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<nic_loopback>> host{"host"};
    sc_core::sc_vector<tlm_utils::simple_initiator_socket<nic_loopback>> notify{"notify"};

    SC_HAS_PROCESS(nic_loopback);
    nic_loopback(const sc_core::sc_module_name& n, const params& p);
    static void declare(type_decl<nic_loopback>& d);

private:
    struct note {
        std::size_t port;
        nic_msg_ext ext;
    };
    void b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    void send_note(std::size_t port, nic_msg_ext ext, const sc_core::sc_time& at);
    void deliver();

    std::uint64_t m_ports = 0;
    units::bandwidth m_bandwidth;
    units::duration m_latency;
    bool m_timed = false;
    std::vector<sc_core::sc_time> m_wire_until;
    std::multimap<sc_core::sc_time, note> m_pending;  // timed mode: notes by delivery time
    sc_core::sc_event m_wake;
};

}  // namespace trainvp::test
