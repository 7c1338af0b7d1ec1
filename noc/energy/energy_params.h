// The NoC power model's inputs (energy/noc_energy.h), the `energy:` sub-map of noc.interposer:
// dynamic energy per event and static power per component.  aries.md gives no energy or power
// figures (§V: synthesised with a 32 nm PDK, power from PrimeTime PX), so the defaults come from
// a run of DSENT 0.91 (Sun et al., NOCS 2012; the source in gem5's ext/dsent, commit e8ed7b1d1b)
// with its Bulk32LVT technology model on noc.interposer's own defaults: a 5-port router of 4 VCs
// x 32 flit buffers (router.vcs, router.vc_buffers; aries.md §V), 544-bit flits (flit_size
// 68 B) at 1 GHz (clock), and a 3 mm link (pitch) of 544 wires.  docs/dsent-32nm.md lists the
// exact inputs, DSENT's raw outputs and the arithmetic from them to each key (per bit = per
// flit / 544, per slot = input port / 128, ...); each key's description repeats its line.  Other
// flit widths, clocks or buffer depths need DSENT run again.  Pure C++; the keys are the
// members' names.
#pragma once

#include "core/param_decl.h"
#include "core/units.h"

namespace trainvp::noc {

struct energy_params {
    // Dynamic energy per event.
    units::energy_per_bit buffer_write{0.1105};
    units::energy_per_bit buffer_read{0.1063};
    units::energy_per_bit crossbar{0.009081};
    units::energy allocation{0.1182};  // per VC or switch allocation
    units::energy_per_bit_length link{0.03198};
    units::energy_per_bit mux{0.001579};  // ARIES input-port mux, per flit bit through it
    units::energy_per_bit segment_switch{0.0007791};  // ARIES segment switch, per bit, per switch

    // Static power per component: leakage, and the clock tree's switching (every cycle, busy or
    // not) in router_static.
    units::power router_static{3.162};             // allocators, clock tree of one router
    units::power crosspoint_static{0.2369};        // per crossbar crosspoint (ports^2 per router)
    units::power port_static{2.299};               // per router port (input and output unit)
    units::power buffer_static{1.070};             // per flit slot of an input buffer
    units::power_per_length link_static{0.06183};  // per mm of unidirectional link
    units::power mux_static{0.5921};               // per ARIES input-port mux
    units::power segment_switch_static{0.2960};    // per ARIES segment switch

    static void declare(param_list<energy_params>& d);
};

}  // namespace trainvp::noc
