#include "ip/host/comm_stack.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace trainvp::ip {

void comm_stack_params::declare(param_list<comm_stack_params>& d) {
    d.param("threads", &comm_stack_params::threads, "0",
            "Progress threads that drive the host's sends and receives; 0 = the host's "
            "comm_cores, or 1 when it has none (smartnic.md §III: \"one thread triggers an "
            "asynchronous all-reduce\" in the naive implementation, 2 dedicated cores in the "
            "overlapped one)")
        .range("0", "4096");
    d.param("send_overhead", &comm_stack_params::send_overhead, "0ns",
            "Software time per send before the message is handed on (the MPI call and the "
            "syscall); the sending unit is busy for it, and it does not overlap the transfer")
        .range("0ns", "1s");
    d.param("recv_overhead", &comm_stack_params::recv_overhead, "0ns",
            "Software time per receive (posting and matching); a receive completes no earlier "
            "than its start plus this")
        .range("0ns", "1s");
    d.param("send_rate", &comm_stack_params::send_rate, "0Gb/s",
            "Payload bytes per second one progress thread hands to the NIC through the stack "
            "(copies into socket buffers, segmentation), pipelined with the wire: the NIC "
            "streams the message no faster; the thread is busy bytes / send_rate. 0 = free")
        .range("0Gb/s", "10Tb/s");
    d.param("recv_rate", &comm_stack_params::recv_rate, "0Gb/s",
            "Payload bytes per second one progress thread takes from the NIC through the stack "
            "(interrupt and softirq protocol work, the copy to the user buffer), pipelined with "
            "the arrival: a message is taken no earlier than its first byte + bytes / recv_rate "
            "on its thread. 0 = free")
        .range("0Gb/s", "10Tb/s");
    d.param("eager_limit", &comm_stack_params::eager_limit, "64KiB",
            "Largest message sent eagerly; larger ones go by rendezvous (Open MPI's TCP BTL "
            "default btl_tcp_eager_limit = 64 KiB, opal/mca/btl/tcp/btl_tcp_component.c; "
            "inceptionn.md §VII-B uses Open MPI 2.0)")
        .range("0B", "1TiB");
    d.param("rendezvous", &comm_stack_params::rendezvous, "0ns",
            "Request-to-send / clear-to-send exchange before a rendezvous message's data "
            "leaves: one small-message round trip through both stacks and the network. 0 = "
            "none")
        .range("0ns", "1s");
    d.param("sum_bandwidth", &comm_stack_params::sum_bandwidth, "0GB/s",
            "Memory bandwidth of a collective's sum run by the communication software on the "
            "one core of the progress thread that drives the collective (MPI_SUM), when its "
            "inputs are not in the last-level cache: the sum's traffic (inputs read, result "
            "written) takes the thread at this rate. 0 = sums are not the stack's: they run as "
            "other memory traffic on their op's unit")
        .range("0GB/s", "10TB/s");
    d.param("sum_cached_bandwidth", &comm_stack_params::sum_cached_bandwidth, "0GB/s",
            "The same when the sum's inputs fit in `cache` (a layer's block the NIC just wrote "
            "and the backward pass just computed): served by the last-level cache, no DRAM "
            "traffic. 0 = sum_bandwidth")
        .range("0GB/s", "10TB/s");
    d.param("cache", &comm_stack_params::cache, "0B",
            "Last-level cache a sum's inputs (inputs x bytes) must fit in to run at "
            "sum_cached_bandwidth, and a message must fit in to move no DRAM traffic for its "
            "copies. 0 = none fits")
        .range("0B", "1TiB");
    d.param("irq_share", &comm_stack_params::irq_share, "0",
            "Interrupt work on the compute cores per received message, as a fraction of its "
            "receive work on the progress thread (B / recv_rate): the NIC's interrupts and "
            "softirq land on the cores its queues are spread over, not the progress thread's, "
            "and a compute op running on the cpu unit then takes that much longer (its "
            "parallel region waits for the core that took the interrupt). 0 = none (the NIC's "
            "interrupts are steered to the communication cores)")
        .range("0", "1");
    d.param("send_copy_traffic", &comm_stack_params::send_copy_traffic, "0",
            "Bytes of DRAM traffic per payload byte of a send's copy from the user buffer into "
            "socket buffers, issued on the host's `mem` over the thread's work on the message "
            "(Linux TCP copies every sent byte once, tcp_sendmsg; reading a user buffer not in "
            "the last-level cache is 1, the socket-buffer side 0 when the NIC's DMA reads it "
            "from the cache, Intel DDIO). A message of at most `cache` bytes moves none. 0 = "
            "the copies move no memory traffic")
        .range("0", "4");
    d.param("recv_copy_traffic", &comm_stack_params::recv_copy_traffic, "0",
            "Bytes of DRAM traffic per payload byte of a receive's copy out of socket buffers "
            "into the user buffer, issued as send_copy_traffic's (tcp_recvmsg copies every "
            "received byte once; writing the user buffer is 1, the socket-buffer side 0 when "
            "the NIC's DMA wrote it into the cache, Intel DDIO). 0 = none")
        .range("0", "4");
}

comm_stack::comm_stack(const comm_stack_params& p, std::uint64_t threads)
    : m_p(p), m_free_ps(static_cast<std::size_t>(std::max<std::uint64_t>(threads, 1)), 0) {}

std::size_t comm_stack::pick(std::uint64_t ready_ps) const {
    std::size_t best = 0;
    std::uint64_t best_start = std::max(m_free_ps[0], ready_ps);
    for (std::size_t k = 1; k < m_free_ps.size(); ++k) {
        const std::uint64_t start = std::max(m_free_ps[k], ready_ps);
        if (start < best_start) {
            best = k;
            best_start = start;
        }
    }
    return best;
}

std::uint64_t comm_stack::reserve(std::uint64_t ready_ps, std::uint64_t work_ps,
                                  std::size_t* thread) {
    const std::size_t k = pick(ready_ps);
    if (thread != nullptr) *thread = k;
    const std::uint64_t start = std::max(m_free_ps[k], ready_ps);
    m_free_ps[k] = start + work_ps;
    m_busy_ps += work_ps;
    return start;
}

comm_stack::send_timing comm_stack::send(std::uint64_t posted_ps, std::uint64_t bytes) {
    send_timing t;
    t.handed_ps = posted_ps + m_p.send_overhead.ps;
    std::uint64_t ready = t.handed_ps;
    if (bytes > m_p.eager_limit.bytes) ready += m_p.rendezvous.ps;
    t.start_ps = ready;
    t.end_ps = ready;
    if (m_p.send_rate.bytes_per_s <= 0.0 || bytes == 0) return t;
    const std::uint64_t work = m_p.send_rate.transfer_time(bytes).ps;
    t.start_ps = reserve(ready, work, &t.thread);
    t.end_ps = t.start_ps + work;
    t.pace_bytes_per_s = m_p.send_rate.bytes_per_s;
    return t;
}

std::uint64_t comm_stack::receive(std::uint64_t first_ps, std::uint64_t last_ps,
                                  std::uint64_t bytes, work* reserved) {
    if (m_p.recv_rate.bytes_per_s <= 0.0 || bytes == 0) {
        if (reserved != nullptr) *reserved = work{0, last_ps, last_ps};
        return last_ps;
    }
    const std::uint64_t w = m_p.recv_rate.transfer_time(bytes).ps;
    std::size_t thread = 0;
    const std::uint64_t start = reserve(std::min(first_ps, last_ps), w, &thread);
    if (reserved != nullptr) *reserved = work{thread, start, start + w};
    return std::max(last_ps, start + w);
}

std::uint64_t comm_stack::copy_traffic(std::uint64_t bytes, bool send) const {
    if (m_p.cache.bytes > 0 && bytes <= m_p.cache.bytes) return 0;
    const double per_byte = send ? m_p.send_copy_traffic : m_p.recv_copy_traffic;
    return static_cast<std::uint64_t>(std::llround(static_cast<double>(bytes) * per_byte));
}

comm_stack::sum_timing comm_stack::sum(std::uint64_t ready_ps, std::uint64_t bytes,
                                       std::uint32_t inputs) {
    sum_timing t;
    const double set = static_cast<double>(bytes) * static_cast<double>(inputs);
    t.cached = m_p.cache.bytes > 0 && set <= static_cast<double>(m_p.cache.bytes);
    t.bytes_per_s = t.cached && m_p.sum_cached_bandwidth.bytes_per_s > 0.0
                        ? m_p.sum_cached_bandwidth.bytes_per_s
                        : m_p.sum_bandwidth.bytes_per_s;
    const units::bandwidth rate{t.bytes_per_s};
    const std::uint64_t work =
        rate.transfer_time(bytes * (static_cast<std::uint64_t>(inputs) + 1)).ps;
    t.start_ps = reserve(ready_ps, work);
    t.end_ps = t.start_ps + work;
    return t;
}

}  // namespace trainvp::ip
