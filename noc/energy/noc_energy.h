// NoC dynamic energy from event counts: per-flit buffer write and read, crossbar traversal
// and switch/VC allocation in the routers, and per-bit-per-mm energy on the interposer links.
// The per-event energies are the block's params (energy_params.h, with their sources); this
// only multiplies.
// Pure C++.
#pragma once

#include "noc/energy/energy_params.h"
#include "noc/network/noc_network.h"

namespace trainvp::noc {

struct energy_totals {
    double buffer_pj = 0, crossbar_pj = 0, allocation_pj = 0, link_pj = 0;
    double total_pj() const { return buffer_pj + crossbar_pj + allocation_pj + link_pj; }

    // `pitch_mm`: length of a one-pitch link; `flit_bits`: bits per flit.
    static energy_totals of(const network_counts& c, const energy_params& e, double pitch_mm,
                            double flit_bits) {
        energy_totals t;
        t.buffer_pj = (static_cast<double>(c.buffer_writes) * e.buffer_write.pj_per_bit +
                       static_cast<double>(c.buffer_reads) * e.buffer_read.pj_per_bit) *
                      flit_bits;
        t.crossbar_pj = static_cast<double>(c.crossbar) * e.crossbar.pj_per_bit * flit_bits;
        t.allocation_pj =
            static_cast<double>(c.vc_allocations + c.switch_allocations) * e.allocation.pj;
        t.link_pj = c.link_flit_pitches * pitch_mm * flit_bits * e.link.pj_per_bit_mm;
        return t;
    }
};

}  // namespace trainvp::noc
