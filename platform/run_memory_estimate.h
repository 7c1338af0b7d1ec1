// The memory a run will need, estimated once the workload is handed out (the hosts' op streams
// are known) and before the kernel starts, so that a run that would outgrow the machine as it
// records (a long run with the timeline on) is refused at once with the estimate, its parts
// and the knobs that reduce them (platform/simulation.cpp check_run_memory), instead of being
// killed for want of memory hours later.  memory_estimate (before expansion) counts the
// blocks; this counts them again as built, and what grows with the ops:
//
//   program    k_program_bytes, the process before any block
//   blocks     built blocks x memory_estimate::k_bytes_per_block
//   op windows per host, the ops it holds at once (ip/host/op_window.h): two chunks (the
//              iteration it runs and the previous one) of ops / chunks each, or the whole list
//              when it comes as one chunk, x k_bytes_per_window_op
//   timeline   with simulation.timeline: k_timeline_base_bytes + every op of the run x
//              k_bytes_per_span_op (its span, the NIC's spans of a send, the queue levels it
//              moves, its flow arrow and its share of timeline.json, built in memory at the end)
//   breakdown  with simulation.breakdown: every op of the run x k_bytes_per_breakdown_op
//
// The per-op constants are peak RSS slopes measured on runs that differ only in their op count
// (next to each constant).  Pure arithmetic, unit-tested alone
// (tests/unit/platform/test_run_memory_estimate.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainvp {

class run_memory_estimate {
public:
    // The program itself (its code, the libraries', SystemC's kernel): the peak RSS of a run
    // of a traffic generator and a memory, timeline and breakdown off, 16,560 KB (check:
    // 16,392 KB).
    static constexpr std::uint64_t k_program_bytes = 16 * 1024 * 1024;
    // Measured on 2026-11-27 (gcc RelWithDebInfo, the maximum RSS of /usr/bin/time -f %M):
    // window: configs/examples/collective_bench.yaml with timeline and breakdown off, whose
    // lists come as one chunk each: workload.collective[0].iterations 1 -> 2001 took the hosts
    // from 696 to 224,696 ops held and the peak from 638,016 to 693,640 KB: 254 B per op (the
    // op as handed out, its slot, status and unit queue entry in the window).
    static constexpr std::uint64_t k_bytes_per_window_op = 256;
    // timeline: timeline on minus off, breakdown off: inc_hdc (4 hosts, 112 ops an iteration)
    // 10 -> 1000 iterations 28,896 -> 154,188 KB on, 18,600 -> 18,832 KB off: 1157 B per op;
    // configs/examples/training_ring.yaml (704 ops an iteration) 2 -> 40 iterations 29,112 ->
    // 62,720 KB on, 20,136 -> 20,100 KB off: 1286 B per op.  An op's span, its NIC's spans, the
    // queue levels it moves and its share of timeline.json, which is built in memory at the end.
    static constexpr std::uint64_t k_bytes_per_span_op = 1300;
    // What the timeline costs however few ops run (its counter tracks, the queue levels' series,
    // the JSON's buffers): on minus off less the ops' share, 8.9 MB for inc_hdc at 10
    // iterations, 7.2 MB for training_ring at 2.
    static constexpr std::uint64_t k_timeline_base_bytes = 8 * 1024 * 1024;
    // breakdown: on minus off, timeline off: inc_hdc 10 -> 1000 iterations 18,744 -> 33,152 KB
    // on (18,600 -> 18,832 off): 132 B per op (critical_path.h's op_run in growing vectors).
    static constexpr std::uint64_t k_bytes_per_breakdown_op = 144;

    // One block that runs ops: its path, the ops of its whole run, the chunks they come in.
    struct host_ops {
        std::string path;
        std::uint64_t ops = 0;
        std::uint64_t chunks = 1;
    };

    run_memory_estimate(std::uint64_t blocks, std::vector<host_ops> hosts, bool timeline,
                        bool breakdown);

    std::uint64_t blocks() const { return m_blocks; }
    std::uint64_t ops() const { return m_ops; }                // every host's, over the run
    std::uint64_t window_ops() const { return m_window_ops; }  // held at once, over the hosts
    const std::vector<host_ops>& hosts() const { return m_hosts; }

    std::uint64_t block_bytes() const;
    std::uint64_t window_bytes() const;
    std::uint64_t span_bytes() const;       // 0 without the timeline
    std::uint64_t breakdown_bytes() const;  // 0 without the breakdown
    std::uint64_t bytes() const;

    // "16.78 MB for the program + 1.6 MB for 100 blocks x ~16 KiB + 2.05 MB for op windows (8000
    // ops x ~256 B) + ...", the parts that are not zero.
    std::string parts() const;

    // The ops a host holds at once: two chunks' worth, or its whole list in one chunk.
    static std::uint64_t window_of(const host_ops& h);

private:
    std::uint64_t m_blocks = 0;
    std::vector<host_ops> m_hosts;
    bool m_timeline = true;
    bool m_breakdown = true;
    std::uint64_t m_ops = 0;
    std::uint64_t m_window_ops = 0;
};

}  // namespace trainvp
