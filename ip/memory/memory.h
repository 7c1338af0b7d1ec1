// Host DRAM as a TLM target: requests share one data channel of the given bandwidth
// (a resource busy until a time) and complete `latency` after their data has moved.
#pragma once

#include <array>

#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "platform/ip_module.h"
#include "platform/time_ordered_resource.h"
#include "traces/traced_level.h"

namespace trainvp::ip {

class memory : public ip_module {
public:
    // One socket per initiator (the CPU, each PCIe link); all share the data channel.
    sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<memory>> target{"target"};

    memory(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<memory>& d);

    std::string pending_work() const override;
    void end_of_run() override;

private:
    void b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

    units::bandwidth m_bandwidth;
    units::duration m_latency;
    sc_core::sc_time m_latency_time;  // m_latency
    // The transfer times of the last two request sizes (a DMA's bursts and its bulk transfers,
    // a host's chunks): computing one costs a division and a rounding per request otherwise.
    std::array<std::uint64_t, 2> m_xfer_len{~std::uint64_t{0}, ~std::uint64_t{0}};
    std::array<sc_core::sc_time, 2> m_xfer_time{};
    std::size_t m_xfer_next = 0;  // the entry a new size replaces
    units::data_size m_size;
    std::uint64_t m_ports = 1;
    enum class order { CALL, TIME };
    order m_order = order::TIME;  // declare()'s default

    sc_core::sc_time m_busy_until = sc_core::SC_ZERO_TIME;
    time_ordered_resource m_channel;  // service_order: time
    sc_core::sc_time m_last_done = sc_core::SC_ZERO_TIME;

    counter m_reads, m_writes, m_bytes_read, m_bytes_written, m_errors;
    std::vector<counter> m_port_bytes;
    scalar m_busy_ns, m_utilisation;
    distribution m_queue_ns;
    traced_level m_busy{traced_level::style::FLAG};
    traced_level m_queue;
};

}  // namespace trainvp::ip
