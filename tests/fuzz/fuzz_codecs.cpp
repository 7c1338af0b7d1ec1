// Fuzz target: arbitrary bytes into the codecs' decoders.  The first byte picks the codec and
// its parameter, the next two the value count; the rest is the compressed stream.  A decoder
// must decode or throw codec_error, and never read outside the input.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ip/codecs/bfp_codec.h"
#include "ip/codecs/inceptionn_codec.h"
#include "ip/codecs/none_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) return 0;
    const std::uint8_t pick = data[0];
    const std::size_t n = static_cast<std::size_t>(data[1] | (data[2] << 8)) % 4096;
    const std::uint8_t* in = data + 3;
    const std::size_t bytes = size - 3;
    std::vector<float> out(n + 1);
    try {
        switch (pick % 3) {
            case 0: {
                trainvp::codecs::inceptionn_codec c(-1 - static_cast<int>((pick / 3) % 31));
                c.decode(in, bytes, out.data(), n);
                break;
            }
            case 1: {
                trainvp::codecs::bfp_codec c = trainvp::codecs::bfp_codec::bfp16();
                c.decode(in, bytes, out.data(), n);
                break;
            }
            default: {
                trainvp::codecs::none_codec c;
                c.decode(in, bytes, out.data(), n);
                break;
            }
        }
    } catch (const trainvp::codecs::codec_error&) {
    }
    return 0;
}
