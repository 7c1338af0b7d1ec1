#include "ip/codecs/bfp_codec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "ip/codecs/codec_info.h"

namespace trainvp::codecs {

namespace {

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

// floor(log2 |x|) of a finite non-zero float, except that every denormal counts as -127: the
// shared exponent is never below E_min >= -127, so their exact exponent never matters.
int exponent_of(std::uint32_t u) {
    const int ef = static_cast<int>((u >> 23) & 0xFFu);
    return ef == 0 ? -127 : ef - 127;
}

// round-to-nearest-even(|x| * 2^(M - 1 - E)) for a finite x.  |x| = sig * 2^(ef' - 150) with
// ef' = max(ef, 1), so the quotient is sig / 2^shift with shift = 150 + E + 1 - M - ef'.
std::uint32_t quantize(std::uint32_t u, int e, unsigned m) {
    const std::uint32_t ef = (u >> 23) & 0xFFu;
    const std::uint64_t sig = ef == 0 ? (u & 0x7FFFFFu) : ((u & 0x7FFFFFu) | 0x800000u);
    const int ef_eff = ef == 0 ? 1 : static_cast<int>(ef);
    const int shift = 150 + e + 1 - static_cast<int>(m) - ef_eff;
    // shift >= 0 whenever E >= exponent_of(u) and m <= 23; sig < 2^24 rounds to 0 once shift
    // reaches 25.
    if (shift <= 0) return static_cast<std::uint32_t>(sig << -shift);
    if (shift >= 25) return 0;
    const std::uint64_t half_minus_one = (std::uint64_t{1} << (shift - 1)) - 1;
    const std::uint64_t odd = (sig >> shift) & 1u;
    return static_cast<std::uint32_t>((sig + half_minus_one + odd) >> shift);
}

// LSB-first bit packing into a pre-sized buffer.
class bit_packer {
public:
    explicit bit_packer(std::uint8_t* p) : m_p(p) {}

    void put(std::uint32_t value, unsigned width) {  // width <= 24
        m_acc |= static_cast<std::uint64_t>(value) << m_count;
        m_count += width;
        while (m_count >= 8) {
            *m_p++ = static_cast<std::uint8_t>(m_acc);
            m_acc >>= 8;
            m_count -= 8;
        }
    }

    // Pads the last byte with zero bits; returns one past the last byte written.
    std::uint8_t* finish() {
        if (m_count > 0) *m_p++ = static_cast<std::uint8_t>(m_acc);
        m_acc = 0;
        m_count = 0;
        return m_p;
    }

private:
    std::uint8_t* m_p;
    std::uint64_t m_acc = 0;
    unsigned m_count = 0;
};

// LSB-first bit reading that never touches a byte at or after `end`.
class bit_unpacker {
public:
    bit_unpacker(const std::uint8_t* p, const std::uint8_t* end) : m_p(p), m_end(end) {}

    std::uint32_t get(unsigned width) {  // width <= 24
        while (m_count < width) {
            if (m_p == m_end) throw codec_error("bfp: stream truncated");
            m_acc |= static_cast<std::uint64_t>(*m_p++) << m_count;
            m_count += 8;
        }
        const auto v = static_cast<std::uint32_t>(m_acc & ((std::uint64_t{1} << width) - 1));
        m_acc >>= width;
        m_count -= width;
        return v;
    }

    // Bits left over in the last byte read: the stream's padding.
    std::uint64_t leftover() const { return m_acc; }
    const std::uint8_t* position() const { return m_p; }

private:
    const std::uint8_t* m_p;
    const std::uint8_t* m_end;
    std::uint64_t m_acc = 0;
    unsigned m_count = 0;
};

}  // namespace

bfp_codec::bfp_codec(std::size_t block_size, unsigned exponent_bits, unsigned mantissa_bits)
    : m_block_size(block_size), m_exponent_bits(exponent_bits), m_mantissa_bits(mantissa_bits) {
    if (block_size < 1 || block_size > max_block_size) {
        throw std::invalid_argument("bfp_codec: block size " + std::to_string(block_size) +
                                    " outside [1, " + std::to_string(max_block_size) + "]");
    }
    if (exponent_bits < 2 || exponent_bits > 8) {
        throw std::invalid_argument("bfp_codec: exponent bits " + std::to_string(exponent_bits) +
                                    " outside [2, 8]");
    }
    if (mantissa_bits < 1 || mantissa_bits > 23) {
        throw std::invalid_argument("bfp_codec: mantissa bits " + std::to_string(mantissa_bits) +
                                    " outside [1, 23]");
    }
    m_bias = (1 << (exponent_bits - 1)) - 1;
    m_e_min = -m_bias;
    m_e_max = std::min(1 << (exponent_bits - 1), 127);
}

std::string bfp_codec::name() const { return "bfp"; }

std::size_t bfp_codec::encoded_bytes(std::size_t n) const {
    const std::size_t blocks = (n + m_block_size - 1) / m_block_size;
    const std::size_t bits = blocks * m_exponent_bits + n * (m_mantissa_bits + 1);
    return (bits + 7) / 8;
}

double bfp_codec::bits_per_value() const {
    return (static_cast<double>(m_block_size) * (m_mantissa_bits + 1) + m_exponent_bits) /
           static_cast<double>(m_block_size);
}

double bfp_codec::ulp(int shared_exponent) const {
    if (shared_exponent < m_e_min || shared_exponent > m_e_max) {
        throw std::invalid_argument("bfp_codec: shared exponent " +
                                    std::to_string(shared_exponent) + " outside [" +
                                    std::to_string(m_e_min) + ", " + std::to_string(m_e_max) + "]");
    }
    return std::ldexp(1.0, shared_exponent - static_cast<int>(m_mantissa_bits) + 1);
}

double bfp_codec::max_abs_error(int shared_exponent) const {
    const double u = ulp(shared_exponent);
    return shared_exponent == m_e_max ? u : u / 2;
}

int bfp_codec::quantize_block(const float* block, std::size_t count, std::uint32_t* q) const {
    int e = m_e_min;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t u = to_bits(block[i]);
        if (((u >> 23) & 0xFFu) == 0xFFu) {
            throw std::domain_error("bfp_codec: cannot encode Inf or NaN");
        }
        if ((u & 0x7FFFFFFFu) != 0) e = std::max(e, exponent_of(u));
    }
    if (e > m_e_max) {
        throw std::domain_error("bfp_codec: value 2^" + std::to_string(e) +
                                " beyond the shared exponent range (max 2^" +
                                std::to_string(m_e_max) + ")");
    }
    const std::uint32_t carry = std::uint32_t{1} << m_mantissa_bits;
    bool carried = false;
    for (std::size_t i = 0; i < count; ++i) {
        q[i] = quantize(to_bits(block[i]), e, m_mantissa_bits);
        carried |= q[i] == carry;
    }
    if (carried) {
        if (e < m_e_max) {
            ++e;  // now every |x| * 2^(M-1-E) < 2^(M-1), so nothing can carry again
            for (std::size_t i = 0; i < count; ++i) {
                q[i] = quantize(to_bits(block[i]), e, m_mantissa_bits);
            }
        } else {
            for (std::size_t i = 0; i < count; ++i) q[i] = std::min(q[i], carry - 1);
        }
    }
    return e;
}

int bfp_codec::shared_exponent(const float* block, std::size_t count) const {
    std::vector<std::uint32_t> q(count);
    return quantize_block(block, count, q.data());
}

void bfp_codec::encode(const float* in, std::size_t n, std::vector<std::uint8_t>& out) const {
    const std::size_t base = out.size();
    out.resize(base + encoded_bytes(n));
    std::vector<std::uint32_t> q(std::min(n, m_block_size));
    bit_packer packer(out.data() + base);
    try {
        for (std::size_t first = 0; first < n; first += m_block_size) {
            const std::size_t count = std::min(m_block_size, n - first);
            const int e = quantize_block(in + first, count, q.data());
            packer.put(static_cast<std::uint32_t>(e + m_bias), m_exponent_bits);
            for (std::size_t i = 0; i < count; ++i) {
                const std::uint32_t sign = to_bits(in[first + i]) >> 31;
                packer.put(q[i] | (sign << m_mantissa_bits), m_mantissa_bits + 1);
            }
        }
    } catch (...) {
        out.resize(base);
        throw;
    }
    packer.finish();
}

std::size_t bfp_codec::decode(const std::uint8_t* in, std::size_t bytes, float* out,
                              std::size_t n) const {
    // Every value costs at least one bit, which bounds n before the size arithmetic below.
    if (n / 8 > bytes || encoded_bytes(n) > bytes) {
        throw codec_error("bfp: stream of " + std::to_string(bytes) + " bytes too short for " +
                          std::to_string(n) + " values");
    }
    bit_unpacker reader(in, in + bytes);
    const std::uint32_t magnitude_mask = (std::uint32_t{1} << m_mantissa_bits) - 1;
    const std::uint32_t leading_one = std::uint32_t{1} << (m_mantissa_bits - 1);
    for (std::size_t first = 0; first < n; first += m_block_size) {
        const std::size_t count = std::min(m_block_size, n - first);
        const int e = static_cast<int>(reader.get(m_exponent_bits)) - m_bias;
        if (e > m_e_max) {
            throw codec_error("bfp: shared exponent " + std::to_string(e) + " of value " +
                              std::to_string(first) + " beyond " + std::to_string(m_e_max));
        }
        // A power of two >= 2^-149 (see the mantissa limit), so q * scale is exact.
        const float scale = std::ldexp(1.0f, e - static_cast<int>(m_mantissa_bits) + 1);
        std::uint32_t largest = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint32_t word = reader.get(m_mantissa_bits + 1);
            const std::uint32_t q = word & magnitude_mask;
            largest = std::max(largest, q);
            const float magnitude = static_cast<float>(q) * scale;
            out[first + i] = from_bits(to_bits(magnitude) | ((word >> m_mantissa_bits) << 31));
        }
        if (e > m_e_min && largest < leading_one) {
            throw codec_error("bfp: block of value " + std::to_string(first) +
                              " is not normalised to its shared exponent");
        }
    }
    if (reader.leftover() != 0) throw codec_error("bfp: non-zero padding bits");
    return static_cast<std::size_t>(reader.position() - in);
}

codec_info bfp_codec_info() {
    codec_info c;
    c.name = "bfp";
    c.description =
        "Block floating point: blocks of values share an exponent, each keeps a sign and a "
        "mantissa, error at most half an ulp of its block (smartnic.md §IV-B)";
    auto param = [](const char* name, const char* description, double value, double lo, double hi) {
        codec_param p;
        p.name = name;
        p.description = description;
        p.default_value = value;
        p.min = lo;
        p.max = hi;
        return p;
    };
    c.params = {
        param("block_size", "values per block (smartnic.md's BFP16: 16)", 16, 1,
              static_cast<double>(bfp_codec::max_block_size)),
        param("exponent_bits", "bits of the shared exponent (BFP16: 8)", 8, 2, 8),
        param("mantissa_bits", "mantissa bits per value, plus a sign bit (BFP16: 7)", 7, 1, 23)};
    c.make = [](const codec_args& a) {
        return std::make_unique<bfp_codec>(static_cast<std::size_t>(a.at("block_size")),
                                           static_cast<unsigned>(a.at("exponent_bits")),
                                           static_cast<unsigned>(a.at("mantissa_bits")));
    };
    return c;
}

}  // namespace trainvp::codecs
