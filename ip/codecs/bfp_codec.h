// Block floating point (BFP) codec, as used by the FPGA smart NIC (smartnic.md §IV-B).
//
// Parameters: block size B, shared-exponent bits X, mantissa bits M (magnitude bits; each
// element also has a sign bit).  BFP16 is B = 16, X = 8, M = 7: (16 * 8 + 8) / 16 = 8.5 bits
// per value, ratio 32 / 8.5 = 3.76.
//
// Numbers.  A block stores one exponent E and, per element, a sign s and a magnitude
// q in [0, 2^M - 1]; the element decodes to (-1)^s * q * 2^(E - M + 1), so ulp(E) = 2^(E-M+1)
// and the block's largest element has q >= 2^(M-1) (its leading one is the top mantissa bit).
//   E range:  bias = 2^(X-1) - 1, E_min = -bias, E_max = min(2^(X-1), 127).  For X = 8 that is
//             [-127, 127]: every finite float fits, and the field value 255 is never produced
//             (it would mean E = 128, where the block maximum could decode to 2^128 = Inf).
//   Encoding: E = max over the block of floor(log2 |x|) (denormals count as -127), clamped up to
//             E_min.  q = round-to-nearest-even(|x| * 2^(M-1-E)), computed exactly in integers.
//   Overflow: if rounding carries the largest element to q = 2^M, the whole block is requantised
//             with E + 1 (the carry bumps the exponent).  At E == E_max there is no E + 1, and
//             the carried magnitudes saturate to 2^M - 1 instead.
//   Bound:    |decoded - x| <= ulp(E) / 2 for E < E_max; < ulp(E) at E == E_max (saturation).
//             max_abs_error(E) returns exactly that.
//   Zeros:    +-0 keep their sign (sign bit, q = 0); an all-zero block has E = E_min.  Elements
//             that round to zero keep their sign too.
//   Denormal: handled like any small value: quantised on the block's grid, exact when the grid
//             reaches them (an all-denormal BFP16 block has ulp = 2^-133).
//   Inf/NaN:  encode throws std::domain_error; BFP has no encoding for them and a non-finite
//             gradient is a training bug that must not be hidden.  So does a finite value above
//             the exponent range (only possible for X < 8).  `out` is left as it was.
//
// Stream layout.  One record per block of B values; the last (tail) block holds the remaining
// n % B values and is not padded with dummy elements:
//   record = E + bias (X bits) | element 0 | element 1 | ...      element = q (M bits) | s (1 bit)
// Bits are packed LSB first (stream bit i is bit (i % 8) of byte i / 8; a field's bit 0 comes
// first).  Records follow each other without gaps; the final byte is padded with zero bits, so a
// stream of n values is ceil((ceil(n / B) * X + n * (M + 1)) / 8) bytes.  For BFP16 every
// element is one byte (s << 7 | q) after the exponent byte: 17 bytes per block.
//
// decode() rejects truncated input, E > E_max, a block with E > E_min whose largest magnitude
// is below 2^(M-1) (the encoder never makes one) and non-zero padding bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ip/codecs/codec.h"

namespace trainvp::codecs {

struct codec_info;

class bfp_codec : public codec {
public:
    static constexpr std::size_t max_block_size = 65536;

    // Throws std::invalid_argument unless block_size in [1, 65536], exponent_bits in [2, 8],
    // mantissa_bits in [1, 23] (23 keeps every grid point of the lowest block a float).
    bfp_codec(std::size_t block_size, unsigned exponent_bits, unsigned mantissa_bits);

    // The BFP16 format of smartnic.md: blocks of 16, 8-bit shared exponent, 7-bit mantissas.
    static bfp_codec bfp16() { return bfp_codec(16, 8, 7); }

    std::string name() const override;
    void encode(const float* in, std::size_t n, std::vector<std::uint8_t>& out) const override;
    std::size_t decode(const std::uint8_t* in, std::size_t bytes, float* out,
                       std::size_t n) const override;

    std::size_t block_size() const { return m_block_size; }
    unsigned exponent_bits() const { return m_exponent_bits; }
    unsigned mantissa_bits() const { return m_mantissa_bits; }
    int min_shared_exponent() const { return m_e_min; }
    int max_shared_exponent() const { return m_e_max; }

    // Stream size for n values.
    std::size_t encoded_bytes(std::size_t n) const override;
    // Per value, for full blocks: (B * (M + 1) + X) / B.
    double bits_per_value() const;
    double compression_ratio() const { return 32.0 / bits_per_value(); }

    // The shared exponent encode() gives the block in[0..count) (after clamping and a possible
    // carry bump).  Throws std::domain_error like encode().
    int shared_exponent(const float* block, std::size_t count) const;
    // 2^(E - M + 1).  Throws std::invalid_argument if E is outside [E_min, E_max].
    double ulp(int shared_exponent) const;
    // The largest |decoded - x| for an element of a block with this shared exponent.
    double max_abs_error(int shared_exponent) const;

private:
    // Quantises a block into magnitudes q[0..count); returns the shared exponent.
    int quantize_block(const float* block, std::size_t count, std::uint32_t* q) const;

    std::size_t m_block_size;
    unsigned m_exponent_bits;
    unsigned m_mantissa_bits;
    int m_bias;
    int m_e_min;
    int m_e_max;
};

// Registry entry "bfp" (codec_registry; listed in builtin_codecs.cpp): params block_size,
// exponent_bits, mantissa_bits, BFP16 by default.
codec_info bfp_codec_info();

}  // namespace trainvp::codecs
