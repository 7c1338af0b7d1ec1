#include "workloads/models/tensor_shape.h"

namespace trainvp::models {

tensor_shape tensor_shape::chw(std::int64_t c, std::int64_t h, std::int64_t w) {
    return {tensor_layout::CHW, {c, h, w}};
}

tensor_shape tensor_shape::features(std::int64_t f) { return {tensor_layout::FEATURES, {f}}; }

tensor_shape tensor_shape::tokens(std::int64_t t, std::int64_t f) {
    return {tensor_layout::TOKENS, {t, f}};
}

tensor_shape tensor_shape::indices(std::int64_t n) { return {tensor_layout::INDICES, {n}}; }

std::int64_t tensor_shape::elements() const {
    std::int64_t n = 1;
    for (auto d : dims) n *= d;
    return n;
}

std::int64_t tensor_shape::channels() const {
    if (dims.empty()) return 0;
    return layout == tensor_layout::CHW ? dims[0] : dims.back();
}

std::int64_t tensor_shape::positions() const {
    switch (layout) {
        case tensor_layout::CHW:
            return dims.size() == 3 ? dims[1] * dims[2] : 0;
        case tensor_layout::TOKENS:
            return dims.empty() ? 0 : dims[0];
        default:
            return 1;
    }
}

std::string tensor_shape::str() const {
    std::string s;
    for (auto d : dims) {
        if (!s.empty()) s += "x";
        s += std::to_string(d);
    }
    if (layout == tensor_layout::TOKENS) s += " tokens";
    if (layout == tensor_layout::INDICES) s += " indices";
    return s;
}

}  // namespace trainvp::models
