#include "workloads/iteration/gradient_buckets.h"

namespace trainvp::workloads {

std::vector<gradient_bucket> bucket_gradients(const std::vector<models::layer_info>& layers,
                                              std::uint64_t bucket_bytes,
                                              const std::function<bool(std::size_t)>& exchanged) {
    const std::size_t n = layers.size();
    std::vector<std::uint64_t> offset(n, 0);
    std::uint64_t grads = 0;
    for (std::size_t l = 0; l < n; ++l) {
        offset[l] = grads;
        grads += static_cast<std::uint64_t>(layers[l].weight_grad_bytes);
    }
    std::vector<gradient_bucket> out;
    gradient_bucket cur{"", 0, 0, 0, {}};
    auto close = [&]() {
        const std::size_t low = cur.layers.back();
        cur.name = layers[low].name;
        cur.close_layer = low;
        cur.offset = offset[low];
        out.push_back(cur);
        cur = gradient_bucket{"", 0, 0, 0, {}};
    };
    for (std::size_t l = n; l-- > 0;) {
        if (layers[l].weight_grad_bytes <= 0) continue;
        if (exchanged && !exchanged(l)) continue;
        cur.layers.push_back(l);
        cur.bytes += static_cast<std::uint64_t>(layers[l].weight_grad_bytes);
        if (cur.bytes >= bucket_bytes) close();
    }
    if (!cur.layers.empty()) close();
    return out;
}

}  // namespace trainvp::workloads
