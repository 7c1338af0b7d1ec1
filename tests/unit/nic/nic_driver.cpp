#include "tests/unit/nic/nic_driver.h"

#include <cmath>
#include <cstring>

#include "kit/registry.h"

namespace trainvp::test {

nic_driver::nic_driver(const sc_core::sc_module_name& n, const params& p) : ip_module(n, p) {
    p.apply(*this);
    nic_notify.register_b_transport(this, &nic_driver::on_notify);
    spawn_thread("run", [this] { run(); });
}

void nic_driver::declare(type_decl<nic_driver>& d) {
    d.describe("Test driver posting sends to a NIC and counting notifications.");
    d.param("peer", &nic_driver::m_peer, "1", "destination node");
    d.param("messages", &nic_driver::m_messages, "1", "messages to send");
    d.param("bytes", &nic_driver::m_bytes, "1500B", "bytes per message");
    d.param("expect", &nic_driver::m_expect, "0", "messages expected to arrive");
    d.param("tos", &nic_driver::m_tos, "0", "ToS of the sends");
    d.param("data", &nic_driver::m_data, "false", "sends carry data_value(i) floats");
    d.initiator("nic", &nic_driver::nic, "nic", "sends");
    d.target("nic_notify", &nic_driver::nic_notify, "nic", "notifications");
    d.stat("sends_done", &nic_driver::sends_done, "1", "sends completed");
    d.stat("received", &nic_driver::received, "1", "messages received");
    d.stat("last_send_done", &nic_driver::last_send_done_ps, "ps", "time of the last SEND_DONE");
    d.stat("max_error", &nic_driver::max_error, "1", "largest |received - sent| value");
    d.stat("max_value", &nic_driver::max_value, "1", "largest |sent| value received");
    d.stat("data_bytes", &nic_driver::data_bytes, "B", "bytes of data received");
    d.stat("last_received", &nic_driver::last_received_ps, "ps", "time of the last RECEIVED");
}

void nic_driver::on_notify(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    nic_msg_ext* e = nullptr;
    t.get_extension(e);
    const double at = static_cast<double>((sc_core::sc_time_stamp() + delay).value());
    if (e->what == nic_msg_ext::op::SEND_DONE) {
        ++sends_done;
        last_send_done_ps.set(std::max(last_send_done_ps.value(), at));
    } else {
        ++received;
        if (e->data) {
            const std::vector<std::uint8_t>& v = *e->data;
            for (std::uint64_t i = 0; i + 4 <= v.size(); i += 4) {
                float f = 0.0f;
                std::memcpy(&f, v.data() + i, 4);
                const float x = data_value(i / 4);
                max_error.set(std::max(max_error.value(), std::fabs(double(f) - double(x))));
                max_value.set(std::max(max_value.value(), std::fabs(double(x))));
            }
            data_bytes += v.size();
        }
        last_received_ps.set(std::max(last_received_ps.value(), at));
    }
    progress_until(sc_core::sc_time_stamp() + delay);
    m_wake.notify(delay);
}

void nic_driver::run() {
    for (std::uint64_t i = 0; i < m_messages; ++i) {
        // The request lives only until b_transport returns: a run that stops while this thread
        // waits below never unwinds it (docs/status.md), and LeakSanitizer would see the payload.
        {
            nic_msg_ext e;
            e.what = nic_msg_ext::op::SEND;
            e.peer = static_cast<std::uint32_t>(m_peer);
            e.bytes = m_bytes.bytes;
            e.tos = static_cast<std::uint8_t>(m_tos);
            e.msg_id = i;
            e.host_addr = i * m_bytes.bytes;
            if (m_data) {
                e.data = std::make_shared<std::vector<std::uint8_t>>(m_bytes.bytes);
                for (std::uint64_t j = 0; j + 4 <= m_bytes.bytes; j += 4) {
                    const float x = data_value(j / 4);
                    std::memcpy(e.data->data() + j, &x, 4);
                }
            }
            tlm::tlm_generic_payload t;
            t.set_extension(&e);
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            nic->b_transport(t, d);
            t.clear_extension(&e);
        }
        while (sends_done.value() <= i) wait(m_wake);
    }
    while (received.value() < m_expect ||
           sc_core::sc_time_stamp().value() < last_received_ps.value()) {
        if (received.value() >= m_expect) {
            wait(sc_core::sc_time(
                last_received_ps.value() - static_cast<double>(sc_core::sc_time_stamp().value()),
                sc_core::SC_PS));
        } else {
            wait(m_wake);
        }
    }
    m_done = true;
    notify_finished();
}

float nic_driver::data_value(std::uint64_t i) {
    if (i % 7 == 3) return 0.0f;
    const double mag = std::ldexp(1.0 + static_cast<double>((i * 2654435761u) % 1000) / 1000.0,
                                  -static_cast<int>(i % 21));
    return static_cast<float>(i % 2 ? -mag : mag);
}

std::string nic_driver::pending_work() const {
    return std::to_string(sends_done.value()) + "/" + std::to_string(m_messages) + " sent, " +
           std::to_string(received.value()) + "/" + std::to_string(m_expect) + " received";
}

TRAINVP_REGISTER_IP(nic_driver, "test.nic_driver");

}  // namespace trainvp::test
