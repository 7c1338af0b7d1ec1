#include "ip/traffic/traffic_generator.h"

#include <tlm_utils/tlm_quantumkeeper.h>

#include <algorithm>
#include <vector>

#include "kit/registry.h"
#include "kit/sim_time.h"

namespace trainvp::ip {

void traffic_generator::declare(type_decl<traffic_generator>& d) {
    d.describe(
        "Traffic generator: sends `messages` messages of `message_size` bytes through `out`. "
        "Message i is issued at max(issue of i-1 + message_size/rate, completion of "
        "i-outstanding), using loosely-timed transport with the global quantum.");
    d.required("message_size", &traffic_generator::m_message_size, "Bytes per message")
        .range("1B", "4GiB");
    d.param("messages", &traffic_generator::m_messages, "1", "Messages to send").range("0", "2^40");
    d.param("rate", &traffic_generator::m_rate, "0b/s",
            "Issue rate; 0b/s issues as fast as `outstanding` allows")
        .range("0b/s", "10Tb/s");
    d.param("outstanding", &traffic_generator::m_outstanding, "0",
            "Messages in flight at most; 0 means no limit (posted writes)")
        .range("0", "2^20");
    d.choice("command", &traffic_generator::m_command,
             {{"write", command::WRITE}, {"read", command::READ}}, "write", "Request kind");
    d.param("address", &traffic_generator::m_address, "0B",
            "Address of the first message (the messages must fit in the target's memory: "
            "checked)")
        .range("0B", "16TiB");
    d.param("region", &traffic_generator::m_region, "1GiB",
            "Messages walk through [address, address+region) and wrap")
        .range("1B", "16TiB");
    d.param("start", &traffic_generator::m_start, "0ns", "Time of the first issue")
        .range("0s", "1e6s");
    d.initiator("out", &traffic_generator::out, "mem", "Requests to a memory-mapped target");
    d.stat("messages", &traffic_generator::m_sent_messages, "1", "Messages completed");
    d.stat("bytes", &traffic_generator::m_bytes, "B", "Bytes completed");
    d.stat("latency", &traffic_generator::m_latency_ns, "ns",
           "Issue-to-completion time per message");
    d.headline("completion_time", &traffic_generator::m_completion_ns, "ns",
               "Time the last message completed");
    d.headline("throughput", &traffic_generator::m_throughput, "B/s",
               "bytes / (last completion - first issue)");
    d.signal("in_flight", &traffic_generator::m_in_flight, "Messages issued and not complete");
}

traffic_generator::traffic_generator(const sc_core::sc_module_name& name, const params& p)
    : ip_module(name, p) {
    p.apply(*this);
    if (m_region.bytes < m_message_size.bytes) {
        throw input_error(p.where(), path() + ".region", "region is smaller than message_size");
    }
    const config_node* a = p.find("address");
    m_address_loc = a != nullptr ? a->loc() : p.where();
    spawn_thread("run", [this] { run(); });
}

void traffic_generator::validate_peers(const peer_view& peers) const {
    std::string via;
    const ip_module* target = peers.memory_behind(*this, "out", &via);
    const std::uint64_t space = target == nullptr ? 0 : target->address_space();
    if (space == 0 || m_messages == 0) return;
    const std::uint64_t size = m_message_size.bytes;
    const std::uint64_t used = std::min<std::uint64_t>(m_region.bytes / size, m_messages) * size;
    const std::uint64_t end = m_address.bytes + used;
    if (end <= space) return;
    throw input_error(m_address_loc, path() + ".address",
                      "the messages reach address " + std::to_string(end - 1) + ", beyond " +
                          target->path() + " (the memory " + path() + ".out reaches" +
                          (via.empty() ? "" : " through " + via) + "), which holds " +
                          std::to_string(space) + " B (addresses 0.." + std::to_string(space - 1) +
                          ")");
}

void traffic_generator::run() {
    using sc_core::sc_time;
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    const sc_time start = ps_time(m_start.ps);
    if (start > sc_core::SC_ZERO_TIME) wait(start);
    const sc_time gap = ps_time(m_rate.transfer_time(m_message_size.bytes).ps);
    const std::uint64_t size = m_message_size.bytes;
    const std::uint64_t slots = m_region.bytes / size;
    // A buffer of the full message size: a functional target may read or write all of it.  It
    // and the completion window are members: a thread still suspended when a run stops (at
    // max_time) is never unwound, and what its stack owned would leak.
    m_data.assign(static_cast<std::size_t>(size), 0);
    std::vector<unsigned char>& data = m_data;
    std::deque<sc_time>& completions = m_completions;  // of the last `outstanding` messages
    completions.clear();
    sc_time issue = start;
    m_first_issue = start;
    m_last_completion = start;

    for (std::uint64_t i = 0; i < m_messages; ++i) {
        if (i > 0) issue = issue + gap;
        if (m_outstanding > 0 && completions.size() == m_outstanding) {
            if (completions.front() > issue) issue = completions.front();
            completions.pop_front();
        }
        const sc_time now = sim_now();
        qk.set(issue > now ? issue - now : sc_core::SC_ZERO_TIME);
        // Waiting for a paced issue time is scheduled work, not a stall.
        progress_until(issue);
        if (qk.need_sync()) qk.sync();

        tlm::tlm_generic_payload trans;
        trans.set_command(m_command == command::WRITE ? tlm::TLM_WRITE_COMMAND
                                                      : tlm::TLM_READ_COMMAND);
        trans.set_address(m_address.bytes + (i % slots) * size);
        trans.set_data_ptr(data.data());
        trans.set_data_length(static_cast<unsigned>(size));
        trans.set_streaming_width(static_cast<unsigned>(size));
        trans.set_byte_enable_ptr(nullptr);
        trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time delay = qk.get_local_time();
        out->b_transport(trans, delay);
        if (trans.is_response_error()) {
            throw sim_error(path() + ": message " + std::to_string(i) +
                            " failed: " + trans.get_response_string());
        }
        const sc_time done = sim_now() + delay;
        m_in_flight.change_at(issue, +1);
        m_in_flight.change_at(done, -1);
        m_latency_ns.sample(ns(done - issue));
        ++m_sent_messages;
        m_bytes += size;
        if (done > m_last_completion) m_last_completion = done;
        completions.push_back(done);
        if (m_outstanding == 0) completions.clear();
        span("msg " + std::to_string(i), "traffic", issue, done);
        ++m_completed;
        progress();
    }
    // Finish at the time the last message completes, not when it was issued.
    const sc_time now = sim_now();
    if (m_last_completion > now) wait(m_last_completion - now);
    m_finished = true;
    m_completion_ns.set(ns(m_last_completion));
    notify_finished();
}

std::string traffic_generator::pending_work() const {
    if (m_finished) return {};
    return std::to_string(m_messages - m_completed) + " of " + std::to_string(m_messages) +
           " messages not complete";
}

void traffic_generator::end_of_run() {
    const double t = (m_last_completion - m_first_issue).to_seconds();
    m_throughput.set(t > 0 ? static_cast<double>(m_bytes.value()) / t : 0.0);
}

TRAINVP_REGISTER_IP(traffic_generator, "traffic.generator");

}  // namespace trainvp::ip
