// A host's communication software, MPI over TCP/IP on Linux (ip/host/README.md, "The
// communication stack"): what a message costs the threads that drive communication, and when
// its bytes can leave and be delivered.  Pure C++ (times in integer picoseconds, the host's
// sc_time at 1 ps: kit/sim_time.h), unit-tested alone (tests/unit/host/test_comm_stack.cpp).
//
// The model, per message of B payload bytes:
// - Per message: `send_overhead` on the sender (the MPI call, the syscall) before the message
//   is handed on; `recv_overhead` on the receiver (posting, matching).  Neither overlaps the
//   message's own transfer.
// - Protocol: a message above `eager_limit` goes by rendezvous: its data leaves only after a
//   request-to-send / clear-to-send exchange, `rendezvous` (one small-message round trip).
// - Per byte: a progress thread moves the bytes through the stack at `send_rate` on the
//   sender (copies into socket buffers, segmentation) and `recv_rate` on the receiver
//   (interrupt and softirq protocol work, the copy to the user buffer).  This work is pipelined
//   with the wire: a send's bytes leave as its thread hands them over (the NIC streams the
//   message no faster), a message's bytes are taken as they land, from its first byte.
// - Threads: `threads` progress threads serve all of a host's sends and receives; one message
//   is driven by one thread; each piece of work takes the thread that can start it first, and
//   a thread's work runs in the order it was handed out (a thread that sends and receives at
//   once, as in a ring step, spends B / send_rate + B / recv_rate).
// - Sums (when `sum_bandwidth` is set): the reduction of a collective (MPI_SUM of a received
//   block into the local one) runs on the progress thread that drives the collective, i.e. on
//   one core, memory-bound: its traffic (each input read, the result written) at the bandwidth
//   one core reaches, `sum_cached_bandwidth` when its inputs fit in the last-level cache
//   (`cache`), `sum_bandwidth` from DRAM otherwise.  The sum takes its thread like the
//   per-byte work (the thread that sends and receives a ring step also adds the block).
// - Interrupt work on the compute cores (when `irq_share` is set): the NIC's interrupts and
//   their softirq protocol work land on a compute core (the cores the NIC's queues are spread
//   over), taking irq_share x the message's receive work (B / recv_rate) from the compute op
//   running there (the host applies it: host_cpu::steal_for_interrupts).
// - Copies' memory traffic (when `send_copy_traffic` / `recv_copy_traffic` are set): the
//   send's copy from the user buffer into socket buffers and the receive's copy out of them
//   move that many bytes of DRAM traffic per payload byte, spread over the thread's work on the
//   message (the host issues it on its memory, where it competes with the other initiators); a
//   message of at most `cache` bytes moves none (its data is in the last-level cache).
// A rate of 0 is free: the thread costs nothing per byte.
#pragma once

#include <cstdint>
#include <vector>

#include "core/param_decl.h"
#include "core/units.h"

namespace trainvp::ip {

struct comm_stack_params {
    std::uint64_t threads = 0;  // 0: the host's comm_cores, or 1 when it has none
    units::duration send_overhead{0};
    units::duration recv_overhead{0};
    units::bandwidth send_rate{0.0};
    units::bandwidth recv_rate{0.0};
    units::data_size eager_limit{65536};
    units::duration rendezvous{0};
    units::bandwidth sum_bandwidth{0.0};
    units::bandwidth sum_cached_bandwidth{0.0};
    units::data_size cache{0};
    double irq_share = 0.0;
    double send_copy_traffic = 0.0;
    double recv_copy_traffic = 0.0;

    static void declare(param_list<comm_stack_params>& d);
};

class comm_stack {
public:
    // `threads` >= 1 progress threads.
    comm_stack(const comm_stack_params& p, std::uint64_t threads);

    struct send_timing {
        std::uint64_t handed_ps = 0;  // the sending unit is free again (send_overhead spent)
        std::uint64_t start_ps = 0;   // the first byte may leave (protocol done, thread free)
        std::uint64_t end_ps = 0;     // the thread has handed over the last byte
        double pace_bytes_per_s = 0;  // the rate the thread hands bytes over (0: unpaced)
        std::size_t thread = 0;       // the progress thread that drives it
    };
    // A send of `bytes` posted at `posted_ps`: reserves its thread time.
    send_timing send(std::uint64_t posted_ps, std::uint64_t bytes);
    // A message of `bytes` that landed in host memory from `first_ps` (its first byte) to
    // `last_ps` (its last): when the software has taken it all (a receive posted for it
    // completes no earlier, nor before its own posting + recv_overhead).  Reserves the
    // receiving thread's time, handed out as messages arrive (the progress engine drains the
    // sockets whether or not a receive is posted yet).
    // `work`, when given, is set to the thread time reserved for it (none when recv_rate is 0:
    // start_ps == end_ps).
    struct work {
        std::size_t thread = 0;
        std::uint64_t start_ps = 0, end_ps = 0;
    };
    std::uint64_t receive(std::uint64_t first_ps, std::uint64_t last_ps, std::uint64_t bytes,
                          work* reserved = nullptr);

    // The DRAM traffic, in bytes, of the copy of a message of `bytes` payload bytes through the
    // stack (a send's when `send`, else a receive's): bytes x send_copy_traffic or
    // recv_copy_traffic, rounded to the byte; 0 when the message fits in `cache`.
    std::uint64_t copy_traffic(std::uint64_t bytes, bool send) const;
    // Whether any message's copies move DRAM traffic.
    bool copies_move_memory() const {
        return m_p.send_copy_traffic > 0.0 || m_p.recv_copy_traffic > 0.0;
    }

    // Whether the stack runs the sums of collectives (sum_bandwidth > 0).
    bool runs_sums() const { return m_p.sum_bandwidth.bytes_per_s > 0.0; }
    struct sum_timing {
        std::uint64_t start_ps = 0;  // the thread starts the sum
        std::uint64_t end_ps = 0;    // the result is written
        double bytes_per_s = 0;      // the bandwidth its traffic runs at
        bool cached = false;         // its inputs are in the last-level cache (no DRAM traffic)
    };
    // A sum of `inputs` buffers of `bytes` each into one (the op slot's read passes), ready at
    // `ready_ps`: reserves its thread for (inputs + 1) x bytes at the one-core bandwidth.
    // Requires runs_sums().
    sum_timing sum(std::uint64_t ready_ps, std::uint64_t bytes, std::uint32_t inputs);

    // Thread time reserved so far, ps (all threads together).
    std::uint64_t busy_ps() const { return m_busy_ps; }
    std::uint64_t threads() const { return m_free_ps.size(); }
    const comm_stack_params& params() const { return m_p; }

private:
    // The thread that can start work released at `ready_ps` first; returns its index.
    std::size_t pick(std::uint64_t ready_ps) const;
    // Reserves `work_ps` on the first thread free at `ready_ps`; returns when it starts, and
    // the thread in `thread` when given.
    std::uint64_t reserve(std::uint64_t ready_ps, std::uint64_t work_ps,
                          std::size_t* thread = nullptr);

    comm_stack_params m_p;
    std::vector<std::uint64_t> m_free_ps;  // per thread: when the work handed to it is done
    std::uint64_t m_busy_ps = 0;
};

}  // namespace trainvp::ip
