// The flow-level cluster network (`fabric.flow`, simulation granularity `flow`): every NIC,
// link and switch of a cluster in one block.  Hosts bind their NIC-side sockets to its port
// arrays (host.nic -> fabric.host[i], fabric.notify[i] -> host.nic_notify); a SEND becomes a
// flow of the message's wire bytes over its route in the topology (fabric/topology), and the
// flows share every link max-min fairly (fabric/flow/flow_engine).  No socket call per frame
// or per hop: per message, one call in and two notifications out (ip/fabric/README.md).
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "fabric/flow/flow_engine.h"
#include "fabric/topology/fabric_topology.h"
#include "ip/ethernet/framing.h"
#include "ip/ethernet/packet_ext.h"
#include "kit/ip_module.h"

namespace trainvp::ip {

class flow_fabric : public ip_module, public framing {
public:
    sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<flow_fabric>> host{"host"};
    sc_core::sc_vector<tlm_utils::simple_initiator_socket<flow_fabric>> notify{"notify"};

    flow_fabric(const sc_core::sc_module_name& name, const params& p);
    ~flow_fabric() override;
    static void declare(type_decl<flow_fabric>& d);

    std::string pending_work() const override;
    void end_of_run() override;
    void audit(audit_log& log) const override;

private:
    // A message in the fabric.
    struct message {
        std::uint32_t src = 0, dst = 0;
        nic_msg_ext desc;                  // the host's SEND (peer, bytes, msg_id, tag, data)
        std::uint64_t posted = 0;          // ps: when its data may start
        std::uint64_t wire = 0;            // wire bytes (frames with their headers and gaps)
        std::uint64_t first_frame_ps = 0;  // one full frame at the host link's rate
        std::uint64_t order = 0;
    };
    struct posted_later {
        std::uint64_t at, order;
        std::uint32_t slot;
        bool operator>(const posted_later& o) const {
            return at != o.at ? at > o.at : order > o.order;
        }
    };

    void host_b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    // The engine: starts the messages whose time has come, reports the finished ones, and
    // sleeps until the next of either.
    void step();
    void start(std::uint32_t slot);
    void finish(std::uint32_t slot, std::uint64_t at_ps);
    void notify_host(std::uint32_t port, nic_msg_ext& ext, std::uint64_t at_ps);

    // Params.
    fabric::topology_kind m_kind = fabric::topology_kind::SINGLE_SWITCH;
    std::uint64_t m_endpoints = 0;
    units::bandwidth m_rate;
    units::bandwidth m_uplink_rate;
    std::uint64_t m_hosts_per_leaf = 0;
    std::uint64_t m_spines = 0;
    units::duration m_propagation;
    units::duration m_switch_latency;
    fabric::ecmp_rule m_ecmp = fabric::ecmp_rule::HASH;

    std::unique_ptr<fabric::fabric_topology> m_topo;
    std::unique_ptr<fabric::flow_engine> m_engine;
    wake_queue::engine m_step;
    std::vector<message> m_messages;  // by slot; m_free_slots reusable
    std::vector<std::uint32_t> m_free_slots;
    std::priority_queue<posted_later, std::vector<posted_later>, std::greater<posted_later>>
        m_pending;
    std::uint64_t m_next_order = 0;
    std::vector<std::uint64_t> m_finished;  // scratch
    std::vector<int> m_route;               // scratch
    tlm::tlm_generic_payload m_notify_trans;

    // Statistics.
    counter m_msgs, m_bytes, m_wire_bytes;
    std::vector<counter> m_sent_bytes, m_received_bytes;
    scalar m_max_flows;
    std::vector<scalar> m_up_utilisation, m_down_utilisation;
    scalar m_busiest_link;
};

}  // namespace trainvp::ip
