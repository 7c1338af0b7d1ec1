// What of the NoC leaks whether or not it carries flits: routers, their ports, crossbar
// crosspoints and buffer slots, the links by length, and ARIES's muxes and segment switches.
// Counted from the topology (a flattened butterfly's radix and express links, ARIES's
// configured bypass segments) and the router params; the static half of the power model
// (energy/noc_energy.h).  Every component but the allocators is charged per bit of its
// datapath (energy_params.h), so static power follows the flit width.  Pure C++.
#pragma once

#include <cstdint>

#include "noc/energy/energy_params.h"
#include "noc/topology/noc_topology.h"

namespace trainvp::noc {

struct noc_inventory {
    std::uint64_t routers = 0;
    std::uint64_t ports = 0;         // over all routers, local ports included
    std::uint64_t crosspoints = 0;   // sum over routers of ports^2
    std::uint64_t buffer_slots = 0;  // ports x vcs x vc_buffers
    double link_mm = 0;              // sum over unidirectional channels of their length
    std::uint64_t muxes = 0;         // ARIES input-port muxes
    std::uint64_t segment_switches = 0;

    // `pitch_mm`: length of a one-pitch link.
    static noc_inventory of(const noc_topology& t, int vcs, int vc_buffers, double pitch_mm);

    // Static power in mW of a NoC of `flit_bits`-bit flits (its buffers, crossbar, registers,
    // clock tree, links and muxes are that many bits wide).
    double static_mw(const energy_params& e, double flit_bits) const;
};

}  // namespace trainvp::noc
