#include "noc/energy/energy_params.h"

namespace trainvp::noc {

// Every default: DSENT 0.91, Bulk32LVT, on noc.interposer's defaults (5 ports, 4 VCs x 32
// flits, 544-bit flits, 1 GHz, 3 mm links); raw outputs and arithmetic in docs/dsent-32nm.md.
void energy_params::declare(param_list<energy_params>& d) {
    d.param("buffer_write", &energy_params::buffer_write, "0.1105pJ/bit",
            "Energy per bit written into an input buffer (DSENT 0.91 Bulk32LVT run, 5-port "
            "router, 4 VCs x 32 flits, 544-bit flits, 1 GHz: Router:WriteBuffer 60.1066 pJ per "
            "flit / 544 bits; DFF-RAM write and its input pipeline register; docs/dsent-32nm.md)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("buffer_read", &energy_params::buffer_read, "0.1063pJ/bit",
            "Energy per bit read from an input buffer (DSENT 0.91 Bulk32LVT run, as buffer_write: "
            "Router:ReadBuffer 57.8128 pJ per flit / 544 bits; docs/dsent-32nm.md)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("crossbar", &energy_params::crossbar, "0.009081pJ/bit",
            "Energy per bit crossing the crossbar (DSENT 0.91 Bulk32LVT run, 5x5 multiplexer "
            "crossbar, as buffer_write: Router:TraverseCrossbar->Multicast1 4.93987 pJ per flit / "
            "544 bits, with the select and output registers; a 7-port crossbar costs 6.48581 pJ, "
            "+31 %, not modelled; docs/dsent-32nm.md)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("allocation", &energy_params::allocation, "0.1182pJ",
            "Energy per VC or switch allocation (DSENT 0.91 Bulk32LVT run, as buffer_write: "
            "switch allocator ArbitrateStage1 0.0448458 pJ + ArbitrateStage2 0.073377 pJ; DSENT "
            "has no VC allocator, so a VC allocation is charged as a switch allocation "
            "(assumption); docs/dsent-32nm.md)")
        .range("0pJ", "1000pJ");
    d.param("link", &energy_params::link, "0.03198pJ/bit/mm",
            "Energy per bit per mm of interposer wire, charged by each link's length (a "
            "flattened butterfly's express links and ARIES's bypass segments by their pitches) "
            "(DSENT 0.91 Bulk32LVT RepeatedLink, 544 bits, 3 mm, global wire, delay 1-10 ns: "
            "Send 52.1931 pJ / 544 bits / 3 mm; DSENT's wire is an on-chip global layer, not a "
            "65 nm interposer trace; docs/dsent-32nm.md)")
        .range("0pJ/bit/mm", "100pJ/bit/mm");
    d.param("mux", &energy_params::mux, "0.001579pJ/bit",
            "ARIES only: energy per bit of a flit passing an input port's 3:1 mux (mesh link, "
            "bypass-x, bypass-y; aries.md §III-B-1), charged for every flit arriving on a link "
            "(DSENT 0.91 Bulk32LVT run of a 3-input, 544-bit Multiplexer (MultiplexerCrossbar "
            "3x1) at 1 GHz: 0.858882 pJ / 544 bits; docs/dsent-32nm.md)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("segment_switch", &energy_params::segment_switch, "0.0007791pJ/bit",
            "ARIES only: energy per bit through one closed segment switch (the switch that "
            "connects a bypass link to its router, aries.md §III-B-2); a flit on a bypass segment "
            "passes two (DSENT has no pass gate: its 2-input, 544-bit Multiplexer stands in, "
            "Bulk32LVT, 1 GHz: 0.423807 pJ / 544 bits, an upper bound for one pass transistor "
            "per bit; docs/dsent-32nm.md)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("router_static", &energy_params::router_static, "3.162mW",
            "Static power of one router's allocators and clock tree (DSENT 0.91 Bulk32LVT run, "
            "5-port router at 1 GHz: switch allocator leakage 0.339912 mW + a VC allocator, "
            "which DSENT lacks, as that x aries.md §V-D's VC/switch allocator area ratio "
            "9066/4589 = 0.671528 mW + clock tree leakage 0.0409142 mW + the clock tree's "
            "switching, DistributeClock 2.10937 pJ x 1 GHz = 2.10937 mW, paid every cycle; "
            "docs/dsent-32nm.md)")
        .range("0mW", "10W");
    d.param("crosspoint_static", &energy_params::crosspoint_static, "0.2369mW",
            "Static power per crossbar crosspoint; a router of P ports has P^2, so a flattened "
            "butterfly's higher radix costs leakage (DSENT 0.91 Bulk32LVT run: 5x5 crossbar "
            "leakage 5.92306 mW / 25; DSENT's 7x7 gives 0.2538 mW per crosspoint, 15x15 "
            "0.3247 mW; docs/dsent-32nm.md)")
        .range("0mW", "10W");
    d.param("port_static", &energy_params::port_static, "2.299mW",
            "Static power per router port: its two input pipeline registers, its output "
            "register and 3 crossbar-select flip-flops (DSENT 0.91 Bulk32LVT run, 544-bit flits: "
            "(3 x 544 + 3) DFFs x 1.40612 uW; docs/dsent-32nm.md)")
        .range("0mW", "10W");
    d.param("buffer_static", &energy_params::buffer_static, "1.070mW",
            "Static power per flit slot of an input buffer; a router has ports x router.vcs x "
            "router.vc_buffers slots (DSENT 0.91 Bulk32LVT run, 544-bit DFF-RAM buffers: one "
            "input port's leakage 136.938 mW / (4 VCs x 32 flits) = 1.06983 mW, of which the "
            "flip-flops 0.765 mW and the read mux 0.304 mW; docs/dsent-32nm.md)")
        .range("0mW", "10W");
    d.param("link_static", &energy_params::link_static, "0.06183mW/mm",
            "Static power per mm of each unidirectional link that exists (mesh, wrap, express "
            "and the configured ARIES bypass segments) (DSENT 0.91 Bulk32LVT RepeatedLink, 544 "
            "bits, 3 mm: leakage 0.185477 mW / 3 mm. DSENT's leakage is its driver's, the same "
            "for 3 to 21 mm at 10 ns per pitch, so longer links are charged more than DSENT "
            "gives; docs/dsent-32nm.md)")
        .range("0mW/mm", "10000mW/mm");
    d.param("mux_static", &energy_params::mux_static, "0.5921mW",
            "ARIES only: static power of one input-port mux; 4 per router (+x, -x, +y, -y, "
            "aries.md §III-B-1) (DSENT 0.91 Bulk32LVT run of a 3-input, 544-bit Multiplexer: "
            "leakage 0.59205 mW; docs/dsent-32nm.md)")
        .range("0mW", "10W");
    d.param("segment_switch_static", &energy_params::segment_switch_static, "0.2960mW",
            "ARIES only: static power of one segment switch; one per bypass track per router "
            "(2 row and 2 column tracks: 4 per router, aries.md §III-B-2) (DSENT's 2-input, "
            "544-bit Multiplexer stands in, Bulk32LVT: leakage 0.296025 mW, an upper bound for "
            "544 pass transistors; docs/dsent-32nm.md)")
        .range("0mW", "10W");
}

}  // namespace trainvp::noc
