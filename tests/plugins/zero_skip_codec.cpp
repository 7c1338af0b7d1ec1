// A codec in a plugin: lossless zero skipping.  The stream is a bitmap of ceil(n/8) bytes (bit
// i, LSB first, set when value i is kept: any value whose 32 bits are not all zero, so -0 and
// NaN payloads survive), then the kept values' IEEE-754 bits, four little-endian bytes each.
// Sparse gradients (a top-k NIC's, examples/custom_ip/) shrink; dense ones grow by n/8 bytes.
// docs/adding-a-collective-or-codec.md walks through this file; tests/plugins/
// test_registry_plugin.cpp loads it and round-trips it.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ip/codecs/codec.h"
#include "ip/codecs/codec_registry.h"

namespace {

using namespace trainvp::codecs;

std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

class zero_skip_codec : public codec {
public:
    std::string name() const override { return "example.zero_skip"; }

    void encode(const float* in, std::size_t n, std::vector<std::uint8_t>& out) const override {
        const std::size_t map = out.size();
        out.resize(map + (n + 7) / 8, 0);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t u = bits_of(in[i]);
            if (u == 0) continue;
            out[map + i / 8] |= static_cast<std::uint8_t>(1u << (i % 8));
            for (int b = 0; b < 4; ++b) out.push_back(static_cast<std::uint8_t>(u >> (8 * b)));
        }
    }

    std::size_t decode(const std::uint8_t* in, std::size_t bytes, float* out,
                       std::size_t n) const override {
        const std::size_t map = (n + 7) / 8;
        if (bytes < map) throw codec_error("zero_skip: truncated bitmap");
        if (n % 8 != 0 && (in[map - 1] >> (n % 8)) != 0) {
            throw codec_error("zero_skip: bits set past the last value");
        }
        std::size_t pos = map;
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t u = 0;
            if ((in[i / 8] >> (i % 8)) & 1u) {
                if (bytes - pos < 4) throw codec_error("zero_skip: truncated values");
                for (int b = 0; b < 4; ++b) u |= static_cast<std::uint32_t>(in[pos + b]) << (8 * b);
                pos += 4;
            }
            std::memcpy(&out[i], &u, 4);
        }
        return pos;
    }
};

codec_info zero_skip_info() {
    codec_info c;
    c.name = "example.zero_skip";
    c.description =
        "Zero skipping: lossless, a bitmap of the non-zero values, then those values as float32";
    c.make = [](const codec_args&) { return std::make_unique<zero_skip_codec>(); };
    return c;
}

}  // namespace

TRAINVP_REGISTER_CODEC(zero_skip_info);
