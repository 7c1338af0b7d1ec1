// What injects packets into a noc_network: a synthetic pattern (noc/traffic) or a
// collective's schedule.  The network asks it for the next cycle it creates a packet, so that
// idle stretches are skipped, and lets it create packets at the start of that cycle.
#pragma once

#include <cstdint>

namespace trainvp::noc {

class noc_network;

class traffic_source {
public:
    virtual ~traffic_source() = default;
    // The next cycle at which generate() creates a packet (UINT64_MAX: none).
    virtual std::uint64_t next_cycle() const = 0;
    // Creates the packets of cycle `now` (called once per cycle in which work exists).
    virtual void generate(std::uint64_t now, noc_network& net) = 0;
};

}  // namespace trainvp::noc
