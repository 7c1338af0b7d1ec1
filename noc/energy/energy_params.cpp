#include "noc/energy/energy_params.h"

namespace trainvp::noc {

void energy_params::declare(param_list<energy_params>& d) {
    d.param("buffer_write", &energy_params::buffer_write, "0.006pJ/bit",
            "Energy per bit written into an input buffer (assumption: order of DSENT's 45 nm "
            "router buffers, Sun et al. NOCS 2012; not from aries.md)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("buffer_read", &energy_params::buffer_read, "0.005pJ/bit",
            "Energy per bit read from an input buffer (assumption, as buffer_write)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("crossbar", &energy_params::crossbar, "0.008pJ/bit",
            "Energy per bit crossing a 5x5 crossbar (assumption: order of DSENT 45 nm, Sun et al. "
            "NOCS 2012; not from aries.md)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("allocation", &energy_params::allocation, "0.25pJ",
            "Energy per VC or switch allocation (assumption: order of DSENT 45 nm allocators, Sun "
            "et al. NOCS 2012; not from aries.md)")
        .range("0pJ", "1000pJ");
    d.param("link", &energy_params::link, "0.1pJ/bit/mm",
            "Energy per bit per mm of interposer wire (assumption: ~0.1 pJ/bit/mm of repeated "
            "on-chip global wire, Keckler et al. IEEE Micro 2011; not from aries.md)")
        .range("0pJ/bit/mm", "100pJ/bit/mm");
}

}  // namespace trainvp::noc
