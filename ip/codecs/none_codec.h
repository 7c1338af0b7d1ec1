// Identity codec for lossless paths: the stream is the n floats' IEEE-754 bits, four
// little-endian bytes each (4n bytes, no header), which is also what the wire carries when
// compression is off.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ip/codecs/codec.h"

namespace trainvp::codecs {

struct codec_info;

class none_codec : public codec {
public:
    std::string name() const override;
    void encode(const float* in, std::size_t n, std::vector<std::uint8_t>& out) const override;
    std::size_t decode(const std::uint8_t* in, std::size_t bytes, float* out,
                       std::size_t n) const override;
    std::size_t encoded_bytes(std::size_t n) const override { return 4 * n; }
};

// Registry entry "none" (codec_registry; listed in builtin_codecs.cpp).
codec_info none_codec_info();

}  // namespace trainvp::codecs
