#include "noc/energy/energy_params.h"

namespace trainvp::noc {

// Every default: DSENT 0.91, Bulk32LVT, on noc.interposer's defaults (5 ports, 4 VCs x 32
// flits, 544-bit flits, 1 GHz, 3 mm links), static powers per bit of the datapath and buffer
// energies per slot as DSENT's runs at 128 to 1024 bits and 8 to 32 flits per VC scale; raw
// outputs and arithmetic in docs/dsent-32nm.md.
void energy_params::declare(param_list<energy_params>& d) {
    d.param("buffer_write", &energy_params::buffer_write, "0.0081pJ/bit",
            "Energy per bit written into an input buffer, the part that does not grow with the "
            "buffer (+ buffer_write_slot per slot of the port) (DSENT 0.91 Bulk32LVT runs, "
            "5-port router, 544-bit flits, 1 GHz: Router:WriteBuffer per bit 0.0335 / 0.0592 / "
            "0.1105 / 0.2127 pJ at 32 / 64 / 128 / 256 slots a port, the line through 128 "
            "slots, 60.1066 pJ / 544 bits = 0.1105, of slope 0.0008: 0.1105 - 128 x 0.0008; "
            "DFF-RAM write and its input pipeline register; docs/dsent-32nm.md)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("buffer_write_slot", &energy_params::buffer_write_slot, "0.0008pJ/bit",
            "Energy per bit written into an input buffer and per flit slot of the port's "
            "buffer (router.vcs x router.vc_buffers): DSENT's DFF-RAM drives the write data to "
            "every entry (DSENT 0.91 Bulk32LVT runs, as buffer_write: the slope of WriteBuffer "
            "per bit over 32 to 256 slots, 0.000800 pJ; within 0.5 % of each run; "
            "docs/dsent-32nm.md)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("buffer_read", &energy_params::buffer_read, "0.00518pJ/bit",
            "Energy per bit read from an input buffer, the part that does not grow with the "
            "buffer (+ buffer_read_slot per slot of the port) (DSENT 0.91 Bulk32LVT runs, as "
            "buffer_write: Router:ReadBuffer per bit 0.0305 / 0.0559 / 0.1063 / 0.2064 pJ at "
            "32 / 64 / 128 / 256 slots, the line through 128 slots, 57.8128 pJ / 544 = 0.1063, "
            "of slope 0.00079: 0.1063 - 128 x 0.00079; docs/dsent-32nm.md)")
        .range("0pJ/bit", "100pJ/bit");
    d.param("buffer_read_slot", &energy_params::buffer_read_slot, "0.00079pJ/bit",
            "Energy per bit read from an input buffer and per flit slot of the port's buffer "
            "(router.vcs x router.vc_buffers): DSENT's read multiplexer has an input per slot "
            "(DSENT 0.91 Bulk32LVT runs, as buffer_write: the slope of ReadBuffer per bit over "
            "32 to 256 slots, 0.000785 pJ; within 0.5 % of each run; docs/dsent-32nm.md)")
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
    d.param("router_static", &energy_params::router_static, "1.011mW",
            "Static power of one router's allocators, the same at every flit width (DSENT 0.91 "
            "Bulk32LVT run, 5-port router at 1 GHz: switch allocator leakage 0.339912 mW, at "
            "128 to 1024-bit flits and 8 to 32 flits per VC alike, + a VC allocator, which DSENT "
            "lacks, as that x aries.md §V-D's VC/switch allocator area ratio 9066/4589 = "
            "0.671528 mW; docs/dsent-32nm.md)")
        .range("0mW", "10W");
    d.param("clock_static", &energy_params::clock_static, "3.953uW/bit",
            "Static power of one router's clock tree per flit bit: its leakage and its "
            "switching, paid every cycle whether flits move or not (DSENT 0.91 Bulk32LVT run, "
            "5-port router, 544-bit flits, 1 GHz: clock tree leakage 0.0409142 mW + "
            "DistributeClock 2.10937 pJ x 1 GHz = 2.15028 mW / 544 bits; DSENT's tree is not "
            "quite linear in the width: 0.622 mW at 128 bits, where this gives 0.506; "
            "docs/dsent-32nm.md)")
        .range("0uW/bit", "1000uW/bit");
    d.param("crosspoint_static", &energy_params::crosspoint_static, "0.4355uW/bit",
            "Static power per crossbar crosspoint and flit bit; a router of P ports has P^2 "
            "crosspoints, so a flattened butterfly's higher radix costs leakage (DSENT 0.91 "
            "Bulk32LVT run: 5x5 crossbar leakage 5.92306 mW / 25 / 544 bits = 0.435519 uW; "
            "0.4364 at 128 bits, 0.4354 at 1024; DSENT's 7x7 gives 0.4665 per crosspoint and "
            "bit, 15x15 0.597; docs/dsent-32nm.md)")
        .range("0uW/bit", "1000uW/bit");
    d.param("port_static", &energy_params::port_static, "4.226uW/bit",
            "Static power per router port and flit bit: its two input pipeline registers, its "
            "output register and 3 crossbar-select flip-flops (DSENT 0.91 Bulk32LVT run, "
            "544-bit flits: (3 x 544 + 3) DFFs x 1.40612 uW = 2.29901 mW / 544 bits; DSENT's "
            "registers are 3 flip-flops per bit at every width; docs/dsent-32nm.md)")
        .range("0uW/bit", "1000uW/bit");
    d.param("buffer_static", &energy_params::buffer_static, "1.967uW/bit",
            "Static power per flit slot of an input buffer and flit bit; a router has ports x "
            "router.vcs x router.vc_buffers slots of flit_size bits (DSENT 0.91 Bulk32LVT run, "
            "544-bit DFF-RAM buffers of 4 VCs x 32 flits: one input port's leakage "
            "136.938 mW / 128 slots / 544 bits = 1.96664 uW; flip-flops and read mux; from "
            "1.960 (8 VCs x 32) to 2.002 (4 x 8 at 128 bits) over DSENT's other runs; "
            "docs/dsent-32nm.md)")
        .range("0uW/bit", "1000uW/bit");
    d.param("link_static", &energy_params::link_static, "0.11365uW/bit/mm",
            "Static power per wire (flit bit) and mm of each unidirectional link that exists "
            "(mesh, wrap, express and the configured ARIES bypass segments) (DSENT 0.91 "
            "Bulk32LVT RepeatedLink, 3 mm: leakage 0.185477 mW / 544 bits / 3 mm; 0.340951 uW "
            "per wire at 128, 256, 544 and 1024 bits. DSENT's leakage is its driver's, the same "
            "for 3 to 21 mm at 10 ns per pitch, so longer links are charged more than DSENT "
            "gives; docs/dsent-32nm.md)")
        .range("0uW/bit/mm", "1000uW/bit/mm");
    d.param("mux_static", &energy_params::mux_static, "1.088uW/bit",
            "ARIES only: static power of one input-port mux per flit bit; 4 muxes per router "
            "(+x, -x, +y, -y, aries.md §III-B-1) (DSENT 0.91 Bulk32LVT run of a 3-input, "
            "544-bit Multiplexer: leakage 0.59205 mW / 544 bits; 1.092 uW at 128 bits, 1.088 "
            "at 1024; docs/dsent-32nm.md)")
        .range("0uW/bit", "1000uW/bit");
    d.param("segment_switch_static", &energy_params::segment_switch_static, "0.5442uW/bit",
            "ARIES only: static power of one segment switch per flit bit; one switch per bypass "
            "track per router (2 row and 2 column tracks: 4 per router, aries.md §III-B-2) "
            "(DSENT's 2-input Multiplexer stands in, Bulk32LVT: leakage 0.296025 mW / 544 "
            "bits, an upper bound for one pass transistor per bit; docs/dsent-32nm.md)")
        .range("0uW/bit", "1000uW/bit");
}

}  // namespace trainvp::noc
