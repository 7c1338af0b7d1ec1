#include "ip/dma/dma_engine.h"

#include <algorithm>

#include "kit/registry.h"
#include "kit/sim_time.h"

namespace trainvp::ip {

void dma_engine::declare(type_decl<dma_engine>& d) {
    d.describe(
        "Memory-to-memory DMA engine. A descriptor (dma_desc_ext: src, dst, bytes) on `ctrl` "
        "is answered when its copy completes. Descriptor i is accepted at max(submit, "
        "completion of descriptor i - queue_depth) (back-pressure), set up for `setup` (one "
        "at a time, overlapping the previous data phase), and its data phase starts at "
        "max(set-up done, previous data phase done). The copy reads `burst`-byte bursts from "
        "src and writes them to dst through `outstanding` burst buffers: read k+outstanding "
        "waits for write k. Against one memory of bandwidth BW and latency L, a copy of B bytes "
        "with enough buffers takes 2B/BW + L; with one buffer n*2(burst/BW + L).");
    d.param("burst", &dma_engine::m_burst, "256B",
            "Bytes per read or write burst (default: the common PCIe max payload, PCI Express "
            "Base Specification rev 3.0 §7.8.4, so copies over a pcie.link map to whole TLPs)")
        .range("1B", "16MiB");
    d.param("outstanding", &dma_engine::m_outstanding, "8",
            "Burst buffers: bursts read and not yet written back (bounds read/write overlap)")
        .range("1", "65536");
    d.param("queue_depth", &dma_engine::m_queue_depth, "16",
            "Descriptors the engine holds (queued and in progress); a further descriptor is "
            "accepted only when the oldest completes")
        .range("1", "65536");
    d.param("setup", &dma_engine::m_setup, "100ns",
            "Descriptor fetch and decode per descriptor (default: one descriptor read from "
            "DRAM, ~80 ns load-to-use as the memory block's default, plus a few engine cycles)")
        .range("0ns", "1ms");
    d.target("ctrl", &dma_engine::ctrl, "dma",
             "Descriptors (dma_desc_ext); the annotated delay returns the completion");
    d.initiator("mem", &dma_engine::mem, "mem", "Reads from src and writes to dst");
    d.stat("descriptors", &dma_engine::m_descriptors, "1", "Descriptors completed");
    d.stat("bytes", &dma_engine::m_bytes, "B", "Bytes copied");
    d.stat("errors", &dma_engine::m_errors, "1",
           "Descriptors that failed (missing descriptor or an error response from `mem`)");
    d.stat("queue_depth", &dma_engine::m_queue_dist, "1",
           "Descriptors in the engine when one is accepted (including it)");
    d.stat("held", &dma_engine::m_held_ns, "ns",
           "Back-pressure: time a descriptor waited for a free queue slot");
    d.stat("latency", &dma_engine::m_latency_ns, "ns", "Submit-to-completion time per descriptor");
    d.stat("busy_time", &dma_engine::m_busy_ns, "ns", "Time a data phase was in progress");
    d.headline("utilisation", &dma_engine::m_utilisation, "1",
               "busy_time / simulated time of the run");
    d.stat_of(
        "bursts", [](const dma_engine& e) -> const counter& { return e.m_channel.bursts; }, "1",
        "Bursts copied (one read and its write)");
    d.stat_of(
        "burst_latency",
        [](const dma_engine& e) -> const distribution& { return e.m_channel.burst_latency_ns; },
        "ns", "Read issue to write completion per burst");
    d.signal_of(
        "busy", [](dma_engine& e) -> traced_level& { return e.m_data.busy_signal(); },
        "1 while a descriptor's data phase is in progress");
    d.signal("queue", &dma_engine::m_queue, "Descriptors in the engine (queued or in progress)");
}

dma_engine::dma_engine(const sc_core::sc_module_name& name, const params& p) : ip_module(name, p) {
    p.apply(*this);
    dma_channel::settings s;
    s.burst = m_burst.bytes;
    s.outstanding = m_outstanding;
    s.setup = sc_core::SC_ZERO_TIME;  // the engine's own set-up stage accounts for it
    m_channel.configure(s);
    ctrl.register_b_transport(this, &dma_engine::b_transport);
}

void dma_engine::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    using sc_core::sc_time;
    dma_desc_ext* desc = nullptr;
    trans.get_extension(desc);
    if (desc == nullptr) {
        ++m_errors;
        trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    const sc_time now = sim_now();
    const sc_time submit = now + delay;

    // Back-pressure: descriptors leave the engine when they complete (in order, since data
    // phases are sequential).  With queue_depth of them still inside, this one is accepted
    // when the oldest that keeps it out completes.
    while (!m_active.empty() && m_active.front() <= submit) m_active.pop_front();
    sc_time accept = std::max(submit, m_last_accept);
    if (m_active.size() >= m_queue_depth) {
        accept = std::max(accept, m_active[m_active.size() - m_queue_depth]);
    }
    while (!m_active.empty() && m_active.front() <= accept) m_active.pop_front();
    m_last_accept = accept;

    const sc_time setup_time = ps_time(m_setup.ps);
    const timed_resource::slot set_up = m_setup_unit.reserve(accept, setup_time);
    // Data phases do not overlap: the engine completes (and reports) a descriptor before it
    // moves the next one's data, so completions stay in order.
    const sc_time data_start = std::max(set_up.end, m_data.busy_until());

    dma_channel::result r = m_channel.copy(*mem.operator->(), desc->src, *mem.operator->(),
                                           desc->dst, desc->bytes, data_start);
    if (!r.ok) {
        ++m_errors;
        trans.set_response_status(r.status);
        return;
    }
    const sc_time done = std::max(r.done, data_start);
    const timed_resource::slot data = m_data.reserve(data_start, done - data_start);
    m_active.push_back(done);
    if (done > m_last_done) m_last_done = done;

    m_queue_dist.sample(static_cast<double>(m_active.size()));
    m_held_ns.sample(ns(accept - submit));
    m_latency_ns.sample(ns(done - submit));
    m_busy_ns.add(ns(data.end - data.start));
    ++m_descriptors;
    m_bytes += desc->bytes;
    m_queue.change_at(accept, +1);
    m_queue.change_at(done, -1);
    if (spans_on()) span("copy " + std::to_string(desc->bytes) + " B", "dma", data_start, done);

    desc->accepted = accept;
    desc->data_start = data_start;
    desc->done = done;
    delay = done - now;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    progress_until(done);
}

std::string dma_engine::pending_work() const {
    if (m_last_done <= sim_now()) return {};
    return "descriptors in progress until " + m_last_done.to_string();
}

void dma_engine::end_of_run() {
    const double t = ns(sim_now());
    m_utilisation.set(resource_usage::busy_fraction(m_busy_ns.value(), ns(m_data.busy_until()), t));
}

TRAINVP_REGISTER_IP(dma_engine, "dma.engine");

}  // namespace trainvp::ip
