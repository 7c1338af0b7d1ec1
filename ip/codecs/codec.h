// The interface every gradient codec implements (inceptionn, bfp, none).  Pure C++: the NIC,
// the FPGA all-reduce engine and the NoC use the same objects, and tests run them alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace trainvp::codecs {

// Corrupt or truncated compressed input.  Decoders throw it instead of reading out of bounds.
class codec_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class codec {
public:
    virtual ~codec() = default;

    // Registry-style name ("inceptionn", "bfp", "none").
    virtual std::string name() const = 0;

    // Appends the encoding of in[0..n) to out.
    virtual void encode(const float* in, std::size_t n, std::vector<std::uint8_t>& out) const = 0;

    // Decodes exactly n floats from in[0..bytes) into out[0..n).  Returns the number of input
    // bytes consumed.  Throws codec_error on corrupt or truncated input.
    virtual std::size_t decode(const std::uint8_t* in, std::size_t bytes, float* out,
                               std::size_t n) const = 0;
};

}  // namespace trainvp::codecs
