// The standard NoC experiment on uniform random traffic (Dally & Towles 2004, ch. 23): a
// warm-up, a measurement window whose packets are measured and whose ejected flits give the
// accepted throughput, then a drain of the measured packets (or a stop at `drain_cycles`,
// beyond saturation).  The `traffic:` sub-map of noc.interposer; the block composes one and
// advances the network until finished() says so.  Pure C++.
#pragma once

#include <cstdint>
#include <memory>

#include "core/param_decl.h"
#include "noc/traffic/uniform_traffic.h"

namespace trainvp::noc {

class noc_network;

class uniform_experiment {
public:
    // The keys are the members' names.
    struct settings {
        double injection_rate = 0;  // flits/node/cycle; 0: no experiment
        std::uint64_t warmup_cycles = 2000;
        std::uint64_t measure_cycles = 10000;
        std::uint64_t drain_cycles = 50000;

        static void declare(param_list<settings>& d);
    };

    // Installs the traffic on `net` (its source and measurement window).
    uniform_experiment(const settings& s, int packet_flits, std::uint64_t seed, noc_network& net);

    std::uint64_t window_end() const { return m_s.warmup_cycles + m_s.measure_cycles; }
    // No packet is created from here on; the run stops here at the latest.
    std::uint64_t stop_cycle() const { return window_end() + m_s.drain_cycles; }
    // True when the run may stop at cycle `now`: past the drain, or past the window with every
    // measured packet delivered.
    bool finished(std::uint64_t now) const;

    // Flits created in the window per node per cycle.
    double offered_load() const;
    // Flits ejected in the window per node per cycle.
    double accepted_throughput() const;

private:
    settings m_s;
    noc_network& m_net;
    std::unique_ptr<uniform_traffic> m_traffic;
};

}  // namespace trainvp::noc
