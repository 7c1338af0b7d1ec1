#include "tests/unit/host/nic_loopback.h"

#include "kit/registry.h"

namespace trainvp::test {

using sc_core::sc_time;

void nic_loopback::declare(type_decl<nic_loopback>& d) {
    d.describe("Test NIC between hosts: closed-form send timing, nic_msg_ext contract.");
    d.param("ports", &nic_loopback::m_ports, "2", "Hosts (node ids 0..ports-1)").range("1", "64");
    d.param("bandwidth", &nic_loopback::m_bandwidth, "10Gb/s", "Per-sender wire rate");
    d.param("latency", &nic_loopback::m_latency, "1us", "End of send to RECEIVED");
    d.param("timed", &nic_loopback::m_timed, "false",
            "Deliver notifications from a thread at their time (true) or at once with an "
            "annotated delay (false)");
    d.target("host", &nic_loopback::host, "nic", "SEND requests from host i");
    d.initiator("notify", &nic_loopback::notify, "nic", "SEND_DONE and RECEIVED to host i");
}

nic_loopback::nic_loopback(const sc_core::sc_module_name& n, const params& p) : ip_module(n, p) {
    p.apply(*this);
    host.init(static_cast<std::size_t>(m_ports));
    notify.init(static_cast<std::size_t>(m_ports));
    m_wire_until.assign(static_cast<std::size_t>(m_ports), sc_core::SC_ZERO_TIME);
    for (std::size_t i = 0; i < host.size(); ++i) {
        host[i].register_b_transport(this, &nic_loopback::b_transport, static_cast<int>(i));
    }
    spawn_thread("deliver", [this] { deliver(); });
}

void nic_loopback::b_transport(int port, tlm::tlm_generic_payload& trans, sc_time& delay) {
    nic_msg_ext* ext = nullptr;
    trans.get_extension(ext);
    if (ext == nullptr || ext->what != nic_msg_ext::op::SEND || ext->peer >= m_ports) {
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    const auto src = static_cast<std::size_t>(port);
    const sc_time posted = sc_core::sc_time_stamp() + delay;
    const sc_time start = std::max(posted, m_wire_until[src]);
    const sc_time end =
        start +
        sc_time(static_cast<double>(m_bandwidth.transfer_time(ext->bytes).ps), sc_core::SC_PS);
    m_wire_until[src] = end;
    const nic_msg_ext request = *ext;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);

    nic_msg_ext done = request;
    done.what = nic_msg_ext::op::SEND_DONE;
    send_note(src, done, end);
    nic_msg_ext received = request;
    received.what = nic_msg_ext::op::RECEIVED;
    received.peer = static_cast<std::uint32_t>(src);
    send_note(request.peer, received,
              end + sc_time(static_cast<double>(m_latency.ps), sc_core::SC_PS));
    progress_until(end + sc_time(static_cast<double>(m_latency.ps), sc_core::SC_PS));
}

void nic_loopback::send_note(std::size_t port, nic_msg_ext ext, const sc_time& at) {
    if (m_timed) {
        m_pending.emplace(at, note{port, ext});
        m_wake.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    tlm::tlm_generic_payload trans;
    trans.set_command(tlm::TLM_WRITE_COMMAND);
    trans.set_data_length(0);
    trans.set_extension(&ext);
    sc_time delay = at - sc_core::sc_time_stamp();
    notify[port]->b_transport(trans, delay);
    trans.clear_extension(&ext);
}

void nic_loopback::deliver() {
    while (true) {
        if (m_pending.empty()) {
            wait(m_wake);
            continue;
        }
        const sc_time at = m_pending.begin()->first;
        const sc_time now = sc_core::sc_time_stamp();
        if (at > now) {
            wait(at - now, m_wake);
            continue;
        }
        note n = m_pending.begin()->second;
        m_pending.erase(m_pending.begin());
        tlm::tlm_generic_payload trans;
        trans.set_command(tlm::TLM_WRITE_COMMAND);
        trans.set_data_length(0);
        trans.set_extension(&n.ext);
        sc_time delay = sc_core::SC_ZERO_TIME;
        notify[n.port]->b_transport(trans, delay);
        trans.clear_extension(&n.ext);
        progress();
    }
}

TRAINVP_REGISTER_IP(nic_loopback, "test.nic_loopback");

}  // namespace trainvp::test
