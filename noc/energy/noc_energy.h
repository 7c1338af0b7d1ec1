// The NoC's energy: dynamic energy from event counts (per-flit buffer write and read, per bit
// and growing with the buffer's slots as DSENT's DFF-RAM does; crossbar traversal, switch/VC
// allocation in the routers, per-bit-per-mm energy on the links by their length, and on ARIES
// the input-port muxes and the segment switches a bypass flit passes) plus static power times
// the execution time (energy/noc_inventory: routers, ports, crosspoints, buffer slots, links
// per mm, muxes, segment switches, all but the allocators per flit bit).  The per-event
// energies and powers are the block's params (energy_params.h, with their sources); this only
// multiplies.  Pure C++.
#pragma once

#include "noc/energy/energy_params.h"
#include "noc/energy/noc_inventory.h"
#include "noc/network/noc_network.h"

namespace trainvp::noc {

struct energy_totals {
    double buffer_pj = 0, crossbar_pj = 0, allocation_pj = 0, link_pj = 0;
    double mux_pj = 0, segment_switch_pj = 0;
    double static_mw = 0, static_pj = 0;
    double dynamic_pj() const {
        return buffer_pj + crossbar_pj + allocation_pj + link_pj + mux_pj + segment_switch_pj;
    }
    double total_pj() const { return dynamic_pj() + static_pj; }

    // `pitch_mm`: length of a one-pitch link; `flit_bits`: bits per flit; `slots`: flit slots
    // of an input port's buffer (VCs x depth); `aries`: flits arriving on links pass an
    // input-port mux; `inventory` leaks for `time_ns`.
    static energy_totals of(const network_counts& c, const energy_params& e, double pitch_mm,
                            double flit_bits, double slots, bool aries,
                            const noc_inventory& inventory, double time_ns) {
        energy_totals t;
        const double write = e.buffer_write.pj_per_bit + slots * e.buffer_write_slot.pj_per_bit;
        const double read = e.buffer_read.pj_per_bit + slots * e.buffer_read_slot.pj_per_bit;
        t.buffer_pj = (static_cast<double>(c.buffer_writes) * write +
                       static_cast<double>(c.buffer_reads) * read) *
                      flit_bits;
        t.crossbar_pj = static_cast<double>(c.crossbar) * e.crossbar.pj_per_bit * flit_bits;
        t.allocation_pj =
            static_cast<double>(c.vc_allocations + c.switch_allocations) * e.allocation.pj;
        t.link_pj = c.link_flit_pitches * pitch_mm * flit_bits * e.link.pj_per_bit_mm;
        if (aries) {
            t.mux_pj = static_cast<double>(c.flit_hops) * flit_bits * e.mux.pj_per_bit;
            // Leaving one router's segment switch and entering the other's.
            t.segment_switch_pj = 2.0 * static_cast<double>(c.bypass_flit_hops) * flit_bits *
                                  e.segment_switch.pj_per_bit;
        }
        t.static_mw = inventory.static_mw(e, flit_bits);
        t.static_pj = t.static_mw * time_ns;  // mW x ns = pJ
        return t;
    }
};

}  // namespace trainvp::noc
