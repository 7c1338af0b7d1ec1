#pragma once

#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

// Checks that a schedule can run and is well defined; throws std::logic_error naming the rank,
// the step and the problem.  Checked: one step list and one contributes flag per rank; peers
// in range and not the rank itself; chunks inside [0, elements); rounds non-decreasing along a
// rank's list; every SEND has exactly one RECV with the same (src, dst, tag) and size, and
// vice versa; no RECV_COPY overlaps a receive listed before it in the same round (the earlier
// data would be silently lost); and the rounds complete under rendezvous semantics (no
// deadlock).  It does not check that the result is an all-reduce: execute() does that on data.
void validate(const schedule& s);

}  // namespace trainvp::collectives
