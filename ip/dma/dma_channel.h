// A DMA channel as blocks embed it (the NIC's packet DMA, the GPU's copy engine, the dma.engine
// IP): moves a buffer through a memory-mapped initiator socket as bursts of at most `burst`
// bytes with at most `outstanding` bursts in flight.  Loosely timed: it computes each burst's
// issue and completion time from the target's annotated delays and never waits, so the caller
// (a thread) decides when to synchronise.
#pragma once

#include <cstdint>
#include <deque>

#include <tlm>

#include "platform/units.h"
#include "traces/stat.h"

namespace trainvp {

class dma_channel {
public:
    struct settings {
        std::uint64_t burst = 256;      // bytes per burst (a PCIe max payload, an AXI burst)
        std::uint64_t outstanding = 8;  // bursts in flight at most (>= 1)
        sc_core::sc_time setup;         // descriptor fetch and set-up before the first burst
    };

    struct result {
        sc_core::sc_time first_issue;
        sc_core::sc_time done;  // completion of the last burst
        bool ok = true;
        std::string error;  // the target's response when !ok
    };

    dma_channel() = default;
    explicit dma_channel(const settings& s) : m_settings(s) {}
    void configure(const settings& s) { m_settings = s; }
    const settings& config() const { return m_settings; }

    // Reads (TLM_READ_COMMAND) or writes `bytes` at `addr` through `fw`, the first burst issued
    // no earlier than `start` (absolute simulated time, >= now).  `data` is the local buffer in
    // functional mode (may be null in timing mode).
    result run(tlm::tlm_fw_transport_if<>& fw, tlm::tlm_command cmd, std::uint64_t addr,
               std::uint64_t bytes, const sc_core::sc_time& start, unsigned char* data = nullptr);

    // Statistics the embedding block declares as its own.
    counter bursts;
    counter bytes_moved;
    distribution burst_latency_ns;  // issue to completion per burst

private:
    settings m_settings;
};

}  // namespace trainvp
