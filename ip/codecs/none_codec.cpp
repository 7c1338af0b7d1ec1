#include "ip/codecs/none_codec.h"

#include <cstring>
#include <memory>
#include <string>

#include "ip/codecs/codec_info.h"

namespace trainvp::codecs {

namespace {

// A plain memcpy is the little-endian layout only on a little-endian host; elsewhere bytes are
// assembled one by one so the stream stays the same on every host.
constexpr bool host_is_little_endian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

}  // namespace

std::string none_codec::name() const { return "none"; }

void none_codec::encode(const float* in, std::size_t n, std::vector<std::uint8_t>& out) const {
    const std::size_t base = out.size();
    out.resize(base + 4 * n);
    std::uint8_t* p = out.data() + base;
    if constexpr (host_is_little_endian) {
        if (n > 0) std::memcpy(p, in, 4 * n);
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t u;
            std::memcpy(&u, &in[i], 4);
            for (int b = 0; b < 4; ++b) p[4 * i + b] = static_cast<std::uint8_t>(u >> (8 * b));
        }
    }
}

std::size_t none_codec::decode(const std::uint8_t* in, std::size_t bytes, float* out,
                               std::size_t n) const {
    if (n > bytes / 4) {
        throw codec_error("none: stream of " + std::to_string(bytes) + " bytes holds fewer than " +
                          std::to_string(n) + " floats");
    }
    if constexpr (host_is_little_endian) {
        if (n > 0) std::memcpy(out, in, 4 * n);
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t u = 0;
            for (int b = 0; b < 4; ++b) u |= static_cast<std::uint32_t>(in[4 * i + b]) << (8 * b);
            std::memcpy(&out[i], &u, 4);
        }
    }
    return 4 * n;
}

codec_info none_codec_info() {
    codec_info c;
    c.name = "none";
    c.description =
        "Identity: the floats' IEEE-754 bits, 4 bytes each, bit-exact (what the wire carries "
        "when compression is off)";
    c.make = [](const codec_args&) { return std::make_unique<none_codec>(); };
    return c;
}

}  // namespace trainvp::codecs
