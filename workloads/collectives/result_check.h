// The exact result of a collective, checked on data: given the buffers a schedule started from
// and the buffers execute() left, does every rank hold what its collective_result promises?
// One check for every result kind, so every registered schedule is proved on real data the
// same way (tests, and a fabric's functional mode against the executor).  Works on a world
// schedule too: `members` lists the world ranks of one communicator group (on_group()), in
// group-rank order, and only they are checked.  Pure C++ (no SystemC).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

// The first element that differs from `result`'s promise, as a message naming the rank and
// element, or "" when every promised element is exact.  `inputs` are the buffers before the
// run, `outputs` after it (each s.elements long, one per world rank); `root` is a group rank.
// Sums are taken in group-rank order and compared with ==: use inputs whose sums are exact
// in T (integers) to check a schedule whose order of additions differs.  ALL_REDUCE sums the
// contributing members only (an aggregator holds no input).  Throws std::invalid_argument
// when the members, root or buffers do not fit the schedule (ALL_TO_ALL: s.elements is not
// 2 x a multiple of the group size).
template <typename T>
std::string check_result(const schedule& s, collective_result result, int root,
                         const std::vector<int>& members, const std::vector<std::vector<T>>& inputs,
                         const std::vector<std::vector<T>>& outputs);

// The same over all the schedule's ranks (members 0..N-1).
template <typename T>
std::string check_result(const schedule& s, collective_result result, int root,
                         const std::vector<std::vector<T>>& inputs,
                         const std::vector<std::vector<T>>& outputs);

extern template std::string check_result<float>(const schedule&, collective_result, int,
                                                const std::vector<int>&,
                                                const std::vector<std::vector<float>>&,
                                                const std::vector<std::vector<float>>&);
extern template std::string check_result<double>(const schedule&, collective_result, int,
                                                 const std::vector<int>&,
                                                 const std::vector<std::vector<double>>&,
                                                 const std::vector<std::vector<double>>&);
extern template std::string check_result<float>(const schedule&, collective_result, int,
                                                const std::vector<std::vector<float>>&,
                                                const std::vector<std::vector<float>>&);
extern template std::string check_result<double>(const schedule&, collective_result, int,
                                                 const std::vector<std::vector<double>>&,
                                                 const std::vector<std::vector<double>>&);

}  // namespace trainvp::collectives
