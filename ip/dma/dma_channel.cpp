#include "ip/dma/dma_channel.h"

#include <cmath>

#include <algorithm>

#include "kit/sim_time.h"

namespace trainvp {

namespace {
double ns_of(const sc_core::sc_time& t) { return static_cast<double>(t.value()) / 1000.0; }
}  // namespace

bool dma_channel::access(tlm::tlm_fw_transport_if<>& fw, tlm::tlm_generic_payload& trans,
                         tlm::tlm_command cmd, std::uint64_t addr, unsigned char* ptr,
                         std::uint64_t len, const sc_core::sc_time& issue, sc_core::sc_time& done,
                         result& r) {
    const sc_core::sc_time now = sim_now();
    trans.set_command(cmd);
    trans.set_address(addr);
    trans.set_data_ptr(ptr);
    trans.set_data_length(static_cast<unsigned>(len));
    trans.set_streaming_width(static_cast<unsigned>(len));
    trans.set_byte_enable_ptr(nullptr);
    trans.set_dmi_allowed(false);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = issue - now;
    fw.b_transport(trans, delay);
    if (trans.is_response_error()) {
        r.ok = false;
        r.error = trans.get_response_string();
        r.status = trans.get_response_status();
        return false;
    }
    done = now + delay;
    return true;
}

unsigned char* dma_channel::scratch(std::uint64_t bytes) {
    if (m_scratch_size < bytes) {
        // Not zero-filled: in timing mode no target touches it, so a large transfer costs
        // address space, not resident memory.
        m_scratch.reset(new unsigned char[static_cast<std::size_t>(bytes)]);
        m_scratch_size = bytes;
    }
    return m_scratch.get();
}

dma_channel::result dma_channel::run(tlm::tlm_fw_transport_if<>& fw, tlm::tlm_command cmd,
                                     std::uint64_t addr, std::uint64_t bytes,
                                     const sc_core::sc_time& start, unsigned char* data) {
    using sc_core::sc_time;
    result r;
    const sc_time now = sim_now();
    sc_time issue = std::max(start, now) + m_settings.setup;
    r.first_issue = issue;
    r.done = issue;
    const std::uint64_t burst = std::max<std::uint64_t>(1, m_settings.burst);
    const std::uint64_t window = std::max<std::uint64_t>(1, m_settings.outstanding);
    // Completions of the last `window` bursts, a ring: burst k's in slot k % window.
    std::vector<sc_time>& in_flight = m_in_flight;
    if (in_flight.size() < window) in_flight.resize(static_cast<std::size_t>(window));
    std::uint64_t k = 0;
    std::size_t slot = 0;  // k % window, kept without a division per burst
    tlm::tlm_generic_payload& trans = m_trans;
    unsigned char* const bounce = data == nullptr ? scratch(std::min(burst, bytes)) : nullptr;
    for (std::uint64_t off = 0; off < bytes; off += burst, ++k) {
        const std::uint64_t len = std::min(burst, bytes - off);
        if (k >= window) {
            // The next burst needs a free slot: it issues when the oldest one completes.
            issue = std::max(issue, in_flight[slot]);
        }
        if (m_settings.max_bytes_per_s > 0) {
            const auto paced = static_cast<std::uint64_t>(
                std::llround(static_cast<long double>(off) * 1e12L / m_settings.max_bytes_per_s));
            issue = std::max(issue, r.first_issue + ps_time(paced));
        }
        unsigned char* const ptr = data == nullptr ? bounce : data + off;
        sc_time done;
        if (!access(fw, trans, cmd, addr + off, ptr, len, issue, done, r)) return r;
        in_flight[slot] = done;
        if (++slot == window) slot = 0;
        r.done = std::max(r.done, done);
        ++bursts;
        bytes_moved += len;
        burst_latency_ns.sample(ns_of(done - issue));
    }
    return r;
}

dma_channel::result dma_channel::copy(tlm::tlm_fw_transport_if<>& src_fw, std::uint64_t src,
                                      tlm::tlm_fw_transport_if<>& dst_fw, std::uint64_t dst,
                                      std::uint64_t bytes, const sc_core::sc_time& start) {
    using sc_core::sc_time;
    result r;
    const sc_time now = sim_now();
    const sc_time first = std::max(start, now) + m_settings.setup;
    r.first_issue = first;
    r.done = first;
    if (bytes == 0) return r;
    const std::uint64_t burst = std::max<std::uint64_t>(1, m_settings.burst);
    const std::uint64_t window = std::max<std::uint64_t>(1, m_settings.outstanding);
    const std::uint64_t n = (bytes + burst - 1) / burst;
    // The burst buffer: burst k lives in slot k % window from its read until its write is done.
    const std::uint64_t buffer = burst * window;
    unsigned char* const buf = scratch(buffer);
    std::vector<sc_time> read_issue(static_cast<std::size_t>(window));
    std::vector<sc_time> read_done(static_cast<std::size_t>(window));
    std::vector<sc_time> write_done(static_cast<std::size_t>(window));
    tlm::tlm_generic_payload& trans = m_trans;
    std::uint64_t next_read = 0, next_write = 0;
    sc_time last_read = first, last_write = first;

    while (next_write < n) {
        // Read k needs its slot: the write of burst k - window must have been issued (its
        // completion frees the slot).  Write k needs read k's data.
        const bool can_read = next_read < n && next_read < next_write + window;
        const bool can_write = next_write < next_read;
        sc_time t_read, t_write;
        if (can_read) {
            t_read = last_read;
            if (next_read >= window) {
                t_read = std::max(t_read, write_done[(next_read - window) % window]);
            }
        }
        if (can_write) t_write = std::max(last_write, read_done[next_write % window]);
        // Call the target in issue-time order (reads first on a tie) so that a shared target
        // serves the two streams in the order they reach it.
        const bool do_read = can_read && (!can_write || t_read <= t_write);
        const std::uint64_t k = do_read ? next_read : next_write;
        const std::uint64_t off = k * burst;
        const std::uint64_t len = std::min(burst, bytes - off);
        unsigned char* slot = buf + (k % window) * burst;
        sc_time done;
        if (do_read) {
            if (!access(src_fw, trans, tlm::TLM_READ_COMMAND, src + off, slot, len, t_read, done,
                        r)) {
                return r;
            }
            read_issue[k % window] = t_read;
            read_done[k % window] = done;
            last_read = t_read;
            ++next_read;
        } else {
            if (!access(dst_fw, trans, tlm::TLM_WRITE_COMMAND, dst + off, slot, len, t_write, done,
                        r)) {
                return r;
            }
            write_done[k % window] = done;
            last_write = t_write;
            r.done = std::max(r.done, done);
            ++next_write;
            ++bursts;
            bytes_moved += len;
            burst_latency_ns.sample(ns_of(done - read_issue[k % window]));
        }
    }
    return r;
}

}  // namespace trainvp
