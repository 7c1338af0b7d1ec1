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
            "Energy per bit per mm of interposer wire, charged by each link's length (a "
            "flattened butterfly's express links and ARIES's bypass segments by their pitches) "
            "(assumption: ~0.1 pJ/bit/mm of on-chip global wire, Keckler et al. IEEE Micro "
            "2011; not from aries.md)")
        .range("0pJ/bit/mm", "100pJ/bit/mm");
    d.param("mux", &energy_params::mux, "0.002pJ/bit",
            "ARIES only: energy per bit of a flit passing an input port's 3:1 mux (mesh link, "
            "bypass-x, bypass-y; aries.md §III-B-1), charged for every flit arriving on a link "
            "(assumption: a 3:1 mux is a few gates per bit, a quarter of the crossbar's 5:1 "
            "per-bit energy)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("segment_switch", &energy_params::segment_switch, "0.001pJ/bit",
            "ARIES only: energy per bit through one closed segment switch (the transistor that "
            "connects a bypass link to its router, aries.md §III-B-2); a flit on a bypass "
            "segment passes two (assumption: one pass transistor per bit)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("router_static", &energy_params::router_static, "0.68mW",
            "Static (leakage) power of one router's VC and switch allocators and control "
            "(assumption: aries.md §V-D's allocator areas, 4589 + 9066 um^2, times a leakage "
            "density of 0.05 uW/um^2, the order of a 32-45 nm low-Vt bulk process)")
        .range("0mW", "10W");
    d.param("crosspoint_static", &energy_params::crosspoint_static, "0.0356mW",
            "Static power per crossbar crosspoint; a router of P ports has P^2, so a flattened "
            "butterfly's higher radix costs leakage (assumption: aries.md §V-D's 5x5 crossbar, "
            "17806 um^2 / 25 crosspoints, times 0.05 uW/um^2)")
        .range("0mW", "10W");
    d.param("port_static", &energy_params::port_static, "0.1mW",
            "Static power per router port (input unit control, output unit with its credit "
            "counters, the link driver and receiver on the chiplet) (assumption: aries.md "
            "gives no area for them; of the order of one allocator's share per port)")
        .range("0mW", "10W");
    d.param("buffer_static", &energy_params::buffer_static, "0.0077mW",
            "Static power per flit slot of an input buffer; a router has ports x router.vcs x "
            "router.vc_buffers slots (assumption: aries.md §V-D's buffers, 98740 um^2 for 5 "
            "ports x 4 VCs x 32 flits = 640 slots, times 0.05 uW/um^2)")
        .range("0mW", "10W");
    d.param("link_static", &energy_params::link_static, "0.01mW/mm",
            "Static power per mm of each unidirectional link that exists (mesh, wrap, express "
            "and the configured ARIES bypass segments): the leakage of a driver sized to its "
            "wire. The interposer is passive (aries.md §III-B: only wires), so the wire itself "
            "has no repeaters (assumption)")
        .range("0mW/mm", "10000mW/mm");
    d.param("mux_static", &energy_params::mux_static, "0.05mW",
            "ARIES only: static power of one input-port mux; 4 per router (+x, -x, +y, -y, "
            "aries.md §III-B-1) (assumption: 3 x 544 pass gates, ~1100 um^2, times 0.05 "
            "uW/um^2)")
        .range("0mW", "10W");
    d.param("segment_switch_static", &energy_params::segment_switch_static, "0.005mW",
            "ARIES only: static power of one segment switch; one per bypass track per router "
            "(2 row and 2 column tracks: 4 per router, aries.md §III-B-2) (assumption: 544 "
            "pass transistors)")
        .range("0mW", "10W");
}

}  // namespace trainvp::noc
