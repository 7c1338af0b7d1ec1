#include "sparse_codec.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace sparse {

std::uint64_t kept_elements(std::uint64_t n, double density) {
    if (n == 0) return 0;
    if (!(density > 0.0) || density > 1.0) throw std::invalid_argument("density not in (0, 1]");
    const auto k = static_cast<std::uint64_t>(std::ceil(density * static_cast<double>(n)));
    return std::min(n, std::max<std::uint64_t>(1, k));
}

std::uint64_t encoded_bytes(std::uint64_t k, const format& f) {
    return f.header_bytes + k * (f.value_bytes + f.index_bytes);
}

encoded top_k(const std::vector<float>& grad, std::uint64_t k) {
    std::vector<std::uint32_t> order(grad.size());
    std::iota(order.begin(), order.end(), 0u);
    k = std::min<std::uint64_t>(k, grad.size());
    auto larger = [&](std::uint32_t a, std::uint32_t b) {
        const float ma = std::fabs(grad[a]), mb = std::fabs(grad[b]);
        return ma != mb ? ma > mb : a < b;
    };
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                     larger);
    order.resize(k);
    std::sort(order.begin(), order.end());
    encoded e;
    e.index = order;
    for (std::uint32_t i : order) e.value.push_back(grad[i]);
    return e;
}

std::vector<float> densify(const encoded& e, std::uint64_t n) {
    std::vector<float> out(n, 0.0f);
    for (std::size_t j = 0; j < e.index.size(); ++j) {
        if (e.index[j] >= n) throw std::out_of_range("sparse index beyond the frame");
        out[e.index[j]] = e.value[j];
    }
    return out;
}

}  // namespace sparse
