// A DMA channel as blocks embed it (the NIC's packet DMA, the GPU's copy engine, the dma.engine
// IP): moves a buffer through a memory-mapped initiator socket as bursts of at most `burst`
// bytes with at most `outstanding` bursts in flight.  Loosely timed: it computes each burst's
// issue and completion time from the target's annotated delays and never waits, so the caller
// (a thread) decides when to synchronise.
//
// Timing of run(): burst k issues at max(first issue, completion of burst k - outstanding);
// bursts in the window issue together and the target serialises them.  So against a target
// that answers a burst of b bytes after b/BW + L (a memory channel), throughput is
// min(BW, outstanding * b / (b/BW + L)): latency-bound when the window is small.
//
// copy() reads each burst from a source and writes it to a destination through a ring buffer
// of `outstanding` bursts: reads of later bursts overlap writes of earlier ones; a slot frees when
// its write completes.  Target calls are made in the order of their issue times so that a shared
// target (one memory for both ends) serves them in time order.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <tlm>

#include "core/units.h"
#include "traces/stat.h"

namespace trainvp {

class dma_channel {
public:
    struct settings {
        std::uint64_t burst = 256;      // bytes per burst (a PCIe max payload, an AXI burst)
        std::uint64_t outstanding = 8;  // bursts in flight at most (>= 1)
        sc_core::sc_time setup;         // descriptor fetch and set-up before the first burst
        // Sustained rate of the engine in bytes/s (0: only the window and the path limit it):
        // burst k issues no earlier than k x burst / rate after the first.  Models an engine
        // slower than its path, e.g. CUDA's staged copies of pageable host memory.
        double max_bytes_per_s = 0.0;
    };

    struct result {
        sc_core::sc_time first_issue;
        sc_core::sc_time done;  // completion of the last burst
        bool ok = true;
        std::string error;                                       // the target's response when !ok
        tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;  // the failing response
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

    // Copies `bytes` from `src` (read through `src_fw`) to `dst` (written through `dst_fw`; may
    // be the same interface), the first read issued no earlier than `start` + setup.  The data
    // passes through the channel's burst buffer, so a copy between targets that hold real data
    // is functionally exact.  `done` is the completion of the last write.
    result copy(tlm::tlm_fw_transport_if<>& src_fw, std::uint64_t src,
                tlm::tlm_fw_transport_if<>& dst_fw, std::uint64_t dst, std::uint64_t bytes,
                const sc_core::sc_time& start);

    // Statistics the embedding block declares as its own.  For copy(), a burst is one read and
    // its write, bytes_moved counts bytes copied, and the latency runs from the read's issue to
    // the write's completion.
    counter bursts;
    counter bytes_moved;
    distribution burst_latency_ns;  // issue to completion per burst

private:
    // One target access at `issue`: sets `done`, or returns false with r.error and r.status set.
    static bool access(tlm::tlm_fw_transport_if<>& fw, tlm::tlm_generic_payload& trans,
                       tlm::tlm_command cmd, std::uint64_t addr, unsigned char* ptr,
                       std::uint64_t len, const sc_core::sc_time& issue, sc_core::sc_time& done,
                       result& r);

    settings m_settings;
    // The timing-mode data and the copy() burst buffer, at least `bytes` long.
    unsigned char* scratch(std::uint64_t bytes);
    std::unique_ptr<unsigned char[]> m_scratch;
    std::uint64_t m_scratch_size = 0;
    // Reused by every run() and copy() (they never wait, so one transfer at a time): no
    // allocation per transfer, which a message-level run makes millions of.
    tlm::tlm_generic_payload m_trans;
    std::vector<sc_core::sc_time> m_in_flight;
};

}  // namespace trainvp
