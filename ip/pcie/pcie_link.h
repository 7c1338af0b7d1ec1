// pcie.link: one PCI Express link between a device (its DMA engines) and the root complex with
// host memory behind it.  The device's reads and writes arrive on `dev` and are cut into TLPs:
// a write into ceil(L/max_payload) posted MWr TLPs upstream; a read into ceil(L/
// max_read_request) MRd request TLPs upstream and, per request, ceil(len/max_payload)
// completion TLPs downstream.  Each direction is a timed_resource at the link's effective raw
// rate; a TLP also waits for a flow-control credit (credits TLPs in flight per direction, a
// credit returning one latency after its TLP arrived).  Requests reach host memory through
// `host` with the time the TLP carrying them arrived.
#pragma once

#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "kit/ip_module.h"
#include "kit/time_ordered_resource.h"
#include "kit/timed_resource.h"
#include "traces/traced_level.h"

namespace trainvp::ip {

class pcie_link : public ip_module {
public:
    tlm_utils::simple_target_socket<pcie_link> dev{"dev"};
    tlm_utils::simple_initiator_socket<pcie_link> host{"host"};

    pcie_link(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<pcie_link>& d);

    std::string pending_work() const override;
    void end_of_run() override;
    const char* passes_requests_to() const override { return "host"; }

    // Raw data rate after line encoding, bytes per second: lanes * GT/s * efficiency / 8.
    double effective_raw_rate() const { return m_rate; }
    // dev: the data rate of max_payload-sized request TLPs (the DLLP share aside).
    double socket_rate(const std::string& socket) const override;
    // Time a TLP of `payload` data bytes and `overhead` framing/header bytes occupies its
    // direction (the amortised DLLP bytes included), rounded to the picosecond.
    sc_core::sc_time tlp_time(std::uint64_t payload, std::uint64_t overhead) const;

private:
    struct credit_hold {
        sc_core::sc_time start, back;  // a TLP's start on the wire and its credit's return
    };
    // One direction of the link: the wire, the credits, and its statistics.
    struct direction {
        timed_resource wire;                      // service_order: call
        time_ordered_resource timed;              // service_order: time
        sc_core::sc_time last_ready, last_start;  // time order: the previous TLP's
        std::vector<credit_hold> holds;           // time order: by start, credits not yet returned
        std::vector<sc_core::sc_time> credit_back;  // ring: when each in-flight credit returns
        std::uint64_t sent = 0;                     // TLPs ever sent (ring index)
        counter tlps, payload, wire_bytes, credit_stalls;
        scalar busy_ns, credit_stall_ns, efficiency, utilisation;
    };

    void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    // Sends one TLP ready at `ready`; returns its arrival at the far end.
    sc_core::sc_time send(direction& dir, std::uint64_t payload, std::uint64_t overhead,
                          const sc_core::sc_time& ready);
    // service_order: time; returns when the TLP's last byte left.
    sc_core::sc_time send_by_time(direction& dir, const sc_core::sc_time& duration,
                                  const sc_core::sc_time& ready);
    // One access to host memory arriving at `at`; returns its completion, or false.
    bool host_access(tlm::tlm_generic_payload& orig, tlm::tlm_command cmd, std::uint64_t offset,
                     std::uint64_t len, const sc_core::sc_time& at, sc_core::sc_time& done);
    void check_params(const params& p);

    // params
    std::uint64_t m_gen = 0;
    std::uint64_t m_lanes = 0;
    units::data_size m_max_payload;
    units::data_size m_max_read_request;
    units::data_size m_tlp_overhead;
    units::data_size m_completion_overhead;
    units::data_size m_dllp_overhead;
    units::duration m_latency;
    std::uint64_t m_credits = 0;
    enum class order { CALL, TIME };
    order m_service_order = order::TIME;  // declare()'s default
    bool m_credits_can_bind = true;       // time order: whether credits may ever bind

    double m_rate = 0.0;  // bytes/s after encoding
    sc_core::sc_time m_lat;
    direction m_up, m_down;
    tlm::tlm_generic_payload m_fwd;  // the host-side transaction, reused
    sc_core::sc_time m_last_done = sc_core::SC_ZERO_TIME;

    counter m_writes, m_reads, m_bytes_written, m_bytes_read, m_errors;
    distribution m_write_latency_ns, m_read_latency_ns;
};

}  // namespace trainvp::ip
