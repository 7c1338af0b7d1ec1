// A collective schedule (workloads/collectives/) expanded into one rank's host op list
// (workloads/ops/): the software collective that host.cpu runs on its comm and cpu units.
// Pure C++ (no SystemC).  See README.md in this folder for the expansion rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/collectives/schedule.h"
#include "workloads/ops/op.h"

namespace trainvp::workloads {

struct collective_op_options {
    // Bytes per element of the schedule's chunks (4 for FP32; a codec's size otherwise).
    std::uint32_t element_bytes = 4;
    // Host address of element 0 of the gradient buffer: a chunk at element offset o lives at
    // base_address + o * element_bytes.
    std::uint64_t base_address = 0;
    // Added to the schedule's tags.  The schedule numbers each (src, dst) pair's messages
    // 0, 1, 2, ..., so two collectives of one iteration stay distinct when their tag bases
    // are at least the first collective's largest tag + 1 apart (see max_tag()).
    std::uint32_t tag_base = 0;
    std::uint8_t tos = 0;  // IP ToS of the sends (0x28: INCEPTIONN's compressible traffic)
    ops::op_unit comm_unit = ops::op_unit::COMM;  // sends and receives
    ops::op_unit sum_unit = ops::op_unit::CPU;    // the additions of RECV_REDUCE
    // Prefixed to every op name, so that several collectives can share one op list.
    std::string name_prefix;
    // false: the ops are left unnamed (a scale run that records no timeline asks the source
    // for a name only when it reports an error; building millions of names costs set-up time).
    bool names = true;
    // The expansion is meant to be placed at index `index_base` of a larger list: every
    // `after` index is shifted by it.
    std::size_t index_base = 0;
    // Ops of the enclosing list (indices < index_base) that the first round waits for, e.g.
    // the backward pass that produces the gradients.
    std::vector<std::size_t> start_after;
    // Optional, set-up speed only: the sorted distinct ends of the step ranges of some rank of
    // the same schedule (range_bounds()), shared by the expansions of every rank.  A rank whose
    // ranges all start and end on them (every rank of a ring, given rank 0's) finds its
    // ranges there instead of sorting its own; any other rank sorts its own.  The ops are the
    // same either way.
    const std::vector<std::uint64_t>* bounds = nullptr;
};

// The op list of `rank` for schedule `s` (which must be valid: collectives::validate()).
// node_of_rank[r] is the host node id of rank r (the `to`/`from` of sends and receives).
// Empty transfers are dropped on both sides first (collectives::without_empty_transfers).
// Throws std::invalid_argument when rank is out of range, node_of_rank does not have one
// entry per rank, or element_bytes is 0.
std::vector<ops::op> collective_ops(const collectives::schedule& s, int rank,
                                    const std::vector<std::uint32_t>& node_of_rank,
                                    const collective_op_options& o = {});

// The same ops appended to `out` (which may hold ops already: set o.index_base to the list
// index the first appended op will have).  Set-up's path: no list of its own per collective.
void append_collective_ops(std::vector<ops::op>& out, const collectives::schedule& s, int rank,
                           const std::vector<std::uint32_t>& node_of_rank,
                           const collective_op_options& o = {});

// One rank's steps given alone: what s.steps[rank] holds for a valid schedule `s` of `ranks`
// ranks (collectives::ring_allreduce_steps makes a ring's without the whole schedule, which
// set-up of a 1024-rank ring then never holds).  Throws std::invalid_argument as above, and
// when a step's peer is not a rank.
void append_collective_ops(std::vector<ops::op>& out, const std::vector<collectives::step>& steps,
                           int ranks, const std::vector<std::uint32_t>& node_of_rank,
                           const collective_op_options& o = {});

// The sorted distinct ends of rank's non-empty step ranges (empty for a rank out of range):
// collective_op_options::bounds.
std::vector<std::uint64_t> range_bounds(const collectives::schedule& s, int rank);
std::vector<std::uint64_t> range_bounds(const std::vector<collectives::step>& steps);

// The largest tag of any step of `s` (0 for a schedule without steps): the next collective of
// the iteration can use tag_base + max_tag(s) + 1.
std::uint32_t max_tag(const collectives::schedule& s);

}  // namespace trainvp::workloads
