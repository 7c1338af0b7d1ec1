// The per-sample shape of a tensor flowing between layers.  The batch dimension is never part
// of it: batch is chosen when the model is loaded, and every count that depends on it is
// multiplied in by the layer formulas.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainvp::models {

enum class tensor_layout {
    CHW,       // image feature map: channels, height, width
    FEATURES,  // one flat feature vector
    TOKENS,    // rows of feature vectors (sequence tokens, or a bag of embedding vectors)
    INDICES,   // integer ids read by embedding layers (token ids, categorical features)
};

struct tensor_shape {
    tensor_layout layout = tensor_layout::FEATURES;
    std::vector<std::int64_t> dims;  // CHW: {C,H,W}; FEATURES: {F}; TOKENS: {T,F}; INDICES: {n}

    static tensor_shape chw(std::int64_t c, std::int64_t h, std::int64_t w);
    static tensor_shape features(std::int64_t f);
    static tensor_shape tokens(std::int64_t t, std::int64_t f);
    static tensor_shape indices(std::int64_t n);

    // Values per sample (product of dims).
    std::int64_t elements() const;
    // The dimension normalisation and fc layers act on: F for FEATURES/TOKENS, C for CHW.
    std::int64_t channels() const;
    // How many feature vectors of channels() a sample holds: T for TOKENS, H*W for CHW, else 1.
    std::int64_t positions() const;

    // "256x13x13", "4096", "512x512 tokens", "100 indices".
    std::string str() const;

    bool operator==(const tensor_shape& o) const { return layout == o.layout && dims == o.dims; }
    bool operator!=(const tensor_shape& o) const { return !(*this == o); }
};

}  // namespace trainvp::models
