// The flow-level cluster network (`fabric.flow`, simulation granularity `flow`): every NIC,
// link and switch of a cluster in one block.  Hosts bind their NIC-side sockets to its port
// arrays (host.nic -> fabric.host[i], fabric.notify[i] -> host.nic_notify); a SEND becomes a
// flow of the message's wire bytes over its route in the topology (fabric/topology), and the
// flows share every link max-min fairly (fabric/flow/flow_engine).  No socket call per frame
// or per hop: per message, one call in and two notifications out (ip/fabric/README.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "fabric/flow/flow_engine.h"
#include "fabric/topology/fabric_topology.h"
#include "ip/ethernet/framing.h"
#include "ip/ethernet/packet_ext.h"
#include "kit/flat_queue.h"
#include "kit/ip_module.h"
#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule.h"
#include "workloads/drivers/nic_capabilities.h"

namespace trainvp::ip {

class flow_fabric : public ip_module, public framing, public nic_capabilities {
public:
    sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<flow_fabric>> host{"host"};
    sc_core::sc_vector<tlm_utils::simple_initiator_socket<flow_fabric>> notify{"notify"};

    flow_fabric(const sc_core::sc_module_name& name, const params& p);
    ~flow_fabric() override;
    static void declare(type_decl<flow_fabric>& d);

    // An allreduce op handed over whole runs `collective` here (the training section checks
    // that its algorithm is this one).
    bool runs_collective(const std::string& algorithm) const override {
        return algorithm == m_collective;
    }
    bool takes_allreduce_ops() const override { return true; }
    std::string collective() const { return m_collective; }

    std::string pending_work() const override;
    void end_of_run() override;
    void audit(audit_log& log) const override;

private:
    // A message in the fabric.
    struct message {
        std::uint32_t src = 0, dst = 0;
        nic_msg_ext desc;                  // the host's SEND (peer, bytes, msg_id, tag, data)
        std::uint64_t posted = 0;          // ps: when its data may start
        std::uint64_t started = 0;         // ps: when its first byte left (nic_order)
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

    std::unique_ptr<fabric::fabric_topology> make_topology(const params& p) const;
    // The ranks of a collective handed over and its args; refuses what cannot run.
    void plan_collective(const params& p);
    void host_b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    // The engine: starts the messages whose time has come, reports the finished ones, and
    // sleeps until the next of either.
    void step();
    void start(std::uint32_t slot);
    // A flow leaves endpoint `e`: now (nic_order fair, or its NIC is idle) or after the
    // flows queued before it (fifo).  `tag` is the engine's: a message slot, or
    // k_collective_flow | a collective flow's index.
    void transmit(std::uint32_t e, std::uint64_t tag);
    void launch(std::uint64_t tag);
    // A flow from `e` ended: its NIC takes the next queued one.
    void transmitted(std::uint32_t e);
    void finish(std::uint32_t slot, std::uint64_t at_ps);
    void notify_host(std::uint32_t port, nic_msg_ext& ext, std::uint64_t at_ps);

    // Collectives handed over whole (ALLREDUCE ops): every endpoint posts one per bucket (the
    // op's tag); the fabric runs `collective`'s schedule with rank i = endpoint i, each rank
    // entering its next round when its sends have left and its receives have arrived (and been
    // added, at reduce_rate), and answers each host's op with SEND_DONE when its rank is done.
    // A schedule step as the fabric needs it (16 B instead of collectives::step's 40: a
    // 1024-rank ring holds 2 million of them, walked once each).
    struct compact_step {
        std::uint64_t bytes : 40;  // the range's bytes (fp32)
        std::uint64_t kind : 2;    // collectives::step_kind
        std::uint64_t peer : 22;
        std::uint32_t round = 0;
        std::uint32_t tag = 0;
    };
    struct rank_run {
        bool posted = false;
        bool done = false;
        std::uint64_t msg_id = 0;
        std::size_t next = 0;  // its first step not yet begun (steps are in round order)
        std::uint32_t sends_left = 0, recvs_left = 0;
        std::uint64_t ready = 0;         // ps: the round's last arrival
        std::uint64_t reduce_bytes = 0;  // the round's bytes to add
        std::vector<compact_step> steps;
        std::vector<std::uint64_t> waiting;  // the round's receive keys
        // Messages that arrived before their round (key, ps): a few at most (a neighbour one
        // round ahead), so a vector searched in place, not a map allocating per message.
        std::vector<std::pair<std::uint64_t, std::uint64_t>> early;
    };
    struct collective_run {
        std::uint64_t bytes = 0;
        std::vector<rank_run> ranks;
        std::uint32_t finished = 0;
    };
    struct collective_flow {
        std::uint32_t tag = 0, src = 0, dst = 0, step_tag = 0;
        std::uint64_t wire = 0, first_frame_ps = 0;
    };
    enum class timed_kind { START, ARRIVE, ROUND_DONE };
    struct timed {
        std::uint64_t at, order;
        timed_kind kind;
        std::uint32_t tag, rank;
        std::uint64_t key;
        bool operator>(const timed& o) const { return at != o.at ? at > o.at : order > o.order; }
    };
    static constexpr std::uint64_t k_collective_flow = std::uint64_t{1} << 63;

    void post_allreduce(std::uint32_t port, const nic_msg_ext& ext, std::uint64_t at_ps);
    void begin_round(std::uint32_t tag, std::uint32_t rank, std::uint64_t now);
    void round_may_end(std::uint32_t tag, std::uint32_t rank, std::uint64_t now);
    void collective_flow_done(std::uint32_t index, std::uint64_t now);
    void arrive(std::uint32_t tag, std::uint32_t rank, std::uint64_t key, std::uint64_t now);
    void push_timed(std::uint64_t at, timed_kind k, std::uint32_t tag, std::uint32_t rank,
                    std::uint64_t key);
    // Runs what is due at `now` until nothing is; returns the next time anything is due.
    double run_due(std::uint64_t now);

    enum class rank_order { ENDPOINTS, BY_LEAF };
    enum class nic_order { FIFO, FAIR };

    // Params.
    fabric::topology_kind m_kind = fabric::topology_kind::SINGLE_SWITCH;
    std::uint64_t m_endpoints = 0;
    units::bandwidth m_rate;
    units::bandwidth m_uplink_rate;
    double m_oversubscription = 0;
    units::bandwidth m_core_rate;
    std::uint64_t m_hosts_per_leaf = 0;
    std::uint64_t m_spines = 0;
    std::uint64_t m_k = 0;
    std::uint64_t m_rails = 1;
    units::duration m_propagation, m_uplink_propagation, m_core_propagation;
    units::duration m_switch_latency;
    fabric::ecmp_rule m_ecmp = fabric::ecmp_rule::HASH;
    std::string m_collective;
    rank_order m_rank_order = rank_order::ENDPOINTS;
    nic_order m_nic_order = nic_order::FIFO;
    std::uint64_t m_group = 0;
    std::uint64_t m_levels = 2;
    units::bandwidth m_reduce_rate;

    std::unique_ptr<fabric::fabric_topology> m_topo;
    // A collective's ranks: the endpoint of each rank and the rank of each endpoint
    // (rank_order), and its args but for the vector's length.
    std::vector<std::uint32_t> m_endpoint_of_rank, m_rank_of_endpoint;
    collectives::collective_args m_args;
    std::unique_ptr<fabric::flow_engine> m_engine;
    wake_queue::engine m_step;
    std::vector<message> m_messages;  // by slot; m_free_slots reusable
    std::vector<std::uint32_t> m_free_slots;
    std::priority_queue<posted_later, std::vector<posted_later>, std::greater<posted_later>>
        m_pending;
    std::uint64_t m_next_order = 0;
    // Per endpoint: flows waiting for its NIC (nic_order fifo), and whether one is on the wire.
    std::vector<flat_queue<std::uint64_t>> m_tx;
    std::vector<bool> m_tx_busy;
    std::vector<std::uint64_t> m_finished;  // scratch
    std::vector<int> m_route;               // scratch
    tlm::tlm_generic_payload m_notify_trans;
    std::map<std::uint32_t, collective_run> m_collectives;  // by the op's tag
    std::vector<collective_flow> m_coll_flows;
    std::vector<std::uint32_t> m_free_coll_flows;
    std::priority_queue<timed, std::vector<timed>, std::greater<timed>> m_timed;

    // Statistics.
    counter m_msgs, m_bytes, m_wire_bytes, m_collectives_done, m_collective_flows;
    std::vector<counter> m_sent_bytes, m_received_bytes;
    scalar m_max_flows;
    std::vector<scalar> m_up_utilisation, m_down_utilisation;
    scalar m_busiest_link;
};

}  // namespace trainvp::ip
