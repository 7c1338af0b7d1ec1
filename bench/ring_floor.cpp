// The floor of a message-level ring built from composed TLM blocks: benchmark (b)'s message
// pattern (N nodes, 2(N - 1) steps; per step each node sends one 64 KiB message to the next
// and waits for the one from the previous) with the platform's socket calls and engine
// activations per message, but no model behind them.  A message makes HOPS + 1 socket calls:
// the node's send, then one per pass-through block (a module with a target and an initiator
// socket that reserves its own busy-until time and counts it, the least a link direction or a
// memory channel does), the last into the next node, whose engine it wakes.  Each node's engine
// (kit/wake_queue.h, as host.cpu's units and nic.basic's TX engine) runs ACTIVATIONS times
// per message.  The defaults, 10 and 4, are below the platform ring's counts (11.7 socket calls
// and 4.7 activations per message: callgrind on a 128-node ring of 64 KiB messages), so
// whatever the blocks of benchmark (b) do costs more than this (docs/performance.md).
//   ring_floor N [HOPS] [ACTIVATIONS]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "kit/sim_context.h"
#include "kit/sim_time.h"
#include "platform/allocator_tuning.h"

namespace {

using sc_core::sc_time;

// One pass-through block: reserves itself for `service` from the message's arrival and
// passes the message on with the delay that reservation gives.
struct relay : sc_core::sc_module {
    tlm_utils::simple_target_socket<relay> in{"in"};
    tlm_utils::simple_initiator_socket<relay> out{"out"};
    relay(const sc_core::sc_module_name& n, const sc_time& service)
        : sc_module(n), m_service(service) {
        in.register_b_transport(this, &relay::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
        const sc_time now = trainvp::sim_now();
        m_busy_until = std::max(m_busy_until, now + delay) + m_service;
        delay = m_busy_until - now;
        ++m_messages;
        out->b_transport(trans, delay);
    }
    sc_time m_service;
    sc_time m_busy_until;
    std::uint64_t m_messages = 0;
};

// A ring node: its engine sends step s's message, parks until step s's message from the
// previous node is in (one activation, the receive's), then runs ACTIVATIONS - 1 more times
// (the work between messages in the platform: the receive's completion, the sum, the next
// send's descriptor) and sends the next step's message in the last of them.
struct node : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<node> tx{"tx"};
    tlm_utils::simple_target_socket<node> rx{"rx"};
    node(const sc_core::sc_module_name& n, trainvp::sim_context& ctx, std::uint64_t steps,
         unsigned activations)
        : sc_module(n), m_steps(steps), m_extra(activations - 1) {
        rx.register_b_transport(this, &node::receive);
        ctx.wakes().start(m_engine, name(), [this] { step(); });
    }
    void step() {
        if (m_work > 0 && --m_work > 0) {  // the work between messages
            m_engine.sleep_for(trainvp::ps_time(1000));
            return;
        }
        if (m_step == m_steps) return;  // done: the engine ends
        if (m_sent == m_step) {         // send this step's message
            sc_time delay = sc_core::SC_ZERO_TIME;
            m_trans.set_command(tlm::TLM_WRITE_COMMAND);
            m_trans.set_data_length(65536);
            tx->b_transport(m_trans, delay);
            ++m_sent;
        }
        if (m_received <= m_step) {  // wait for this step's message
            m_engine.park();
            return;
        }
        const sc_time arrival = m_arrival[m_step % k_in_flight];
        if (arrival > trainvp::sim_now()) {  // received ahead: its last bit is still to come
            m_engine.sleep_until(arrival);
            return;
        }
        ++m_step;  // it is in: the work before the next send
        m_work = m_extra;
        m_engine.sleep_for(trainvp::ps_time(1000));
    }
    void receive(tlm::tlm_generic_payload&, sc_time& delay) {
        if (m_received >= m_step + k_in_flight) {
            std::fprintf(stderr, "ring_floor: more than %zu messages ahead\n", k_in_flight);
            std::abort();
        }
        m_arrival[m_received % k_in_flight] = trainvp::sim_now() + delay;
        ++m_received;
        m_engine.wake(delay);
    }
    static constexpr std::size_t k_in_flight = 4;
    trainvp::wake_queue::engine m_engine;
    sc_time m_arrival[k_in_flight];
    std::uint64_t m_steps;
    unsigned m_extra;
    std::uint64_t m_step = 0, m_sent = 0, m_received = 0;
    unsigned m_work = 0;
    tlm::tlm_generic_payload m_trans;
};

}  // namespace

// libsystemc prints its banner before sc_main; a static initialiser runs earlier still.
static const bool g_quiet_banner = [] {
    return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
}();

int sc_main(int argc, char* argv[]) {
    trainvp::tune_allocator();  // as the trainvp command does
    if (argc < 2) {
        std::fprintf(stderr, "usage: ring_floor N [HOPS] [ACTIVATIONS]\n");
        return 2;
    }
    const std::uint64_t n = std::strtoull(argv[1], nullptr, 10);
    const unsigned hops = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 10;
    const unsigned activations = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 4;
    if (n < 2 || hops < 1 || activations < 2) {
        std::fprintf(stderr, "ring_floor: N >= 2, HOPS >= 1, ACTIVATIONS >= 2\n");
        return 2;
    }
    const std::uint64_t steps = 2 * (n - 1);
    const auto t0 = std::chrono::steady_clock::now();
    trainvp::sim_context ctx(trainvp::sim_settings{});
    trainvp::sim_context::set_current(&ctx);
    ctx.wakes().spawn();
    // Built node by node, as the platform loader instantiates a template per node.  One hop's
    // service is a 64 KiB message's serialisation at 10 Gb/s (the link); the others take 1 ns.
    std::vector<std::unique_ptr<node>> nodes;
    std::vector<std::vector<std::unique_ptr<relay>>> relays(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::string p = "node" + std::to_string(i);
        nodes.push_back(std::make_unique<node>((p + "_engine").c_str(), ctx, steps, activations));
        for (unsigned h = 0; h < hops; ++h) {
            const sc_time service = trainvp::ps_time(h == hops / 2 ? 52428800 : 1000);
            relays[i].push_back(
                std::make_unique<relay>((p + "_hop" + std::to_string(h)).c_str(), service));
        }
    }
    for (std::uint64_t i = 0; i < n; ++i) {
        nodes[i]->tx.bind(relays[i][0]->in);
        for (unsigned h = 0; h + 1 < hops; ++h) relays[i][h]->out.bind(relays[i][h + 1]->in);
        relays[i][hops - 1]->out.bind(nodes[(i + 1) % n]->rx);
    }
    const auto t1 = std::chrono::steady_clock::now();
    sc_core::sc_start();
    const auto t2 = std::chrono::steady_clock::now();
    std::uint64_t messages = 0;
    for (const auto& nd : nodes) messages += nd->m_sent;
    bool complete = true;
    for (const auto& nd : nodes) complete = complete && nd->m_step == steps;
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    const double setup = std::chrono::duration<double>(t1 - t0).count();
    const double sim = std::chrono::duration<double>(t2 - t1).count();
    std::printf(
        "{\"bench\":\"ring_floor\",\"nodes\":%llu,\"hops\":%u,\"activations\":%u,"
        "\"status\":\"%s\",\"messages\":%llu,\"engine_activations\":%llu,\"sim_s\":%.6g,"
        "\"setup_s\":%.4f,\"run_s\":%.4f,\"wall_s\":%.4f,\"ns_per_message\":%.1f,"
        "\"peak_rss_mb\":%.1f}\n",
        static_cast<unsigned long long>(n), hops, activations, complete ? "finished" : "stalled",
        static_cast<unsigned long long>(messages),
        static_cast<unsigned long long>(ctx.wakes().activations()),
        sc_core::sc_time_stamp().to_seconds(), setup, sim, setup + sim,
        messages ? sim * 1e9 / static_cast<double>(messages) : 0.0,
        static_cast<double>(ru.ru_maxrss) / 1024.0);
    return complete ? 0 : 1;
}
