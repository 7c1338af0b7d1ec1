// The iteration breakdown: the critical path through the ops every host ran, walked back from
// the op that ended last, with each stretch of it charged to the phase of the op that held it.
// The parts add up exactly to the makespan, so they read like inceptionn.md Table II's rows
// (forward, backward, GPU copy, gradient sum, communicate, update: what the iteration waited
// for, in sequence).  Pure C++ (no SystemC): host.cpu records op_runs, the simulation calls
// critical_path at the end of a run.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "workloads/ops/op.h"

namespace trainvp::workloads {

constexpr std::size_t k_no_op = std::numeric_limits<std::size_t>::max();

// One op as it ran: a POD (no strings, no heap), because a host keeps one per op of the whole
// run (a 1000-iteration run: ~80 B x 112 ops per iteration of a 4-worker HDC).  Times in ps.
// Successors on the same unit could start at release_ps (the unit was free: a send's unit is
// free once the NIC holds its descriptor); ops that wait for it in `after` could start at
// end_ps.
struct op_run {
    std::uint64_t start_ps = 0;
    std::uint64_t release_ps = 0;
    std::uint64_t end_ps = 0;
    std::uint64_t msg_id = 0;  // SEND: the message's id at this host
    // RECV: the message it matched: its source node, its id there, and when it was in memory.
    std::uint64_t src_msg_id = 0;
    std::uint64_t arrival_ps = 0;
    std::size_t unit_prev = k_no_op;  // the op before it on its unit
    // Its `after` (the ops it waited for): host_run::after[after_begin, + after_count).
    std::size_t after_begin = 0;
    std::uint32_t after_count = 0;
    std::uint32_t src_node = 0;
    ops::op_kind kind = ops::op_kind::DELAY;
    ops::op_phase phase = ops::op_phase::OTHER;  // ops::phase_of(op): never AUTO
    bool matched = false;
};

struct host_run {
    std::string name;  // the block's path
    std::uint32_t node_id = 0;
    std::vector<op_run> ops;
    std::vector<std::size_t> after;  // every op's `after`, one after the other

    // Appends `r` with `after_of_r` as its `after`.
    void add(op_run r, const std::vector<std::size_t>& after_of_r) {
        r.after_begin = after.size();
        r.after_count = static_cast<std::uint32_t>(after_of_r.size());
        after.insert(after.end(), after_of_r.begin(), after_of_r.end());
        ops.push_back(r);
    }
};

// The parts of the breakdown: every phase but AUTO, then IDLE (a stretch where the op on the
// path could have started but did not: time before a first op, or a gap nothing explains).
enum class breakdown_part {
    FORWARD,
    BACKWARD,
    COMPUTE,
    COPY,
    SUM,
    COMM,
    COMPRESSION,
    UPDATE,
    OTHER,
    IDLE,
};
constexpr std::size_t k_breakdown_parts = 10;
const char* part_name(breakdown_part p);
breakdown_part part_of(ops::op_phase p);

struct iteration_breakdown {
    std::uint64_t total_ps = 0;  // when the last op ended
    std::array<std::uint64_t, k_breakdown_parts> ps{};
    std::string ends_at;  // host and op index where the path ends, for people
    std::size_t steps = 0;
    std::string error;  // set (and the rest left empty) when the runs are inconsistent

    std::uint64_t part(breakdown_part p) const { return ps[static_cast<std::size_t>(p)]; }
};

// The rules, walking back from the op that ended last (ties: the first host, the last op):
// - the op's stretch [start, t] goes to its phase, where t is the time the successor saw (its
//   end, or its release for the next op on its unit);
// - except a RECV whose message arrived after the receive was posted: from the sender's SEND
//   start to the arrival is COMM (the message in the NIC, on the wire, through the switch),
//   and the walk continues at that SEND on the sending host;
// - the op's predecessor is whichever of its `after` ops (at their end) and its unit's previous
//   op (at its release) finished last (ties: `after` first, in order); a gap between that and
//   the op's start is IDLE, as is the time before an op with no predecessor.
// Inconsistent input (an index out of range, a time that runs backwards) gives a breakdown with
// `error` set; it never throws, because the simulation calls it after sc_start.
iteration_breakdown critical_path(const std::vector<host_run>& hosts);

}  // namespace trainvp::workloads
