// Host DRAM as a TLM target: requests share one data channel of the given bandwidth
// (a resource busy until a time) and complete `latency` after their data has moved.
#pragma once

#include <array>

#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "kit/ip_module.h"
#include "kit/time_ordered_resource.h"
#include "traces/traced_level.h"

namespace trainvp::ip {

class memory : public ip_module {
public:
    // One socket per initiator (the CPU, each PCIe link); all share the data channel.
    sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<memory>> target{"target"};

    memory(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<memory>& d);

    std::string pending_work() const override;
    std::uint64_t address_space() const override { return m_size.bytes; }
    void end_of_run() override;

private:
    void b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

    units::bandwidth m_bandwidth;
    units::duration m_latency;
    sc_core::sc_time m_latency_time;  // m_latency
    // The transfer times of request sizes seen (a DMA's full and last bursts, its bulk
    // transfers, a host's chunks: a handful of sizes that recur), in a small direct-mapped
    // table: computing one costs a division, a rounding and a library call per request
    // otherwise.
    static constexpr std::size_t k_xfer_bits = 6;
    struct xfer_entry {
        std::uint64_t len = ~std::uint64_t{0};
        sc_core::sc_time time;
    };
    std::array<xfer_entry, std::size_t{1} << k_xfer_bits> m_xfer{};
    units::data_size m_size;
    std::uint64_t m_ports = 1;
    enum class order { CALL, TIME };
    order m_service_order = order::TIME;  // declare()'s default

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
