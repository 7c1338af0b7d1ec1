// Top-k gradient sparsification of one frame's FP32 gradients: keep the k largest magnitudes,
// send them as (index, value) pairs after a count.  Pure C++ (no SystemC): the NIC uses the
// size arithmetic for timing; the encode/decode functions are the format, tested alone
// (test_sparse_codec.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace sparse {

// The wire format of a sparsified frame.
struct format {
    std::uint64_t value_bytes = 4;   // FP32 value
    std::uint64_t index_bytes = 4;   // element index within the frame
    std::uint64_t header_bytes = 4;  // number of pairs that follow
};

// Elements kept out of n at density d (0 < d <= 1): ceil(d * n), at least 1 when n > 0.
std::uint64_t kept_elements(std::uint64_t n, double density);

// Bytes of a sparsified frame that keeps k elements.
std::uint64_t encoded_bytes(std::uint64_t k, const format& f);

struct encoded {
    std::vector<std::uint32_t> index;  // ascending
    std::vector<float> value;
};

// The k elements of largest magnitude (ties: the lower index), in index order.
encoded top_k(const std::vector<float>& grad, std::uint64_t k);

// The dense frame of n elements: kept values at their indices, zero elsewhere.
std::vector<float> densify(const encoded& e, std::uint64_t n);

}  // namespace sparse
