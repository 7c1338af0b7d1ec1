// The NoC power model's inputs (energy/noc_energy.h), the `energy:` sub-map of noc.interposer:
// dynamic energy per event and static power per component.  aries.md gives no energy or power
// figures (§V: synthesised with a 32 nm PDK, power from PrimeTime PX), so the defaults come from
// a run of DSENT 0.91 (Sun et al., NOCS 2012; the source in gem5's ext/dsent, commit e8ed7b1d1b)
// with its Bulk32LVT technology model on noc.interposer's own defaults: a 5-port router of 4 VCs
// x 32 flit buffers (router.vcs, router.vc_buffers; aries.md §V), 544-bit flits (flit_size
// 68 B) at 1 GHz (clock), and a 3 mm link (pitch) of 544 wires.  Energies are per bit (a
// buffer write's and read's also per slot of the port's buffer) and the static powers of the
// datapath (buffer slots, crosspoints, ports, clock tree, links, ARIES muxes and switches) per
// bit of it, so that they follow `flit_size`, `router.vcs` and `router.vc_buffers` as DSENT's
// runs at 128, 256 and 1024 bits, 8 and 16 flits per VC and 2 and 8 VCs scale (docs/dsent-
// 32nm.md, "Other flit widths and depths"); only the allocators' router_static is per router.
// docs/dsent-32nm.md lists the exact inputs, DSENT's raw outputs and the arithmetic from them
// to each key (per bit = per flit / 544, per bit-slot = input port / (128 x 544), ...); each
// key's description repeats its line.  Other clocks need DSENT run again.  Pure C++; the keys
// are the members' names.
#pragma once

#include "core/param_decl.h"
#include "core/units.h"

namespace trainvp::noc {

struct energy_params {
    // Dynamic energy per event.
    // Per bit written / read: buffer_write + slots x buffer_write_slot, slots the port's
    // router.vcs x router.vc_buffers (DSENT's buffer energies grow with the buffer).
    units::energy_per_bit buffer_write{0.0081};
    units::energy_per_bit buffer_write_slot{0.0008};
    units::energy_per_bit buffer_read{0.00518};
    units::energy_per_bit buffer_read_slot{0.00079};
    units::energy_per_bit crossbar{0.009081};
    units::energy allocation{0.1182};  // per VC or switch allocation
    units::energy_per_bit_length link{0.03198};
    units::energy_per_bit mux{0.001579};  // ARIES input-port mux, per flit bit through it
    units::energy_per_bit segment_switch{0.0007791};  // ARIES segment switch, per bit, per switch

    // Static power per component, per bit of its datapath where DSENT scales so (x flit bits):
    // leakage, and the clock tree's switching (every cycle, busy or not) in clock_static.
    units::power router_static{1.011};  // allocators of one router (independent of the width)
    units::power_per_bit clock_static{3.953};            // clock tree, per router and flit bit
    units::power_per_bit crosspoint_static{0.4355};      // per crosspoint (ports^2) and flit bit
    units::power_per_bit port_static{4.226};             // per router port and flit bit
    units::power_per_bit buffer_static{1.967};           // per flit slot and flit bit
    units::power_per_bit_length link_static{0.11365};    // per wire (flit bit) and mm of link
    units::power_per_bit mux_static{1.088};              // per ARIES input-port mux and flit bit
    units::power_per_bit segment_switch_static{0.5442};  // per ARIES segment switch and bit

    static void declare(param_list<energy_params>& d);
};

}  // namespace trainvp::noc
