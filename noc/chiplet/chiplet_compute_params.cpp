#include "noc/chiplet/chiplet_compute_params.h"

namespace trainvp::noc {

void chiplet_compute_params::declare(param_list<chiplet_compute_params>& d) {
    using P = chiplet_compute_params;
    d.param("pes", &P::pes, "16", "PEs per chiplet (aries.md Table II: # of PEs 16)")
        .range("1", "1024");
    d.param("pe_array", &P::pe_array, "32",
            "Edge of a PE's square multiplier array (aries.md Table II: multiplier array 32x32)")
        .range("1", "1024");
    d.param("global_buffer", &P::global_buffer, "4MiB",
            "Chiplet global buffer (aries.md Table II: global buffer 4 MB); an op whose memory "
            "traffic does not fit streams it from DRAM")
        .range("1B", "16GiB");
    d.param("pe_clock", &P::pe_clock, "1GHz",
            "PE array clock (aries.md Table II: clock rate 1 GHz)")
        .range("1MHz", "10GHz");
    d.param("dram_bandwidth", &P::dram_bandwidth, "256GB/s",
            "DRAM bandwidth of one chiplet for operands that overflow the global buffer. "
            "ASSUMPTION: aries.md gives none; 256 GB/s is one HBM2 stack (JEDEC JESD235: "
            "1024-bit interface at 2 Gb/s per pin)")
        .range("1MB/s", "100TB/s");
    d.param("vector_flops_per_cycle", &P::vector_flops_per_cycle, "32",
            "FLOPs per cycle per PE for element-wise work (sum and update ops). ASSUMPTION: one "
            "array edge (32) wide, as workload.chiplet_training's vector path")
        .range("1", "65536");
}

pe_array_config chiplet_compute_params::config() const {
    pe_array_config c;
    c.pes = static_cast<int>(pes);
    c.rows = c.cols = static_cast<int>(pe_array);
    c.frequency_hz = pe_clock.hz;
    c.global_buffer_bytes = global_buffer.bytes;
    c.dram_bytes_per_s = dram_bandwidth.bytes_per_s;
    c.vector_flops_per_cycle = vector_flops_per_cycle;
    return c;
}

}  // namespace trainvp::noc
