#include "ip/dma/dma_channel.h"

#include <algorithm>
#include <vector>

namespace trainvp {

dma_channel::result dma_channel::run(tlm::tlm_fw_transport_if<>& fw, tlm::tlm_command cmd,
                                     std::uint64_t addr, std::uint64_t bytes,
                                     const sc_core::sc_time& start, unsigned char* data) {
    using sc_core::sc_time;
    result r;
    const sc_time now = sc_core::sc_time_stamp();
    sc_time issue = std::max(start, now) + m_settings.setup;
    r.first_issue = issue;
    r.done = issue;
    const std::uint64_t burst = std::max<std::uint64_t>(1, m_settings.burst);
    const std::uint64_t window = std::max<std::uint64_t>(1, m_settings.outstanding);
    std::deque<sc_time> in_flight;  // completion times of the last `window` bursts
    std::vector<unsigned char> scratch;
    tlm::tlm_generic_payload trans;
    for (std::uint64_t off = 0; off < bytes; off += burst) {
        const std::uint64_t len = std::min(burst, bytes - off);
        if (in_flight.size() == window) {
            // The next burst needs a free slot: it issues when the oldest one completes.
            issue = std::max(issue, in_flight.front());
            in_flight.pop_front();
        }
        unsigned char* ptr = data;
        if (ptr == nullptr) {
            if (scratch.size() < len) scratch.resize(static_cast<std::size_t>(len));
            ptr = scratch.data();
        } else {
            ptr += off;
        }
        trans.set_command(cmd);
        trans.set_address(addr + off);
        trans.set_data_ptr(ptr);
        trans.set_data_length(static_cast<unsigned>(len));
        trans.set_streaming_width(static_cast<unsigned>(len));
        trans.set_byte_enable_ptr(nullptr);
        trans.set_dmi_allowed(false);
        trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time delay = issue - now;
        fw.b_transport(trans, delay);
        if (trans.is_response_error()) {
            r.ok = false;
            r.error = trans.get_response_string();
            return r;
        }
        const sc_time done = now + delay;
        in_flight.push_back(done);
        r.done = std::max(r.done, done);
        ++bursts;
        bytes_moved += len;
        burst_latency_ns.sample(static_cast<double>((done - issue).value()) / 1000.0);
    }
    return r;
}

}  // namespace trainvp
