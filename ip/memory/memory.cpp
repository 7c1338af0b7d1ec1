#include "ip/memory/memory.h"

#include "kit/registry.h"
#include "kit/sim_time.h"

namespace trainvp::ip {

void memory::declare(type_decl<memory>& d) {
    d.describe(
        "Host DRAM target. Requests share one data channel: a request starts when it arrives "
        "and the channel is free, occupies it for size/bandwidth, and completes `latency` "
        "later. So N back-to-back requests of S bytes complete at latency + N*S/bandwidth.");
    d.param("bandwidth", &memory::m_bandwidth, "25.6GB/s",
            "Sustained bandwidth of the data channel (default: one DDR4-3200 channel, "
            "3200 MT/s x 8 B, JEDEC JESD79-4)")
        .range("1MB/s", "10TB/s");
    d.param("latency", &memory::m_latency, "80ns",
            "Access latency added after a request's data has moved (default: typical DDR4 "
            "load-to-use latency of a server CPU)")
        .range("0ns", "1ms");
    d.param("size", &memory::m_size, "16GiB", "Capacity; an access beyond it is an error")
        .range("1KiB", "16TiB");
    d.param("ports", &memory::m_ports, "1",
            "Target sockets (one per initiator: CPU, PCIe links); they share the data channel")
        .range("1", "64");
    d.choice("service_order", &memory::m_service_order,
             {{"call", order::CALL}, {"time", order::TIME}}, "time",
             "Order in which the data channel serves requests. time (default): in arrival-time "
             "order, each request taking the idle time at and after its arrival around earlier "
             "reservations, split over idle gaps if need be (kit/time_ordered_resource.h), "
             "as a DRAM controller serves the requests that have reached it (JEDEC JESD79-4 "
             "has no notion of requests not yet issued). call: in the order they are made (FIFO "
             "behind every earlier reservation; a request arriving now waits behind one "
             "reserved for later), a loosely-timed artefact (issue 8). Equal when requests are "
             "made in time order; the smart-NIC baseline's software costs are calibrated with "
             "time order (configs/papers/smartnic/nodes.yaml); see ip/pcie/README.md, 'Service "
             "order'");
    d.target("target", &memory::target, "mem", "Read and write requests, one socket per initiator");
    d.stat("reads", &memory::m_reads, "1", "Read requests served");
    d.stat("writes", &memory::m_writes, "1", "Write requests served");
    d.stat("bytes_read", &memory::m_bytes_read, "B", "Bytes read");
    d.stat("bytes_written", &memory::m_bytes_written, "B", "Bytes written");
    d.stat("port_bytes", &memory::m_port_bytes, "B", "Bytes read or written through each socket");
    d.stat("address_errors", &memory::m_errors, "1",
           "Requests beyond `size`, answered with an "
           "address error");
    d.stat("busy_time", &memory::m_busy_ns, "ns", "Time the data channel was moving data");
    d.headline("utilisation", &memory::m_utilisation, "1", "busy_time / simulated time of the run");
    d.stat("queue_delay", &memory::m_queue_ns, "ns", "Time a request waited for the data channel");
    d.signal_of(
        "busy",
        [](memory& m) -> traced_level& {
            return m.m_service_order == order::TIME ? m.m_channel.busy_signal() : m.m_busy;
        },
        "1 while the data channel moves data");
    d.signal("queue", &memory::m_queue, "Requests waiting for or using the data channel");
}

memory::memory(const sc_core::sc_module_name& name, const params& p) : ip_module(name, p) {
    p.apply(*this);
    m_latency_time = ps_time(m_latency.ps);
    target.init(static_cast<std::size_t>(m_ports));
    m_port_bytes.resize(static_cast<std::size_t>(m_ports));
    for (std::size_t i = 0; i < target.size(); ++i) {
        target[i].register_b_transport(this, &memory::b_transport, static_cast<int>(i));
    }
}

void memory::b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    const sc_core::sc_time now = sim_now();
    const sc_core::sc_time arrival = now + delay;
    const std::uint64_t len = trans.get_data_length();
    if (trans.get_address() + len > m_size.bytes || trans.get_address() + len < len) {
        ++m_errors;
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    // Requests mostly come in a few sizes (DMA bursts, memory chunks): their times are kept,
    // the entry picked by a hash of the size (mixed, so that powers of two spread).
    std::uint64_t h = len ^ (len >> 33);
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    xfer_entry& e = m_xfer[h & (m_xfer.size() - 1)];
    if (e.len != len) {
        e.len = len;
        e.time = ps_time(m_bandwidth.transfer_time(len).ps);
    }
    const sc_core::sc_time xfer = e.time;
    sc_core::sc_time start, end;
    if (m_service_order == order::TIME) {
        const time_ordered_resource::slot s = m_channel.reserve(arrival, xfer, now);
        start = s.start;
        end = s.end;
    } else {
        start = arrival > m_busy_until ? arrival : m_busy_until;
        end = start + xfer;
        m_busy.busy(start, end);
    }
    if (end > m_busy_until) m_busy_until = end;
    const sc_core::sc_time done = end + m_latency_time;
    if (done > m_last_done) m_last_done = done;

    m_port_bytes[static_cast<std::size_t>(port)] += len;
    if (trans.is_write()) {
        ++m_writes;
        m_bytes_written += len;
    } else {
        ++m_reads;
        m_bytes_read += len;
    }
    m_busy_ns.add(ns(xfer));
    m_queue_ns.sample(ns(start - arrival));
    m_queue.change_at(arrival, +1);
    m_queue.change_at(end, -1);

    delay = done - now;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    progress_until(done);
}

std::string memory::pending_work() const {
    if (m_last_done <= sim_now()) return {};
    return "requests in flight until " + m_last_done.to_string();
}

void memory::end_of_run() {
    const double t = ns(sim_now());
    m_utilisation.set(resource_usage::busy_fraction(m_busy_ns.value(), ns(m_busy_until), t));
}

TRAINVP_REGISTER_IP(memory, "memory");

}  // namespace trainvp::ip
