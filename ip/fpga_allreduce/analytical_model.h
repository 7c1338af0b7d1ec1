// The analytical performance model of smartnic.md §IV-C: MLP training with the all-reduce
// offloaded to FPGA smart NICs that run a pipelined ring (Fig. 1) and overlap it with the
// backward pass as in Fig. 3b.  Pure C++ (no SystemC); times in seconds, as the paper writes
// its formulas.
//
//   T_F_l   = 2 M_l^2 B / P_worker                 T_B_l = 4 M_l^2 B / P_worker
//   R_l     = b N ceil(M_l^2 / N)                  bits processed per node
//   T_ring_l = R_l 2(N-1) / (N alpha BW_eth beta)
//   T_add_l  = R_l 2(N-1) / (N P_FPGA b)
//   T_mem_l  = 2 R_l / BW_pcie
//   T_AR_l   = max(T_ring_l, T_add_l, T_mem_l)
//   T_total  = sum_l T_F_l + T_B_L + max(T_B_{L-1}, T_AR_L)
//              + sum_{l=2}^{L-1} max(T_U_{l+1} + T_B_{l-1}, T_AR_l) + max(T_U_2, T_AR_1) + T_U_1
//
// T_U_l (the weight update) is measured in the paper; here it is an input per layer.
#pragma once

#include <cstdint>
#include <vector>

namespace trainvp::fpga {

struct smartnic_model_inputs {
    std::vector<std::uint64_t> layer_dims;  // M_l for l = 1..L (layer l's weights are M_l x M_l)
    std::uint64_t batch = 0;                // B, per worker
    std::uint64_t nodes = 0;                // N
    double worker_flops = 0;                // P_worker, FLOP/s
    double add_bits = 32;                   // b, the gradient addition bit width
    double alpha = 1;                       // usable fraction of the Ethernet bandwidth
    double eth_bits_per_s = 0;              // BW_eth
    double beta = 1;                        // compression ratio (1: no compression)
    double pcie_bits_per_s = 0;             // BW_pcie
    double fpga_flops = 0;                  // P_FPGA, FP32 additions per second
    std::vector<double> update_s;           // T_U_l per layer (seconds); empty: all zero
};

struct smartnic_layer_times {
    double forward = 0;    // T_F_l
    double backward = 0;   // T_B_l
    double bits = 0;       // R_l
    double ring = 0;       // T_ring_l
    double add = 0;        // T_add_l
    double mem = 0;        // T_mem_l
    double allreduce = 0;  // T_AR_l
    double update = 0;     // T_U_l
};

struct smartnic_model_result {
    std::vector<smartnic_layer_times> layers;  // index l - 1
    double forward = 0;                        // sum of T_F_l
    double total = 0;                          // T_total
};

// Throws std::invalid_argument on no layers, N < 2, B = 0, a non-positive rate, or an
// update_s of the wrong length.  With L = 1 the trace degenerates to
// T_F_1 + T_B_1 + T_AR_1 + T_U_1 (nothing to overlap).
smartnic_model_result smartnic_model(const smartnic_model_inputs& in);

}  // namespace trainvp::fpga
