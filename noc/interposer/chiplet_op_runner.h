// Op lists on a chiplet package (noc/README.md, "Op lists on chiplets"): one op stream per
// chiplet (the ops host.cpu runs: workloads/ops/op.h, collectives already expanded into sends,
// receives and sums), run on the chiplet's PE arrays and the interposer's network.  Chiplet c
// answers to node id c and sits on router c.
//
// The same rules as host.cpu, with the same two pieces of state (ip/host): each stream is an
// op_window (ops of one unit in list order, an op starts when its unit is free and every op of
// its `after` is done, at that op's completion) and each chiplet a message_matcher (a receive
// takes the first message of its source and tag, MPI order; one that arrives first waits in
// the unexpected queue).  What differs is what an op costs:
// - compute, gpu_compute, sum, update: the chiplet's PE arrays
//   (pe_array_compute_model::op_ps), rounded up to NoC cycles;
// - delay: its time, rounded up to NoC cycles;
// - send: the message's packets (packet_flits flits, or one per message at message level) are
//   queued at the chiplet's router when the send starts; the unit is free at once (no software
//   stack on a chiplet) and the send is done when the last packet is delivered;
// - recv: done when its message has arrived (at once if it already had).
// Copies and all-reduce offloads have no engine on a chiplet and are refused when taken.
//
// Pure C++ (no SystemC): it is the network's traffic_source, stepping in NoC cycles; the block
// (noc_interposer) advances the network and so this runner.  Tested alone in
// tests/unit/noc/test_chiplet_ops.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "core/config_node.h"
#include "core/error.h"
#include "ip/host/message_matcher.h"
#include "ip/host/op_window.h"
#include "noc/chiplet/pe_array_compute_model.h"
#include "noc/network/traffic_source.h"
#include "workloads/iteration/critical_path.h"
#include "workloads/ops/message_pairing.h"
#include "workloads/ops/op_source.h"

namespace trainvp::noc {

class noc_network;

class chiplet_op_runner final : public traffic_source {
public:
    struct settings {
        int chiplets = 0;
        std::uint64_t cycle_ps = 1000;
        double flit_bytes = 68;
        int packet_flits = 8;
        bool whole_messages = false;       // message level: one packet per message
        bool split_over_variants = false;  // ARIES bandwidth ring: alternate route variants
        bool record_runs = true;           // keep run records for the iteration breakdown
        bool keep_names = false;
    };

    // `owner`: the block's path, for messages.
    chiplet_op_runner(const settings& s, const pe_array_config& compute, std::string owner);

    // Chiplet c's op stream.  An op it cannot run (a copy, an all-reduce offload, a send or
    // receive naming no chiplet or its own) is an input_error at the op (or at where/key for a
    // generated op), as host.cpu reports an op its sockets cannot run.
    // `given`: the list as written in the config (workload.ops), for the place of an op's field
    // in a message; null for a generated stream.
    void take(int chiplet, std::unique_ptr<ops::op_source> src, const source_loc& where,
              const std::string& key, const config_node* given = nullptr);
    // The sends, receives of the lists written out in the config (`given`), for the validation
    // phase to pair (workloads/ops/message_pairing.h), each entry's `owner` the given one and
    // `index` what site_of takes.
    void declare_messages(ops::message_pairing& pairs, const void* owner) const;
    ops::message_pairing::site site_of(std::size_t index, const char* field) const;
    bool has(int chiplet) const { return m_streams[static_cast<std::size_t>(chiplet)] != nullptr; }
    bool empty() const { return m_taken == 0; }

    // Installs the delivery callback and itself as the source (call once, before running).
    void attach(noc_network& net);
    std::uint64_t next_cycle() const override;
    void generate(std::uint64_t now, noc_network& net) override;

    bool done() const { return m_done == m_total; }
    // The cycle the last op completed.
    std::uint64_t end_cycle() const { return m_end_cycle; }
    // Nothing can happen any more: no wake-up queued and nothing in the network (checked by the
    // block with the network's idle()), yet ops are left: what each stream waits for.
    std::string pending() const;
    // Chiplet c's ops as they ran (workload_sink::ran), named `name`, node id c.
    workloads::host_run ran(int chiplet, const std::string& name);

    // Called, when set, as each op's unit is done with it (a send: when its packets are queued),
    // for the timeline: chiplet, unit, the op's stream index, its slot and name ("" unless
    // settings::keep_names), and its span in ps.
    std::function<void(int chiplet, std::size_t unit, std::size_t op,
                       const ip::op_window::slot& what, const std::string& name,
                       std::uint64_t start_ps, std::uint64_t end_ps)>
        on_span;

    std::uint64_t ops_done() const { return m_done; }
    std::uint64_t messages() const { return m_messages.size(); }
    std::uint64_t message_bytes() const { return m_message_bytes; }

private:
    enum class phase : std::uint8_t { NEXT, DEPS, START, RECV_MATCH, FINISH, FINISHED, DONE };
    struct unit_run {
        phase ph = phase::NEXT;
        std::size_t op = 0;
        ip::op_window::slot what;
        std::uint32_t dep = 0;
        std::uint64_t ready = 0, start = 0, end = 0, arrival = 0;
        std::uint64_t received_bytes = 0, msg_id = 0;
        std::size_t waits_for = ip::op_window::k_none;  // parked until this op is done
    };
    struct stream {
        explicit stream(const std::string& owner) : window(owner) {}
        ip::op_window window;
        ip::message_matcher matcher;
        std::array<unit_run, ops::k_op_units> units;
    };
    // A message on the network: its sender's message id, its packets still on the way.
    struct message {
        int src = 0, dst = 0;
        std::uint32_t tag = 0;
        std::uint64_t bytes = 0, msg_id = 0;
        std::uint32_t packets_left = 0;
    };

    void wake(int c, std::size_t u, std::uint64_t at);
    void step(int c, std::size_t u, std::uint64_t now);
    void start_op(int c, std::size_t u, std::uint64_t now);
    void send(int c, std::size_t u, std::uint64_t now);
    void mark_done(int c, std::size_t i, std::uint64_t at);
    void delivered(std::uint32_t id, std::uint64_t cycle);
    std::uint64_t cycles(std::uint64_t ps) const { return (ps + m_s.cycle_ps - 1) / m_s.cycle_ps; }
    std::string describe(int c, std::size_t i) const;

    settings m_s;
    pe_array_compute_model m_compute;
    std::string m_owner;
    std::vector<std::unique_ptr<stream>> m_streams;  // per chiplet; null: no ops
    std::size_t m_taken = 0;
    // The written-out lists' sends and receives (declare_messages).
    struct given_message {
        bool send = false;
        ops::message_pairing::entry e;
        const config_node* list = nullptr;  // the chiplet's list as written
        std::size_t op = 0;                 // its index there
        std::string key;                    // the list's key
        std::string what;                   // "op 'r1' (recv)"
    };
    std::vector<given_message> m_given;
    std::vector<message> m_messages;
    // Wake-ups (cycle, order, chiplet, unit): a unit sleeping until its op may start or end.
    using wakeup = std::tuple<std::uint64_t, std::uint64_t, int, std::size_t>;
    std::priority_queue<wakeup, std::vector<wakeup>, std::greater<wakeup>> m_wake;
    std::uint64_t m_order = 0;
    noc_network* m_net = nullptr;
    std::uint64_t m_total = 0, m_done = 0, m_end_cycle = 0, m_message_bytes = 0;
};

}  // namespace trainvp::noc
