// The ops of a range of an op list that no other op of the range waits for: when they are
// done, the whole range is (the point the next phase of an iteration waits for).  Shared by
// training_builder and parallel_training_builder.  Pure C++.
#pragma once

#include <cstddef>
#include <vector>

#include "workloads/ops/op.h"

namespace trainvp::workloads {

// The ops of list[begin, end) that no other op of that range waits for.  list[i] is op
// first + i of the stream (`after` holds stream indices), and so are the results.
std::vector<std::size_t> op_frontier(const std::vector<ops::op>& list, std::size_t first,
                                     std::size_t begin);

}  // namespace trainvp::workloads
