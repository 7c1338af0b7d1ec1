// The per-event energies of the NoC's energy model (energy/noc_energy.h), the `energy:`
// sub-map of noc.interposer.  aries.md gives no energy figures (it synthesised with a 32 nm PDK
// and PrimeTime PX): the defaults are assumptions of the order of DSENT's 45 nm router model
// (Sun et al., NOCS 2012) and of on-chip global wires (Keckler et al., IEEE Micro 2011);
// recalibrate them before reading absolute energies.  Ratios between topologies depend on them
// less.  Pure C++; the keys are the members' names.
#pragma once

#include "core/param_decl.h"
#include "core/units.h"

namespace trainvp::noc {

struct energy_params {
    units::energy_per_bit buffer_write{0.006};
    units::energy_per_bit buffer_read{0.005};
    units::energy_per_bit crossbar{0.008};
    units::energy allocation{0.25};  // per VC or switch allocation
    units::energy_per_bit_length link{0.1};

    static void declare(param_list<energy_params>& d);
};

}  // namespace trainvp::noc
