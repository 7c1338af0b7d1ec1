// IP types that exist only in tests: a second protocol, socket arrays, and a driver that gets
// stuck, to exercise the binder and the stall watchdog.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "kit/ip_module.h"

namespace trainvp::test {

// Two "eth" sockets (one each way), to check protocol and direction rules.
class eth_endpoint : public ip_module {
public:
    tlm_utils::simple_initiator_socket<eth_endpoint> tx{"tx"};
    tlm_utils::simple_target_socket<eth_endpoint> rx{"rx"};
    eth_endpoint(const sc_core::sc_module_name& n, const params& p);
    static void declare(type_decl<eth_endpoint>& d);

private:
    void b_transport(tlm::tlm_generic_payload&, sc_core::sc_time&) {}
};

// An array of `ports` "eth" target sockets.
class eth_hub : public ip_module {
public:
    sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<eth_hub>> port{"port"};
    eth_hub(const sc_core::sc_module_name& n, const params& p);
    static void declare(type_decl<eth_hub>& d);

private:
    void b_transport(int, tlm::tlm_generic_payload&, sc_core::sc_time&) {}
    std::uint64_t m_ports = 0;
};

// A driver that holds `items` of work and waits for an event nobody notifies.
class stuck_driver : public ip_module {
public:
    SC_HAS_PROCESS(stuck_driver);
    stuck_driver(const sc_core::sc_module_name& n, const params& p);
    static void declare(type_decl<stuck_driver>& d);
    bool is_driver() const override { return true; }
    bool finished() const override { return false; }
    std::string pending_work() const override;

private:
    void run();
    std::uint64_t m_items = 0;
    units::duration m_busy_for;
    sc_core::sc_event m_never;
};

// An eth stage that forwards frames from `rx` to `tx` but silently loses every
// `lose_every`-th one (0: none): the bug the end-of-run audit is there to catch.
class leaky_stage : public ip_module {
public:
    tlm_utils::simple_target_socket<leaky_stage> rx{"rx"};
    tlm_utils::simple_initiator_socket<leaky_stage> tx{"tx"};
    leaky_stage(const sc_core::sc_module_name& n, const params& p);
    static void declare(type_decl<leaky_stage>& d);
    void audit(audit_log& log) const override { m_flow.audit(log, path(), "rx to tx"); }

private:
    void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    std::uint64_t m_lose_every = 0;
    std::uint64_t m_seen = 0;
    flow_tally m_flow;
};

// A "mem" target that is not loosely timed: it waits out each request's delay inside
// b_transport, which the event-driven initiators (host.cpu's units, nic.basic's TX engine)
// must refuse with a clear error instead of a crash.
class waiting_memory : public ip_module {
public:
    tlm_utils::simple_target_socket<waiting_memory> target{"target"};
    waiting_memory(const sc_core::sc_module_name& n, const params& p);
    static void declare(type_decl<waiting_memory>& d);

private:
    void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
};

}  // namespace trainvp::test
