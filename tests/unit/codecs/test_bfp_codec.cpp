// Tests of the block floating point codec against a reference computed in double precision
// (std::nearbyint in the default round-to-nearest-even mode), independent of the codec's
// integer rounding.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "ip/codecs/bfp_codec.h"

namespace trainvp::codecs {
namespace {

std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

float float_of(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

struct reference_block {
    int e;
    std::vector<float> decoded;
};

// Closed form of the documented rule: E = max floor(log2|x|) clamped to E_min, q = RNE of
// |x| * 2^(M-1-E); a carry to 2^M bumps E (or saturates at E_max).
reference_block reference(const bfp_codec& c, const std::vector<float>& block) {
    const int m = static_cast<int>(c.mantissa_bits());
    int e = c.min_shared_exponent();
    for (float x : block) {
        if (x != 0.0f) e = std::max(e, std::ilogb(x));
    }
    auto quantize = [&](int shared) {
        std::vector<double> q;
        for (float x : block)
            q.push_back(std::nearbyint(std::ldexp(std::fabs(double{x}), m - 1 - shared)));
        return q;
    };
    std::vector<double> q = quantize(e);
    const double carry = std::ldexp(1.0, m);
    if (std::find(q.begin(), q.end(), carry) != q.end()) {
        if (e < c.max_shared_exponent()) {
            q = quantize(++e);
        } else {
            for (double& v : q) v = std::min(v, carry - 1);
        }
    }
    reference_block r{e, {}};
    for (std::size_t i = 0; i < block.size(); ++i) {
        r.decoded.push_back(
            static_cast<float>(std::copysign(std::ldexp(q[i], e - m + 1), double{block[i]})));
    }
    return r;
}

std::vector<float> round_trip(const bfp_codec& c, const std::vector<float>& in) {
    std::vector<std::uint8_t> s;
    c.encode(in.data(), in.size(), s);
    EXPECT_EQ(s.size(), c.encoded_bytes(in.size()));
    std::vector<float> back(in.size());
    EXPECT_EQ(c.decode(s.data(), s.size(), back.data(), back.size()), s.size());
    return back;
}

TEST(bfp_codec, RejectsBadParameters) {
    EXPECT_THROW(bfp_codec(0, 8, 7), std::invalid_argument);
    EXPECT_THROW(bfp_codec(65537, 8, 7), std::invalid_argument);
    EXPECT_THROW(bfp_codec(16, 1, 7), std::invalid_argument);
    EXPECT_THROW(bfp_codec(16, 9, 7), std::invalid_argument);
    EXPECT_THROW(bfp_codec(16, 8, 0), std::invalid_argument);
    EXPECT_THROW(bfp_codec(16, 8, 24), std::invalid_argument);
    EXPECT_NO_THROW(bfp_codec(1, 2, 1));
    EXPECT_NO_THROW(bfp_codec(65536, 8, 23));
}

TEST(bfp_codec, Bfp16SizeAndRatio) {
    const bfp_codec c = bfp_codec::bfp16();
    EXPECT_EQ(c.name(), "bfp");
    EXPECT_EQ(c.block_size(), 16u);
    EXPECT_EQ(c.exponent_bits(), 8u);
    EXPECT_EQ(c.mantissa_bits(), 7u);
    EXPECT_EQ(c.bits_per_value(), 8.5);  // (16 * 8 + 8) / 16
    EXPECT_DOUBLE_EQ(c.compression_ratio(), 32.0 / 8.5);
    EXPECT_NEAR(c.compression_ratio(), 3.76, 0.005);
    EXPECT_NEAR(c.compression_ratio(), 3.8, 0.05);  // smartnic.md: "3.8x compression ratio"
    EXPECT_EQ(c.min_shared_exponent(), -127);
    EXPECT_EQ(c.max_shared_exponent(), 127);
    EXPECT_EQ(c.encoded_bytes(0), 0u);
    EXPECT_EQ(c.encoded_bytes(1), 2u);
    EXPECT_EQ(c.encoded_bytes(16), 17u);
    EXPECT_EQ(c.encoded_bytes(17), 19u);
    EXPECT_EQ(c.encoded_bytes(1600), 1700u);
}

TEST(bfp_codec, EncodedSizeOfAnUnalignedFormat) {
    const bfp_codec c(5, 5, 3);  // 5 + 5 * 4 = 25 bits per full block
    for (std::size_t n : {0, 1, 4, 5, 6, 7, 10, 11, 1000}) {
        const std::size_t blocks = (n + 4) / 5;
        EXPECT_EQ(c.encoded_bytes(n), (blocks * 5 + n * 4 + 7) / 8) << n;
        std::vector<float> in(n, 0.3f);
        EXPECT_EQ(round_trip(c, in).size(), n);
    }
    EXPECT_EQ(c.bits_per_value(), 5.0);
}

TEST(bfp_codec, ErrorBoundIsHalfAnUlpBelowTheTopExponent) {
    const bfp_codec c = bfp_codec::bfp16();
    EXPECT_EQ(c.ulp(0), std::ldexp(1.0, -6));
    EXPECT_EQ(c.max_abs_error(0), std::ldexp(1.0, -7));
    EXPECT_EQ(c.max_abs_error(-10), std::ldexp(1.0, -17));
    EXPECT_EQ(c.max_abs_error(-127), std::ldexp(1.0, -134));
    EXPECT_EQ(c.max_abs_error(126), std::ldexp(1.0, 119));
    EXPECT_EQ(c.max_abs_error(127), std::ldexp(1.0, 121));  // saturation: a whole ulp
    EXPECT_THROW(c.max_abs_error(128), std::invalid_argument);
    EXPECT_THROW(c.max_abs_error(-128), std::invalid_argument);
}

TEST(bfp_codec, ExactlyRepresentableValuesRoundTripExactly) {
    const bfp_codec c = bfp_codec::bfp16();
    // Shared exponent 3 (max 12.0), ulp 2^-3: any j * 2^-3 with |j| <= 127 is on the grid.
    std::vector<float> in = {12.0f,  -0.125f,  0.0f, -0.0f, 15.875f, 1.0f,    -7.5f,  0.25f,
                             3.375f, -15.875f, 8.0f, 0.5f,  2.0f,    -1.125f, 9.625f, 0.375f};
    const std::vector<float> back = round_trip(c, in);
    for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(bits_of(back[i]), bits_of(in[i])) << i;
    EXPECT_EQ(c.shared_exponent(in.data(), in.size()), 3);
}

TEST(bfp_codec, RoundsToNearestEven) {
    const bfp_codec c = bfp_codec::bfp16();  // block max 1.0: E = 0, ulp = 2^-6
    const float u = std::ldexp(1.0f, -6);
    const std::vector<float> in = {1.0f,
                                   0.5f * u,                          // tie -> 0 (even)
                                   1.5f * u,                          // tie -> 2
                                   2.5f * u,                          // tie -> 2
                                   0.5f * u + std::ldexp(1.0f, -30),  // above the tie -> 1
                                   -1.5f * u,                         // tie -> -2
                                   3.5f * u,                          // tie -> 4
                                   0.25f * u,                         // -> 0
                                   std::nextafter(0.5f * u, 0.0f)};   // below the tie -> 0
    const std::vector<float> expected = {1.0f, 0.0f, 2 * u, 2 * u, u, -2 * u, 4 * u, 0.0f, 0.0f};
    const std::vector<float> back = round_trip(c, in);
    for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(back[i], expected[i]) << i;
}

TEST(bfp_codec, CarryBumpsTheSharedExponent) {
    const bfp_codec c = bfp_codec::bfp16();
    {
        // 1.999 * 64 = 127.94 rounds to 128 = 2^M: requantise with E = 1 (ulp 2^-5).
        const std::vector<float> in = {1.999f, 0.5f, std::ldexp(1.0f, -7), -0.1f};
        EXPECT_EQ(c.shared_exponent(in.data(), in.size()), 1);
        const std::vector<float> back = round_trip(c, in);
        EXPECT_EQ(back[0], 2.0f);
        EXPECT_EQ(back[1], 0.5f);
        EXPECT_EQ(back[2], 0.0f);        // 0.25 ulp
        EXPECT_EQ(back[3], -3.0f / 32);  // -0.1 * 32 = -3.2 -> -3
        for (std::size_t i = 0; i < in.size(); ++i) {
            EXPECT_LE(std::fabs(back[i] - in[i]), c.max_abs_error(1)) << i;
        }
    }
    {
        // The exact tie 127.5 rounds to even 128, which carries.
        const std::vector<float> in = {127.5f / 64};
        EXPECT_EQ(c.shared_exponent(in.data(), 1), 1);
        EXPECT_EQ(round_trip(c, in)[0], 2.0f);
    }
    {
        // 127 / 64 is on the grid: no carry.
        const std::vector<float> in = {127.0f / 64, 1.0f};
        EXPECT_EQ(c.shared_exponent(in.data(), in.size()), 0);
        EXPECT_EQ(round_trip(c, in), in);
    }
    {
        // One mantissa bit: 1.5 * 2^0 is the tie 1.5 -> 2 = 2^M, bumped to E = 1, q = 1.
        const bfp_codec c1(4, 8, 1);
        const std::vector<float> in = {1.5f, 1.0f, 0.75f, 0.7f};
        EXPECT_EQ(c1.shared_exponent(in.data(), in.size()), 1);
        // With E = 1 the grid is {0, 2}: 1.5 / 2 -> 1, 1.0 / 2 = 0.5 ties to 0, 0.375 and 0.35
        // round to 0.
        const std::vector<float> expected = {2.0f, 0.0f, 0.0f, 0.0f};
        EXPECT_EQ(round_trip(c1, in), expected);
    }
}

TEST(bfp_codec, SaturatesWhenNoExponentIsLeft) {
    {
        const bfp_codec c = bfp_codec::bfp16();
        const float big = std::numeric_limits<float>::max();  // * 2^-121 = 127.99999 -> 128
        const std::vector<float> in = {big, -big, 1.0f};
        EXPECT_EQ(c.shared_exponent(in.data(), in.size()), 127);
        const std::vector<float> back = round_trip(c, in);
        EXPECT_EQ(back[0], 127.0f * std::ldexp(1.0f, 121));
        EXPECT_EQ(back[1], -127.0f * std::ldexp(1.0f, 121));
        EXPECT_EQ(back[2], 0.0f);
        const double err = double{big} - back[0];
        EXPECT_LT(err, c.max_abs_error(127));
        EXPECT_GT(err, c.ulp(127) / 2);  // what saturation costs over the half-ulp rule
    }
    {
        const bfp_codec c(16, 5, 7);  // E in [-15, 16]
        EXPECT_EQ(c.min_shared_exponent(), -15);
        EXPECT_EQ(c.max_shared_exponent(), 16);
        const std::vector<float> in = {std::nextafter(131072.0f, 0.0f), 5.0f};
        EXPECT_EQ(round_trip(c, in)[0], 127.0f * 1024.0f);
        std::vector<std::uint8_t> s = {1, 2, 3};
        const float too_big = 131072.0f;  // 2^17
        EXPECT_THROW(c.encode(&too_big, 1, s), std::domain_error);
        EXPECT_EQ(s, (std::vector<std::uint8_t>{1, 2, 3}));
        // Below the range, values quantise on the E_min grid (ulp 2^-21).
        const std::vector<float> tiny = {std::ldexp(1.0f, -20), std::ldexp(1.0f, -30)};
        const std::vector<float> expected = {std::ldexp(1.0f, -20), 0.0f};
        EXPECT_EQ(round_trip(c, tiny), expected);
    }
}

TEST(bfp_codec, ZerosKeepTheirSign) {
    const bfp_codec c = bfp_codec::bfp16();
    const std::vector<float> in = {0.0f, -0.0f, 0.0f, -0.0f, -0.0f};
    EXPECT_EQ(c.shared_exponent(in.data(), in.size()), -127);
    std::vector<std::uint8_t> s;
    c.encode(in.data(), in.size(), s);
    EXPECT_EQ(s, (std::vector<std::uint8_t>{0x00, 0x00, 0x80, 0x00, 0x80, 0x80}));
    const std::vector<float> back = round_trip(c, in);
    for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(bits_of(back[i]), bits_of(in[i])) << i;
    // A value rounding to zero keeps its sign as well.
    const std::vector<float> mixed = {1.0f, -1e-6f};
    EXPECT_EQ(bits_of(round_trip(c, mixed)[1]), 0x80000000u);
}

TEST(bfp_codec, Denormals) {
    const bfp_codec c = bfp_codec::bfp16();
    // All-denormal block: E = -127, ulp 2^-133 = 2^16 denormal steps.
    const std::vector<float> on_grid = {float_of(0x007F0000u), float_of(0x80010000u),
                                        float_of(0x00400000u), float_of(0x00000000u)};
    EXPECT_EQ(c.shared_exponent(on_grid.data(), on_grid.size()), -127);
    const std::vector<float> back = round_trip(c, on_grid);
    for (std::size_t i = 0; i < on_grid.size(); ++i) {
        EXPECT_EQ(bits_of(back[i]), bits_of(on_grid[i])) << i;
    }
    // Off-grid denormals: within half an ulp, exactly as the reference rounds them.
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 1000; ++trial) {
        std::vector<float> block(16);
        for (float& x : block) x = float_of(static_cast<std::uint32_t>(rng()) & 0x807FFFFFu);
        const reference_block ref = reference(c, block);
        const std::vector<float> got = round_trip(c, block);
        for (std::size_t i = 0; i < block.size(); ++i) {
            ASSERT_EQ(bits_of(got[i]), bits_of(ref.decoded[i]));
            // Half an ulp of the block's exponent: 2^-134, or 2^-133 when the largest denormal
            // carries into E = -126.
            ASSERT_LE(std::fabs(double{got[i]} - block[i]),
                      c.max_abs_error(c.shared_exponent(block.data(), block.size())));
        }
    }
    // Next to a normal value a denormal is far below the grid.
    const std::vector<float> mixed = {std::ldexp(1.0f, -100), float_of(0x00400000u)};
    EXPECT_EQ(round_trip(c, mixed)[1], 0.0f);
}

TEST(bfp_codec, NonFiniteInputThrowsAndLeavesOutputUntouched) {
    const bfp_codec c = bfp_codec::bfp16();
    for (float bad :
         {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN()}) {
        std::vector<float> in(40, 0.5f);
        in[37] = bad;  // in the third block, after two have been written
        std::vector<std::uint8_t> s = {9, 9};
        EXPECT_THROW(c.encode(in.data(), in.size(), s), std::domain_error);
        EXPECT_EQ(s, (std::vector<std::uint8_t>{9, 9}));
        EXPECT_THROW(c.shared_exponent(&bad, 1), std::domain_error);
    }
}

// Random blocks against the double-precision reference and the error bound, for several
// formats, including blocks built to carry.
TEST(bfp_codec, RandomBlocksMatchReferenceAndStayWithinBound) {
    const bfp_codec formats[] = {bfp_codec::bfp16(),  bfp_codec(5, 5, 3), bfp_codec(1, 8, 23),
                                 bfp_codec(32, 8, 1), bfp_codec(7, 2, 4), bfp_codec(64, 8, 12)};
    std::mt19937_64 rng(2024);
    for (const bfp_codec& c : formats) {
        const int m = static_cast<int>(c.mantissa_bits());
        std::uniform_int_distribution<int> top(std::max(-140, c.min_shared_exponent() - 10),
                                               std::min(c.max_shared_exponent(), 20));
        std::size_t bumped = 0;
        for (int trial = 0; trial < 20'000; ++trial) {
            const std::size_t n = 1 + rng() % (2 * c.block_size());  // includes tail blocks
            const int e_top = top(rng);
            std::vector<float> in(n);
            for (float& x : in) {
                const int e = e_top - static_cast<int>(rng() % 24);
                double mant = 1.0 + static_cast<double>(rng() % (1u << 23)) / (1u << 23);
                // Just below 2: |x| * 2^(M-1-E) = 2^M - 2^(M-1-j) carries, j = M being the tie.
                if (rng() % 8 == 0) {
                    mant = 2.0 - std::ldexp(1.0, -std::min(m + static_cast<int>(rng() % 4), 23));
                }
                x = static_cast<float>(std::ldexp(mant, e));
                if (rng() % 16 == 0) x = 0.0f;
                if (rng() & 1) x = -x;
            }
            const std::vector<float> got = round_trip(c, in);
            for (std::size_t first = 0; first < n; first += c.block_size()) {
                const std::size_t count = std::min(c.block_size(), n - first);
                const std::vector<float> block(in.begin() + first, in.begin() + first + count);
                const reference_block ref = reference(c, block);
                const int e = c.shared_exponent(block.data(), count);
                ASSERT_EQ(e, ref.e);
                int e_raw = c.min_shared_exponent();
                for (float x : block) {
                    if (x != 0.0f) e_raw = std::max(e_raw, std::ilogb(x));
                }
                ASSERT_TRUE(e == e_raw || e == e_raw + 1);
                bumped += e == e_raw + 1;
                for (std::size_t i = 0; i < count; ++i) {
                    ASSERT_EQ(bits_of(got[first + i]), bits_of(ref.decoded[i]));
                    ASSERT_LE(std::fabs(double{got[first + i]} - block[i]), c.max_abs_error(e));
                }
            }
        }
        EXPECT_GT(bumped, 0u) << c.block_size() << "/" << c.exponent_bits() << "/" << m;
    }
}

TEST(bfp_codec, TailBlockHasItsOwnExponent) {
    const bfp_codec c = bfp_codec::bfp16();
    std::vector<float> in(16, 100.0f);
    in.push_back(0.001f);
    in.push_back(-0.0003f);
    const std::vector<float> back = round_trip(c, in);
    EXPECT_EQ(c.encoded_bytes(in.size()), 17u + 3u);
    EXPECT_EQ(c.shared_exponent(in.data() + 16, 2), -10);
    EXPECT_LE(std::fabs(back[16] - in[16]), c.max_abs_error(-10));
    EXPECT_LE(std::fabs(back[17] - in[17]), c.max_abs_error(-10));
    EXPECT_NE(back[17], 0.0f);
}

TEST(bfp_codec_stream, GoldenByteLayout) {
    {
        // BFP16: exponent byte E + 127, then one (s << 7 | q) byte per element.
        const bfp_codec c = bfp_codec::bfp16();
        const float in[] = {1.0f, -0.5f, 0.015625f};
        std::vector<std::uint8_t> s;
        c.encode(in, 3, s);
        EXPECT_EQ(s, (std::vector<std::uint8_t>{0x7F, 0x40, 0xA0, 0x01}));
    }
    {
        // B = 2, X = 3 (bias 3), M = 2: field 3, words q | s << 2 = 0b010 and 0b101, LSB first:
        // 3 | 2 << 3 | 5 << 6 = 0x153.
        const bfp_codec c(2, 3, 2);
        const float in[] = {1.0f, -0.5f};
        std::vector<std::uint8_t> s;
        c.encode(in, 2, s);
        EXPECT_EQ(s, (std::vector<std::uint8_t>{0x53, 0x01}));
    }
}

TEST(bfp_codec_stream, EveryTruncationIsRejected) {
    for (const bfp_codec& c : {bfp_codec::bfp16(), bfp_codec(5, 5, 3)}) {
        std::vector<float> in(37);
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::sin(static_cast<float>(i));
        std::vector<std::uint8_t> stream;
        c.encode(in.data(), in.size(), stream);
        for (std::size_t len = 0; len < stream.size(); ++len) {
            const std::vector<std::uint8_t> prefix(stream.begin(), stream.begin() + len);
            std::vector<float> back(in.size());
            EXPECT_THROW(c.decode(prefix.data(), prefix.size(), back.data(), back.size()),
                         codec_error)
                << len;
        }
    }
}

TEST(bfp_codec_stream, CorruptStreamsAreRejected) {
    const bfp_codec c = bfp_codec::bfp16();
    float back[2];
    const std::uint8_t top_field[] = {0xFF, 0x40};  // E = 128 is never produced
    EXPECT_THROW(c.decode(top_field, 2, back, 1), codec_error);
    const std::uint8_t not_normalised[] = {0x7F, 0x3F};  // E = 0 but q < 64
    EXPECT_THROW(c.decode(not_normalised, 2, back, 1), codec_error);
    const std::uint8_t normalised[] = {0x7F, 0x40};
    EXPECT_EQ(c.decode(normalised, 2, back, 1), 2u);
    const std::uint8_t bottom[] = {0x00, 0x01};  // E = E_min: any magnitude is fine
    EXPECT_EQ(c.decode(bottom, 2, back, 1), 2u);
    const bfp_codec odd(2, 3, 2);
    const std::uint8_t padding[] = {0x53, 0x03};  // bit 9 is padding
    EXPECT_THROW(odd.decode(padding, 2, back, 2), codec_error);
    const std::uint8_t clean[] = {0x53, 0x01};
    EXPECT_EQ(odd.decode(clean, 2, back, 2), 2u);
    EXPECT_EQ(back[0], 1.0f);
    EXPECT_EQ(back[1], -0.5f);
}

TEST(bfp_codec_stream, RandomGarbageNeverReadsOutOfBounds) {
    std::mt19937_64 rng(17);
    for (const bfp_codec& c : {bfp_codec::bfp16(), bfp_codec(5, 5, 3)}) {
        std::size_t decoded = 0, rejected = 0;
        for (int trial = 0; trial < 100'000; ++trial) {
            std::vector<std::uint8_t> garbage(rng() % 60);
            for (auto& b : garbage) b = static_cast<std::uint8_t>(rng());
            const std::size_t n = rng() % 60;
            std::vector<float> back(n);
            try {
                ASSERT_LE(c.decode(garbage.data(), garbage.size(), back.data(), n), garbage.size());
                ++decoded;
            } catch (const codec_error&) {
                ++rejected;
            }
        }
        EXPECT_GT(decoded, 0u);
        EXPECT_GT(rejected, 0u);
    }
}

}  // namespace
}  // namespace trainvp::codecs
