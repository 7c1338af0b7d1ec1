// NoC dynamic energy from event counts: per-flit buffer write and read, crossbar traversal
// and switch/VC allocation in the routers, and per-bit-per-mm energy on the interposer links.
// The per-event energies are the block's params (with their sources); this only multiplies.
// Pure C++.
#pragma once

#include "noc/network/noc_network.h"

namespace trainvp::noc {

struct energy_params {
    double buffer_write_pj_per_bit = 0;
    double buffer_read_pj_per_bit = 0;
    double crossbar_pj_per_bit = 0;
    double allocation_pj = 0;  // per VC or switch allocation
    double link_pj_per_bit_mm = 0;
    double pitch_mm = 0;  // length of a one-pitch link
    double flit_bits = 0;
};

struct energy_totals {
    double buffer_pj = 0, crossbar_pj = 0, allocation_pj = 0, link_pj = 0;
    double total_pj() const { return buffer_pj + crossbar_pj + allocation_pj + link_pj; }

    static energy_totals of(const network_counts& c, const energy_params& e) {
        energy_totals t;
        t.buffer_pj = (static_cast<double>(c.buffer_writes) * e.buffer_write_pj_per_bit +
                       static_cast<double>(c.buffer_reads) * e.buffer_read_pj_per_bit) *
                      e.flit_bits;
        t.crossbar_pj = static_cast<double>(c.crossbar) * e.crossbar_pj_per_bit * e.flit_bits;
        t.allocation_pj =
            static_cast<double>(c.vc_allocations + c.switch_allocations) * e.allocation_pj;
        t.link_pj = c.link_flit_pitches * e.pitch_mm * e.flit_bits * e.link_pj_per_bit_mm;
        return t;
    }
};

}  // namespace trainvp::noc
