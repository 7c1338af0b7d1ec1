// The compute of one ARIES chiplet (aries.md Fig. 4(b), Table II): `pes` TPU-like PEs, each a
// rows x cols multiplier array with its own buffer, a shared global buffer, one clock.  It times
// a zoo layer's forward and backward passes for the batch the model was loaded with.  Pure C++.
//
// GEMMs (conv via im2col, fc, attention projections and batched matmuls, DLRM interaction) are
// mapped weight-stationary: a GEMM streaming `m` rows through a `k` (reduction) x `n` operand is
// cut into ceil(k/rows) * ceil(n/cols) array tiles; a tile takes `m` cycles (one row per cycle,
// the array fill/drain is not counted).  Tiles go to the PEs in parallel; when there are fewer
// tiles than PEs, each tile's m rows are split over floor(pes / tiles) PEs:
//     s = max(1, floor(pes / tiles)),  cycles = ceil(tiles * s / pes) * ceil(m / s).
// Dims that are multiples of the array edge with tiles a multiple of pes run at peak
// (m*k*n / (rows*cols*pes) cycles).  FLOPs the zoo counts beyond 2 per GEMM multiply-add
// (activations, normalisation, pooling, softmax, element-wise sums) run on a vector path of
// `vector_flops_per_cycle` per PE.
//
// Memory: a pass's operands (inputs, weights touched, outputs; for the backward pass the
// output gradient, the saved input, the weights, and the input and weight gradients) stay in
// the global buffer if they fit; otherwise all of them stream from DRAM once at
// `dram_bandwidth`, double-buffered so that streaming overlaps compute:
//     pass time = max(compute time, footprint bytes / dram_bandwidth).
#pragma once

#include <cstdint>
#include <string>

#include "workloads/models/layer_info.h"

namespace trainvp::noc {

struct pe_array_config {
    int pes = 16;                                  // aries.md Table II: # of PEs 16
    int rows = 32, cols = 32;                      // Table II: multiplier array 32x32
    double frequency_hz = 1e9;                     // Table II: clock rate 1 GHz
    std::uint64_t pe_buffer_bytes = 64 * 1024;     // Table II: PE buffer 64 KB
    std::uint64_t global_buffer_bytes = 4u << 20;  // Table II: global buffer 4 MB
    double dram_bytes_per_s = 256e9;               // assumption (see the param)
    double vector_flops_per_cycle = 32;            // per PE (see the param)
};

// One GEMM of an m x k by k x n product, `count` times (groups, heads x batch...).
struct gemm_shape {
    std::int64_t m = 0, k = 0, n = 0, count = 1;
    std::int64_t macs() const { return m * k * n * count; }
};

struct pass_timing {
    std::uint64_t compute_cycles = 0;  // GEMM tiles + vector work
    std::uint64_t gemm_macs = 0;       // multiply-adds mapped on the arrays
    std::uint64_t footprint_bytes = 0;
    bool streamed = false;  // footprint > global buffer: operands come from DRAM
    std::uint64_t memory_ps = 0;
    std::uint64_t time_ps = 0;  // max(compute, memory)
    // Fraction of the arrays' peak the GEMM cycles achieve (1 if there is no GEMM).
    double utilisation = 1;
};

struct layer_timing {
    pass_timing forward, backward;
};

class pe_array_model {
public:
    explicit pe_array_model(const pe_array_config& cfg);

    const pe_array_config& config() const { return m_cfg; }
    // Cycles one GEMM (all `count` copies) takes on the PE arrays.
    std::uint64_t gemm_cycles(const gemm_shape& g) const;
    // Forward and backward timing of one layer, for the batch its model was loaded with.
    layer_timing time_layer(const models::layer_info& l, std::int64_t batch,
                            std::int64_t bytes_per_value) const;
    // Work known only by its FLOPs and bytes (an op of an op list or a trace's compute node: no
    // layer shape): `matrix_flops` as GEMM multiply-adds (2 FLOPs each) at the arrays' peak,
    // ceil(flops / (2 pes rows cols)) cycles (the best mapping, since no shape says
    // otherwise), `vector_flops` on the vector path, and `bytes` of operands held in the global
    // buffer or streamed from DRAM as a layer's are: time = max(compute, streaming).
    pass_timing time_work(double matrix_flops, double vector_flops, std::uint64_t bytes) const;
    std::uint64_t cycles_to_ps(std::uint64_t cycles) const;
    // ceil(bytes / dram bandwidth) in ps.
    std::uint64_t stream_ps(std::uint64_t bytes) const;

private:
    pass_timing pass(const std::vector<gemm_shape>& gemms, std::int64_t flops,
                     std::uint64_t footprint) const;

    pe_array_config m_cfg;
};

}  // namespace trainvp::noc
