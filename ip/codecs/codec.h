// The interface every gradient codec implements (inceptionn, bfp, none, a plugin's).  Pure C++:
// blocks make theirs by name through codec_registry (the FPGA all-reduce engine's bfp), and
// tests run them alone.
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

    // The bytes encode() appends for n values, when the format fixes that size (none: 4n,
    // bfp).  A codec whose size depends on the values (inceptionn) throws std::logic_error:
    // timing mode takes its size from statistics instead (inceptionn's bit-width histogram).
    virtual std::size_t encoded_bytes(std::size_t n) const {
        throw std::logic_error(name() + ": the encoded size depends on the values (" +
                               std::to_string(n) + " values)");
    }
};

}  // namespace trainvp::codecs
