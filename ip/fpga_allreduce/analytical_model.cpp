#include "ip/fpga_allreduce/analytical_model.h"

#include <algorithm>
#include <stdexcept>

namespace trainvp::fpga {

smartnic_model_result smartnic_model(const smartnic_model_inputs& in) {
    const std::size_t L = in.layer_dims.size();
    if (L == 0) throw std::invalid_argument("smartnic_model: no layers");
    if (in.nodes < 2) throw std::invalid_argument("smartnic_model: a ring needs N >= 2 nodes");
    if (in.batch == 0) throw std::invalid_argument("smartnic_model: batch 0");
    if (in.worker_flops <= 0 || in.add_bits <= 0 || in.alpha <= 0 || in.eth_bits_per_s <= 0 ||
        in.beta <= 0 || in.pcie_bits_per_s <= 0 || in.fpga_flops <= 0) {
        throw std::invalid_argument("smartnic_model: every rate and ratio must be positive");
    }
    if (!in.update_s.empty() && in.update_s.size() != L) {
        throw std::invalid_argument("smartnic_model: update_s needs one time per layer");
    }
    const double N = static_cast<double>(in.nodes);
    const double B = static_cast<double>(in.batch);
    smartnic_model_result r;
    r.layers.resize(L);
    for (std::size_t i = 0; i < L; ++i) {
        smartnic_layer_times& t = r.layers[i];
        const std::uint64_t m2 = in.layer_dims[i] * in.layer_dims[i];
        const double M2 = static_cast<double>(m2);
        t.forward = 2.0 * M2 * B / in.worker_flops;
        t.backward = 4.0 * M2 * B / in.worker_flops;
        // Padded to N equal chunks: ceil(M^2 / N) elements each.
        const std::uint64_t per_chunk = (m2 + in.nodes - 1) / in.nodes;
        t.bits = in.add_bits * N * static_cast<double>(per_chunk);
        const double steps = 2.0 * (N - 1.0);
        t.ring = t.bits * steps / (N * in.alpha * in.eth_bits_per_s * in.beta);
        t.add = t.bits * steps / (N * in.fpga_flops * in.add_bits);
        t.mem = 2.0 * t.bits / in.pcie_bits_per_s;
        t.allreduce = std::max({t.ring, t.add, t.mem});
        t.update = in.update_s.empty() ? 0.0 : in.update_s[i];
        r.forward += t.forward;
    }
    // Layers are 1-based in the paper: T(l) is r.layers[l - 1].
    auto T = [&r](std::size_t l) -> const smartnic_layer_times& { return r.layers[l - 1]; };
    double total = r.forward;
    if (L == 1) {
        total += T(1).backward + T(1).allreduce + T(1).update;
    } else {
        total += T(L).backward + std::max(T(L - 1).backward, T(L).allreduce);
        for (std::size_t l = 2; l + 1 <= L; ++l) {
            total += std::max(T(l + 1).update + T(l - 1).backward, T(l).allreduce);
        }
        total += std::max(T(2).update, T(1).allreduce) + T(1).update;
    }
    r.total = total;
    return r;
}

}  // namespace trainvp::fpga
