// Timing of one interposer link in router cycles: the flit channel's latency (a wire of
// `length` chiplet pitches takes `length` times the one-pitch latency, as repeated wires
// scale linearly) and how many cycles one flit occupies it (flit size over the bandwidth per
// cycle).  The credit channel runs beside it with the same latency.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace trainvp::noc {

struct link_timing {
    std::uint32_t latency = 1;          // cycles from switch traversal to the downstream buffer
    std::uint32_t cycles_per_flit = 1;  // serialisation of one flit

    // `pitch_latency_cycles`: latency of a one-pitch link in cycles; `bytes_per_cycle`: the
    // link's bandwidth divided by the router clock.
    static link_timing of(double length, double pitch_latency_cycles, double flit_bytes,
                          double bytes_per_cycle) {
        link_timing t;
        t.latency = static_cast<std::uint32_t>(
            std::max(1.0, std::ceil(length * pitch_latency_cycles - 1e-9)));
        t.cycles_per_flit = static_cast<std::uint32_t>(
            std::max(1.0, std::ceil(flit_bytes / bytes_per_cycle - 1e-9)));
        return t;
    }
};

}  // namespace trainvp::noc
