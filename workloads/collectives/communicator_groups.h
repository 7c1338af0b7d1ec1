// Communicator groups: any schedule run over a subset of a larger job's ranks (a
// tensor-parallel group, a data-parallel group), and the composition of such schedules into
// one schedule of the whole world, so a consumer (hosts, the executor, validate(), the cost
// model) runs several groups' collectives as it runs one.  Pure C++.
#pragma once

#include <vector>

#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

// `s` over the world ranks `members` (schedule rank i is world rank members[i]) of a world of
// `world` ranks: members' steps with their peers renamed, every other rank with no steps (its
// buffer untouched).  Rounds, tags, ranges and `elements` are s's.  Throws
// std::invalid_argument unless members has s.ranks distinct entries in [0, world).
schedule on_group(const schedule& s, const std::vector<int>& members, int world);

// Schedules of one world run at the same time: each rank takes its steps from the one part
// that has steps on it (disjoint groups, e.g. every tensor-parallel group's all-gather).
// Throws std::invalid_argument when parts is empty, their ranks or elements differ, or a
// rank has steps in two parts (compose those with in_sequence).
schedule in_parallel(const std::vector<schedule>& parts);

// Schedules of one world run one after the other on the same buffers: part k's rounds follow
// part k-1's last round, and its tags follow the tags each (src, dst) pair used before, so
// the result is one valid lockstep schedule.  Only the first part may have non-contributing
// ranks (a later one would zero a buffer mid-way).  Throws std::invalid_argument otherwise,
// or when parts is empty or their ranks or elements differ.
schedule in_sequence(const std::vector<schedule>& parts);

// The groups of a job of tp x dp ranks with rank = dp_index * tp + tp_index (tensor-parallel
// ranks adjacent, as Megatron-LM places them within a node).
struct parallel_groups {
    // tensor_parallel[d]: the tp ranks of data-parallel index d, {d*tp, ..., d*tp + tp-1}.
    std::vector<std::vector<int>> tensor_parallel;
    // data_parallel[t]: the dp ranks of tensor-parallel index t, {t, t + tp, ...}.
    std::vector<std::vector<int>> data_parallel;
};

// Throws std::invalid_argument unless tp >= 1 and dp >= 1.
parallel_groups make_parallel_groups(int tp, int dp);

}  // namespace trainvp::collectives
