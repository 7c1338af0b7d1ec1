// INCEPTIONN lossy gradient codec (INCEPTIONN, MICRO'18, §V Algorithms 2 and 3, §VI Fig. 9-10).
//
// Per value (error bound 2^k, k in [-31, -1]; e = biased exponent field, eb = 127 + k):
//   e >= 127                        NO_COMPRESS    tag 2'b11, payload = the 32 float bits
//   e <  eb                         COMPRESS_0BIT  tag 2'b00, no payload, decodes to +0
//   eb <= e < 127, e >= t16         COMPRESS_16BIT tag 2'b10, payload {s, shifted_m[22:8]}
//   eb <= e < t16                   COMPRESS_8BIT  tag 2'b01, payload {s, shifted_m[22:16]}
// with t16 = eb + ceil((127 - eb) / 2) and shifted_m = {1, m} >> (127 - e).  shifted_m[22:0] is
// |f| as a fixed-point fraction with 23 bits, so the 16-bit payload holds floor(|f| * 2^15) and
// the 8-bit payload floor(|f| * 2^7): both truncate towards zero.
//
// Stream layout (what the compression engine's alignment unit emits).  The stream is a sequence
// of records, one per group of eight input values (one 256-bit input burst):
//
//   record = tag vector (16 bits) | payload of value 0 | payload of value 1 | ... | value 7
//
// Bits are packed LSB first: stream bit i is bit (i % 8) of byte i / 8, and a field of width w
// holding x puts bit 0 of x at the lowest stream position.  Tag of value j sits in tag-vector
// bits [2j+1:2j].  Payloads are 0, 8, 16 or 32 bits wide, so every field and every record starts
// on a byte boundary: the tag vector is two little-endian bytes, a 16-bit payload two
// little-endian bytes, a NO_COMPRESS payload the float's four little-endian bytes.  No padding
// is ever needed.  Records follow each other without gaps; 256-bit output burst b is bytes
// [32b, 32b + 32) of the stream, and the last burst is partial (on AXI, tkeep marks its bytes).
//
// Tail group: when n is not a multiple of 8, the last record carries r = n % 8 values and still
// a full 16-bit tag vector whose unused slots hold 2'b00 (COMPRESS_0BIT, no payload).  The paper
// does not say how a partial last burst is handled; this is our choice, as the compression unit
// always emits a 16-bit tag vector and a zero tag costs no payload.  The decoder is told n and
// rejects a non-zero unused slot.  So:
//   stream bits = sum over values of (2 + payload bits) + format_overhead_bits(n),
//   format_overhead_bits(n) = 2 * (8 - n % 8) if n % 8 != 0, else 0.
// A NIC encodes each packet payload as its own stream, so the tail overhead is per packet.
//
// Decoder and the hardware's burst buffer.  The decompression engine keeps up to two 256-bit
// bursts, reads the 16-bit tag vector, sizes the eight vectors from it and decompresses the
// record once it is fully buffered, then shifts the consumed bits away.  decode() does the same
// steps on the byte stream: read the tag vector, size the record (a 256-entry table per tag
// byte), check that all of it lies within the input, extract.  It does not count cycles.  Note:
// a record is up to 272 bits, more than a burst.  A 512-bit buffer that reads a burst only when
// fewer than 256 bits are left (the paper's rule) can hold 256..271 bits when the next record is
// an all-NO_COMPRESS 272-bit one; the paper does not say what the hardware does then.  Records
// of at most 256 bits (any group with a compressed value) always fit.
//
// Errors.  decode() throws codec_error on truncation, a non-zero unused tag slot, or a vector
// compress() cannot produce for this error bound (e.g. NO_COMPRESS holding |f| < 1, an 8-bit
// vector whose n_shift belongs to the 16-bit class).  It never reads outside in[0..bytes); on a
// throw the contents of out[0..n) are unspecified.
//
// Error bound (see max_abs_error()): with h = floor(-k / 2), the 16-bit class is 2^-h <= |f| < 1
// and the 8-bit class 2^k <= |f| < 2^-h; truncation gives |decoded - f| < 2^k, min(2^-7, 2^-h)
// and 2^-15 in the 0-, 8- and 16-bit classes, so the guarantee is
//   B(k) = max(2^k, min(2^-7, 2^-h), 2^-15 if h >= 1), e.g. B(-6) = 2^-6, B(-8) = B(-10) = 2^-7,
// larger than the nominal 2^k for k <= -8.  Decoded values are never larger in magnitude than
// the input and never of the opposite sign.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ip/codecs/codec.h"

namespace trainvp::codecs {

struct codec_info;

class inceptionn_codec : public codec {
public:
    // Values are the 2-bit codes of Algorithm 2.
    enum class tag : std::uint8_t {
        COMPRESS_0BIT = 0b00,
        COMPRESS_8BIT = 0b01,
        COMPRESS_16BIT = 0b10,
        NO_COMPRESS = 0b11,
    };

    // One compressed value: the low payload_bits(t) bits of `bits` are the vector v.
    struct compressed_value {
        tag t;
        std::uint32_t bits;
    };

    // Fractions of values compressed to 2, 10, 18 and 34 bits (a row of Table III).  They need
    // not sum to exactly 1 (the table's rows are rounded); they are normalised by their sum.
    struct bit_width_histogram {
        double bits2;
        double bits10;
        double bits18;
        double bits34;
    };

    static constexpr int min_error_bound_exponent = -31;
    static constexpr int max_error_bound_exponent = -1;
    static constexpr std::size_t group_values = 8;  // floats per 256-bit input burst
    static constexpr std::size_t tag_vector_bits = 16;

    // error_bound_exponent k selects the bound 2^k.  Throws std::invalid_argument outside
    // [-31, -1]: k = 0 leaves no compressed class at all, and below -31 the 16-bit class would
    // hold values whose leading one is truncated away, where Algorithm 3's first1_loc has no '1'
    // to find.
    explicit inceptionn_codec(int error_bound_exponent);

    std::string name() const override;
    void encode(const float* in, std::size_t n, std::vector<std::uint8_t>& out) const override;
    std::size_t decode(const std::uint8_t* in, std::size_t bytes, float* out,
                       std::size_t n) const override;

    int error_bound_exponent() const { return m_k; }
    // The nominal bound 2^k the algorithm is parameterised with.
    double error_bound() const;
    // What Algorithms 2 and 3 actually guarantee: |decode(encode(f)) - f| < max_abs_error() for
    // every f with exponent field < 127 (the rest is bit-exact).  It exceeds error_bound() for
    // k <= -8, because the 8-bit class truncates to a 2^-7 grid; see README.md.
    double max_abs_error() const;

    // Algorithm 2 on one value.
    tag classify(float f) const;
    compressed_value compress(float f) const;
    // Algorithm 3 on one value.  Independent of the error bound.  An 8- or 16-bit vector with no
    // '1' in its magnitude bits decodes to a zero carrying the sign bit.
    static float decompress(compressed_value v);
    // Whether v is something compress() can produce with this error bound; decode() rejects
    // anything else as corrupt.
    bool is_canonical(compressed_value v) const;

    static unsigned payload_bits(tag t);
    // 2 tag bits + payload: what Table III calls the bit width of a compressed gradient.
    static unsigned cost_bits(tag t) { return 2 + payload_bits(t); }
    unsigned cost_bits(float f) const { return cost_bits(classify(f)); }
    static std::size_t format_overhead_bits(std::size_t n);

    // Average stream bits per value for a Table III row; values_per_stream == 0 means an
    // unbounded stream (no tail-group overhead), otherwise the tail group of one stream of that
    // many values (e.g. one packet's payload) is included.
    static double bits_per_value(const bit_width_histogram& h, std::size_t values_per_stream = 0);
    // 32 / bits_per_value.
    static double compression_ratio(const bit_width_histogram& h,
                                    std::size_t values_per_stream = 0);

private:
    int m_k;                 // error bound exponent
    std::uint32_t m_eb;      // biased exponent of the error bound: 127 + k
    std::uint32_t m_t16;     // smallest exponent field compressed to 16 bits
    unsigned m_max_shift16;  // n_shift range of the 16-bit class: [1, m_max_shift16]
    unsigned m_max_shift8;   // n_shift range of the 8-bit class: [m_max_shift16 + 1, -k]
    std::array<std::uint8_t, 256> m_tag_of_exponent;  // Algorithm 2's branches, by exponent field
    // The n_shift ranges above as magnitude ranges: canonical 8-bit magnitudes are
    // [m_lo8, m_hi8), canonical 16-bit magnitudes are >= m_lo16.
    std::uint32_t m_lo8;
    std::uint32_t m_hi8;
    std::uint32_t m_lo16;
};

// Registry entry "inceptionn" (codec_registry; listed in builtin_codecs.cpp): param
// error_bound_exponent, -10 by default (inceptionn.md's 2^-10).
codec_info inceptionn_codec_info();

}  // namespace trainvp::codecs
