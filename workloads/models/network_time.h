// paleo.md §3.1.2: the time of a pass over a network from the times of its layers, sequential
// and with every parallel structure (supernode) overlapped.  Pure C++.
#pragma once

#include <vector>

#include "workloads/models/model.h"

namespace trainvp::models {

// paleo.md §3.1.2: a pass over a network of layers whose times are T(u).  Sequential execution
// sums them; parallel branches (supernodes between synchronisation barriers) take between the
// longest branch and the sum of the branches, recursively.  `lower` is that bound with perfect
// parallelism: the longest path through the layer graph (which, for the nested fork-join
// graphs of Inception-like networks, is the recursive max over each supernode's branches).
struct pass_time {
    double sequential = 0;  // sum over the layers: one device executing them in turn
    double lower = 0;       // the critical path: every supernode's branches in parallel
};

// TIMES[i] is the time of m.layers()[i].
pass_time network_time(const model& m, const std::vector<double>& times);

}  // namespace trainvp::models
