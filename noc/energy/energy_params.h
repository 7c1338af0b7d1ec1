// The NoC power model's inputs (energy/noc_energy.h), the `energy:` sub-map of noc.interposer:
// dynamic energy per event and static (leakage) power per component.  aries.md gives no
// energy or power figures (§V: synthesised with a 32 nm PDK, power from PrimeTime PX) but it
// gives the router's component areas (§V-D, 45 nm chiplet: crossbar 17806 um^2, switch
// allocator 4589 um^2, VC allocator 9066 um^2, buffers 98740 um^2).  The static defaults are
// those areas times one assumed leakage density (`leakage_density` in the descriptions,
// 0.05 uW/um^2); the dynamic defaults are of the order of DSENT's 45 nm router model (Sun et
// al., NOCS 2012) and of on-chip global wires (Keckler et al., IEEE Micro 2011).  Every
// default is an assumption, listed in the ARIES assumptions ledger (docs/validation.md).
// Pure C++; the keys are the members' names.
#pragma once

#include "core/param_decl.h"
#include "core/units.h"

namespace trainvp::noc {

struct energy_params {
    // Dynamic energy per event.
    units::energy_per_bit buffer_write{0.006};
    units::energy_per_bit buffer_read{0.005};
    units::energy_per_bit crossbar{0.008};
    units::energy allocation{0.25};  // per VC or switch allocation
    units::energy_per_bit_length link{0.1};
    units::energy_per_bit mux{0.002};             // ARIES input-port mux, per flit bit through it
    units::energy_per_bit segment_switch{0.001};  // ARIES segment switch, per bit, per switch

    // Static (leakage) power per component.
    units::power router_static{0.68};           // allocators and control of one router
    units::power crosspoint_static{0.0356};     // per crossbar crosspoint (ports^2 per router)
    units::power port_static{0.1};              // per router port (input and output unit)
    units::power buffer_static{0.0077};         // per flit slot of an input buffer
    units::power_per_length link_static{0.01};  // per mm of unidirectional link
    units::power mux_static{0.05};              // per ARIES input-port mux
    units::power segment_switch_static{0.005};  // per ARIES segment switch

    static void declare(param_list<energy_params>& d);
};

}  // namespace trainvp::noc
