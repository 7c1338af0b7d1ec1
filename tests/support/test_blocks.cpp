#include "tests/support/test_blocks.h"

#include "kit/registry.h"

namespace trainvp::test {

eth_endpoint::eth_endpoint(const sc_core::sc_module_name& n, const params& p) : ip_module(n, p) {
    p.apply(*this);
    rx.register_b_transport(this, &eth_endpoint::b_transport);
}

void eth_endpoint::declare(type_decl<eth_endpoint>& d) {
    d.describe("Test block with one eth initiator and one eth target.");
    d.initiator("tx", &eth_endpoint::tx, "eth", "frames out");
    d.target("rx", &eth_endpoint::rx, "eth", "frames in");
}

eth_hub::eth_hub(const sc_core::sc_module_name& n, const params& p) : ip_module(n, p) {
    p.apply(*this);
    port.init(static_cast<std::size_t>(m_ports));
    for (std::size_t i = 0; i < port.size(); ++i) {
        port[i].register_b_transport(this, &eth_hub::b_transport, static_cast<int>(i));
    }
}

void eth_hub::declare(type_decl<eth_hub>& d) {
    d.describe("Test block with an array of eth targets.");
    d.param("ports", &eth_hub::m_ports, "2", "Number of ports").range("1", "64");
    d.target("port", &eth_hub::port, "eth", "frames in");
}

stuck_driver::stuck_driver(const sc_core::sc_module_name& n, const params& p) : ip_module(n, p) {
    p.apply(*this);
    spawn_thread("run", [this] { run(); });
}

void stuck_driver::declare(type_decl<stuck_driver>& d) {
    d.describe("Test driver that works for busy_for, then waits forever holding its items.");
    d.param("items", &stuck_driver::m_items, "3", "Items of work held");
    d.param("busy_for", &stuck_driver::m_busy_for, "10us", "Time it makes progress first");
}

void stuck_driver::run() {
    // Progress every microsecond for busy_for, then nothing.
    const sc_core::sc_time step(1, sc_core::SC_US);
    for (std::uint64_t t = 0; t < m_busy_for.ps; t += 1000000) {
        wait(step);
        progress();
    }
    wait(m_never);
}

std::string stuck_driver::pending_work() const {
    return std::to_string(m_items) + " items waiting for an event nobody sends";
}

leaky_stage::leaky_stage(const sc_core::sc_module_name& n, const params& p) : ip_module(n, p) {
    p.apply(*this);
    rx.register_b_transport(this, &leaky_stage::b_transport);
}

void leaky_stage::declare(type_decl<leaky_stage>& d) {
    d.describe("Test eth stage that loses every lose_every-th frame without counting it.");
    d.param("lose_every", &leaky_stage::m_lose_every, "0", "Lose every n-th frame (0: none)");
    d.target("rx", &leaky_stage::rx, "eth", "frames in");
    d.initiator("tx", &leaky_stage::tx, "eth", "frames out");
}

void leaky_stage::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    m_flow.enter(trans.get_data_length());
    ++m_seen;
    if (m_lose_every == 0 || m_seen % m_lose_every != 0) {
        tx->b_transport(trans, delay);
        m_flow.leave(trans.get_data_length());
    }
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

waiting_memory::waiting_memory(const sc_core::sc_module_name& n, const params& p)
    : ip_module(n, p) {
    p.apply(*this);
    target.register_b_transport(this, &waiting_memory::b_transport);
}

void waiting_memory::declare(type_decl<waiting_memory>& d) {
    d.describe("Test mem target that waits inside b_transport (not loosely timed).");
    d.target("target", &waiting_memory::target, "mem", "requests");
}

void waiting_memory::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    wait(delay + sc_core::sc_time(1, sc_core::SC_NS));
    delay = sc_core::SC_ZERO_TIME;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

TRAINVP_REGISTER_IP(eth_endpoint, "test.eth_endpoint");
TRAINVP_REGISTER_IP(waiting_memory, "test.waiting_memory");
TRAINVP_REGISTER_IP(leaky_stage, "test.leaky_stage");
TRAINVP_REGISTER_IP(eth_hub, "test.eth_hub");
TRAINVP_REGISTER_IP(stuck_driver, "test.stuck_driver");

}  // namespace trainvp::test
