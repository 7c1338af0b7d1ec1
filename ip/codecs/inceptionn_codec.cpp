#include "ip/codecs/inceptionn_codec.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "ip/codecs/codec_info.h"

namespace trainvp::codecs {

namespace {

constexpr std::uint32_t exponent_one = 127;  // biased exponent field of 1.0f

std::uint32_t to_bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

float from_bits(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// Index of the most significant '1' of a non-zero value (Algorithm 3's first1_loc counts from
// the other end: first1_loc = width - msb_index).
unsigned msb_index(std::uint32_t x) { return 31u - static_cast<unsigned>(__builtin_clz(x)); }

// Algorithm 3 for the 8- and 16-bit vectors: v = {s, magnitude[w-1:0]}.
float expand(std::uint32_t v, unsigned w) {
    const std::uint32_t sign = (v >> w) & 1u;
    const std::uint32_t mask = (1u << w) - 1u;
    const std::uint32_t mag = v & mask;
    if (mag == 0) {
        // No '1' for first1_loc to find: only the encoder's truncation of a value below 2^-w
        // produces this, and the fixed-point reading of the vector is zero.
        return from_bits(sign << 31);
    }
    const unsigned n_shift = w - msb_index(mag);
    // The shift pushes the leading (implicit) '1' out of the w-bit field.
    const std::uint32_t m = ((mag << n_shift) & mask) << (23 - w);
    const std::uint32_t e = exponent_one - n_shift;
    return from_bits((sign << 31) | (e << 23) | m);
}

// Per 2-bit tag: payload bytes and the mask of the payload bits in a 32-bit little-endian word.
constexpr std::uint32_t bytes_of_tag[4] = {0, 1, 2, 4};
constexpr std::uint32_t mask_of_tag[4] = {0x0u, 0xFFu, 0xFFFFu, 0xFFFFFFFFu};

// Payload bytes of the four 2-bit tags in one tag-vector byte: the tag decoder of Fig. 10.
constexpr std::array<std::uint8_t, 256> make_payload_bytes_lut() {
    std::array<std::uint8_t, 256> lut{};
    for (unsigned i = 0; i < 256; ++i) {
        lut[i] = static_cast<std::uint8_t>(bytes_of_tag[i & 3] + bytes_of_tag[(i >> 2) & 3] +
                                           bytes_of_tag[(i >> 4) & 3] + bytes_of_tag[(i >> 6) & 3]);
    }
    return lut;
}

constexpr std::array<std::uint8_t, 256> payload_bytes_lut = make_payload_bytes_lut();

// Algorithm 3 for every 8-bit vector, computed at compile time.
constexpr std::array<std::uint32_t, 256> make_expand8_lut() {
    std::array<std::uint32_t, 256> lut{};
    for (std::uint32_t v = 0; v < 256; ++v) {
        const std::uint32_t mag = v & 0x7Fu;
        std::uint32_t bits = (v >> 7) << 31;
        if (mag != 0) {
            std::uint32_t msb = 6;
            while ((mag >> msb) == 0) --msb;
            const std::uint32_t n_shift = 7 - msb;
            bits |= ((exponent_one - n_shift) << 23) | (((mag << n_shift) & 0x7Fu) << 16);
        }
        lut[v] = bits;
    }
    return lut;
}

constexpr std::array<std::uint32_t, 256> expand8_lut = make_expand8_lut();

constexpr bool host_is_little_endian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

std::uint32_t load_le32(const std::uint8_t* p) {
    std::uint32_t u;
    std::memcpy(&u, p, 4);
    return host_is_little_endian ? u : __builtin_bswap32(u);
}

void store_le32(std::uint8_t* p, std::uint32_t u) {
    if (!host_is_little_endian) u = __builtin_bswap32(u);
    std::memcpy(p, &u, 4);
}

// Reads `count` (<= 4) little-endian bytes without touching any byte past them.
std::uint32_t load_le_short(const std::uint8_t* p, std::uint32_t count) {
    std::uint32_t u = 0;
    for (std::uint32_t i = 0; i < count; ++i) u |= static_cast<std::uint32_t>(p[i]) << (8 * i);
    return u;
}

}  // namespace

inceptionn_codec::inceptionn_codec(int error_bound_exponent) : m_k(error_bound_exponent) {
    if (error_bound_exponent < min_error_bound_exponent ||
        error_bound_exponent > max_error_bound_exponent) {
        throw std::invalid_argument("inceptionn_codec: error bound exponent " +
                                    std::to_string(error_bound_exponent) + " outside [" +
                                    std::to_string(min_error_bound_exponent) + ", " +
                                    std::to_string(max_error_bound_exponent) + "]");
    }
    const auto span = static_cast<unsigned>(-error_bound_exponent);  // 127 - eb
    m_eb = exponent_one - span;
    m_t16 = m_eb + (span + 1) / 2;  // ceil((127 - eb) / 2)
    m_max_shift16 = exponent_one - m_t16;
    m_max_shift8 = span;
    for (std::uint32_t e = 0; e < 256; ++e) {
        m_tag_of_exponent[e] = static_cast<std::uint8_t>(classify(from_bits(e << 23)));
    }
    // A w-bit magnitude has n_shift = w - msb_index, so n_shift > s  <=>  mag < 2^(w - s) and
    // n_shift <= s  <=>  mag >= 2^(w - s); zero stands for n_shift > w.
    m_hi8 = m_max_shift16 >= 7 ? 1u : 1u << (7 - m_max_shift16);
    m_lo8 = m_max_shift8 >= 8 ? 0u : 1u << (7 - m_max_shift8);
    m_lo16 = 1u << (15 - m_max_shift16);
}

std::string inceptionn_codec::name() const { return "inceptionn"; }

double inceptionn_codec::error_bound() const { return std::ldexp(1.0, m_k); }

double inceptionn_codec::max_abs_error() const {
    // 0-bit class: |f| < 2^k.  8-bit class: floor to a 2^-7 grid, and |f| < 2^-max_shift16.
    // 16-bit class (empty when max_shift16 == 0): floor to a 2^-15 grid.
    const double zero_class = std::ldexp(1.0, m_k);
    const double class8 =
        std::min(std::ldexp(1.0, -7), std::ldexp(1.0, -static_cast<int>(m_max_shift16)));
    const double class16 = m_max_shift16 > 0 ? std::ldexp(1.0, -15) : 0.0;
    return std::max({zero_class, class8, class16});
}

inceptionn_codec::tag inceptionn_codec::classify(float f) const {
    const std::uint32_t e = (to_bits(f) >> 23) & 0xFFu;
    if (e >= exponent_one) return tag::NO_COMPRESS;
    if (e < m_eb) return tag::COMPRESS_0BIT;
    return e >= m_t16 ? tag::COMPRESS_16BIT : tag::COMPRESS_8BIT;
}

inceptionn_codec::compressed_value inceptionn_codec::compress(float f) const {
    const std::uint32_t u = to_bits(f);
    const std::uint32_t s = u >> 31;
    const std::uint32_t e = (u >> 23) & 0xFFu;
    if (e >= exponent_one) return {tag::NO_COMPRESS, u};
    if (e < m_eb) return {tag::COMPRESS_0BIT, 0};
    const std::uint32_t n_shift = exponent_one - e;  // 1..31 given the constructor's range
    const std::uint32_t shifted_m = ((1u << 23) | (u & 0x7FFFFFu)) >> n_shift;
    if (e >= m_t16) return {tag::COMPRESS_16BIT, (s << 15) | ((shifted_m >> 8) & 0x7FFFu)};
    return {tag::COMPRESS_8BIT, (s << 7) | ((shifted_m >> 16) & 0x7Fu)};
}

float inceptionn_codec::decompress(compressed_value v) {
    switch (v.t) {
        case tag::NO_COMPRESS:
            return from_bits(v.bits);
        case tag::COMPRESS_0BIT:
            return 0.0f;
        case tag::COMPRESS_8BIT:
            return expand(v.bits & 0xFFu, 7);
        case tag::COMPRESS_16BIT:
            return expand(v.bits & 0xFFFFu, 15);
    }
    throw codec_error("inceptionn: invalid tag");
}

bool inceptionn_codec::is_canonical(compressed_value v) const {
    switch (v.t) {
        case tag::NO_COMPRESS:
            return ((v.bits >> 23) & 0xFFu) >= exponent_one;
        case tag::COMPRESS_0BIT:
            return v.bits == 0;
        case tag::COMPRESS_8BIT: {
            if (v.bits > 0xFFu) return false;
            const std::uint32_t mag = v.bits & 0x7Fu;
            // A zero magnitude is the encoder's output for n_shift >= 8, if the class has any.
            if (mag == 0) return m_max_shift8 >= 8;
            const unsigned n_shift = 7 - msb_index(mag);
            return n_shift > m_max_shift16 && n_shift <= m_max_shift8;
        }
        case tag::COMPRESS_16BIT: {
            if (v.bits > 0xFFFFu) return false;
            const std::uint32_t mag = v.bits & 0x7FFFu;
            if (mag == 0) return false;  // the range of k keeps the leading one in 15 bits
            const unsigned n_shift = 15 - msb_index(mag);
            return n_shift <= m_max_shift16;
        }
    }
    return false;
}

unsigned inceptionn_codec::payload_bits(tag t) {
    switch (t) {
        case tag::COMPRESS_0BIT:
            return 0;
        case tag::COMPRESS_8BIT:
            return 8;
        case tag::COMPRESS_16BIT:
            return 16;
        case tag::NO_COMPRESS:
            return 32;
    }
    throw std::invalid_argument("inceptionn: invalid tag");
}

std::size_t inceptionn_codec::format_overhead_bits(std::size_t n) {
    const std::size_t r = n % group_values;
    return r == 0 ? 0 : 2 * (group_values - r);
}

double inceptionn_codec::bits_per_value(const bit_width_histogram& h,
                                        std::size_t values_per_stream) {
    const double fractions[4] = {h.bits2, h.bits10, h.bits18, h.bits34};
    double sum = 0.0;
    for (double x : fractions) {
        if (!std::isfinite(x) || x < 0.0) {
            throw std::invalid_argument("inceptionn: histogram fractions must be finite and >= 0");
        }
        sum += x;
    }
    if (sum <= 0.0) throw std::invalid_argument("inceptionn: empty histogram");
    double bits = (2.0 * h.bits2 + 10.0 * h.bits10 + 18.0 * h.bits18 + 34.0 * h.bits34) / sum;
    if (values_per_stream > 0) {
        bits += static_cast<double>(format_overhead_bits(values_per_stream)) /
                static_cast<double>(values_per_stream);
    }
    return bits;
}

double inceptionn_codec::compression_ratio(const bit_width_histogram& h,
                                           std::size_t values_per_stream) {
    return 32.0 / bits_per_value(h, values_per_stream);
}

// The stream loops below are table-driven twins of compress(), decompress() and is_canonical()
// without a switch on the tag: which class a gradient falls in is data-dependent and
// unpredictable, so branching on it costs more than computing every case and selecting one
// (measured: about 2x).  The tests check that both paths agree.

void inceptionn_codec::encode(const float* in, std::size_t n,
                              std::vector<std::uint8_t>& out) const {
    const std::size_t base = out.size();
    const std::size_t groups = (n + group_values - 1) / group_values;
    // Worst case per record: tag vector + eight uncompressed floats.  Every payload is stored
    // as a whole 32-bit word of which only its own bytes are kept; the word stays inside this
    // size because the worst case reserves four bytes for every value.
    out.resize(base + groups * (2 + 4 * group_values));
    std::uint8_t* p = out.data() + base;
    for (std::size_t g = 0; g < groups; ++g) {
        const float* values = in + g * group_values;
        const std::size_t count = std::min(group_values, n - g * group_values);
        std::uint8_t* tag_vector = p;
        p += 2;
        std::uint32_t tags = 0;
        for (std::size_t j = 0; j < count; ++j) {
            const std::uint32_t u = to_bits(values[j]);
            const std::uint32_t e = (u >> 23) & 0xFFu;
            const std::uint32_t t = m_tag_of_exponent[e];
            // Out of range shifts only occur for the classes whose result is discarded.
            const std::uint32_t shifted_m =
                ((1u << 23) | (u & 0x7FFFFFu)) >> ((exponent_one - e) & 31u);
            const std::uint32_t s = u >> 31;
            const std::uint32_t v16 = (s << 15) | ((shifted_m >> 8) & 0x7FFFu);
            const std::uint32_t v8 = (s << 7) | ((shifted_m >> 16) & 0x7Fu);
            const std::uint32_t v = t == 3 ? u : (t == 2 ? v16 : v8);
            store_le32(p, v);
            p += bytes_of_tag[t];
            tags |= t << (2 * j);
        }
        tag_vector[0] = static_cast<std::uint8_t>(tags);
        tag_vector[1] = static_cast<std::uint8_t>(tags >> 8);
    }
    out.resize(static_cast<std::size_t>(p - out.data()));
}

// The hardware's burst buffer holds up to two 256-bit bursts, hands the 16-bit tag vector to the
// tag decoder, which sizes the eight vectors, and decompresses once the whole record is buffered.
// Here the whole input is addressable, so the same steps become: read the tag vector, size the
// record with the tag decoder's table, check the record lies within `bytes`, then extract.
std::size_t inceptionn_codec::decode(const std::uint8_t* in, std::size_t bytes, float* out,
                                     std::size_t n) const {
    std::size_t pos = 0;
    for (std::size_t first = 0; first < n; first += group_values) {
        const std::size_t count = std::min(group_values, n - first);
        if (bytes - pos < 2) {
            throw codec_error("inceptionn: stream truncated in the tag vector of value " +
                              std::to_string(first));
        }
        const std::uint32_t tags =
            static_cast<std::uint32_t>(in[pos]) | (static_cast<std::uint32_t>(in[pos + 1]) << 8);
        pos += 2;
        if (count < group_values && (tags >> (2 * count)) != 0) {
            throw codec_error("inceptionn: non-zero tag in an unused slot of the tail group");
        }
        const std::size_t payload = payload_bytes_lut[tags & 0xFFu] + payload_bytes_lut[tags >> 8];
        if (bytes - pos < payload) {
            throw codec_error("inceptionn: stream truncated in the record of value " +
                              std::to_string(first));
        }
        // A whole-word load starts at most at the record's end (for a 0-bit vector), so it may
        // touch four bytes past the record: only used when the input has them.
        const bool word_loads = bytes - pos - payload >= 4;
        const std::uint8_t* p = in + pos;
        std::uint32_t all_ok = 1;
        std::size_t j = 0;
        // Common case for gradients: a full group of 0- and 8-bit vectors only (no tag with its
        // high bit set), decoded by table.  It may read one byte past the record.
        if (word_loads && count == group_values && (tags & 0xAAAAu) == 0) {
            for (; j < group_values; ++j) {
                const std::uint32_t present = (tags >> (2 * j)) & 1u;
                const std::uint32_t mag8 = *p & 0x7Fu;
                const std::uint32_t value = expand8_lut[*p] & (0u - present);
                all_ok &= (present ^ 1u) | static_cast<std::uint32_t>(mag8 - m_lo8 < m_hi8 - m_lo8);
                out[first + j] = from_bits(value);
                p += present;
            }
        }
        for (; j < count; ++j) {
            const std::uint32_t t = (tags >> (2 * j)) & 3u;
            const std::uint32_t word =
                (word_loads ? load_le32(p) : load_le_short(p, bytes_of_tag[t])) & mask_of_tag[t];
            p += bytes_of_tag[t];
            // Every tag's result is computed and the tag selects one.
            const std::uint32_t mag8 = word & 0x7Fu;
            const std::uint32_t mag16 = word & 0x7FFFu;
            const std::uint32_t n_shift16 = 15 - msb_index(mag16 | 1u);
            const std::uint32_t expanded16 =
                ((word >> 15) << 31) |
                ((((exponent_one - n_shift16) << 23) | (((mag16 << n_shift16) & 0x7FFFu) << 8)) &
                 (0u - static_cast<std::uint32_t>(mag16 != 0)));
            const std::uint32_t value =
                t == 3 ? word : (t == 2 ? expanded16 : (t == 1 ? expand8_lut[word & 0xFFu] : 0u));
            const bool ok = t == 3   ? ((word >> 23) & 0xFFu) >= exponent_one
                            : t == 2 ? mag16 >= m_lo16
                            : t == 1 ? mag8 - m_lo8 < m_hi8 - m_lo8
                                     : true;
            all_ok &= static_cast<std::uint32_t>(ok);
            out[first + j] = from_bits(value);
        }
        if (!all_ok) {
            throw codec_error("inceptionn: non-canonical vector in the record of value " +
                              std::to_string(first));
        }
        pos += payload;
    }
    return pos;
}

codec_info inceptionn_codec_info() {
    codec_info c;
    c.name = "inceptionn";
    c.description =
        "INCEPTIONN's lossy gradient codec: per value 0, 8, 16 or 32 bits by exponent class, "
        "eight values per tag vector, error below 2^k (inceptionn.md §V Alg. 2/3)";
    codec_param k;
    k.name = "error_bound_exponent";
    k.description = "k of the error bound 2^k (inceptionn.md evaluates 2^-10, 2^-8 and 2^-6)";
    k.default_value = -10;
    k.min = inceptionn_codec::min_error_bound_exponent;
    k.max = inceptionn_codec::max_error_bound_exponent;
    c.params = {k};
    c.make = [](const codec_args& a) {
        return std::make_unique<inceptionn_codec>(static_cast<int>(a.at("error_bound_exponent")));
    };
    return c;
}

}  // namespace trainvp::codecs
