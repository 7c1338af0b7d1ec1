// A device as paleo.md §3.1.1 and §3.3 see it: peak FLOP rate, memory bandwidth and platform
// percent of peak.  An operation takes R + C + W (eq. 1): its reads and writes at the memory
// bandwidth, its FLOPs at the peak, each scaled by its PPP (PALEO's authors scale both by the
// one computation PPP: paleo/profilers/flops_profiler.py in TalwalkarLab/paleo).  The
// platform's accel.gpu and host.cpu declare these as params and time their ops with it
// (compute_ps, memory_ps: host.cpu's memory traffic goes through its `mem` block instead);
// tools and tests (roofline_compute_model) use seconds().  Pure C++.
#pragma once

#include <cstdint>

#include "workloads/models/op_cost.h"

namespace trainvp::models {

struct device_model {
    double peak_flops = 0;        // FLOP/s
    double memory_bandwidth = 0;  // B/s
    double ppp_compute = 1.0;     // fraction of peak reached by computation
    double ppp_memory = 1.0;      // fraction of the bandwidth reached by reads and writes

    // R + C + W in seconds.  Throws std::invalid_argument on a non-positive rate.
    double seconds(const op_cost& c) const;

    // Eq. 1's parts as the platform times a kernel, in whole picoseconds, each rounded to the
    // nearest as the units round a duration (core/units.h): C for FLOPS at peak x PPP, R + W
    // for BYTES at bandwidth x PPP.  A rate of 0 makes its part free.
    std::uint64_t compute_ps(double flops) const;
    std::uint64_t memory_ps(std::uint64_t bytes) const;
};

}  // namespace trainvp::models
