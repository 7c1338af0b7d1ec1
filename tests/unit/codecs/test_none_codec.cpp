// Tests of the identity codec, and of the three codecs used through the common interface.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "ip/codecs/bfp_codec.h"
#include "ip/codecs/inceptionn_codec.h"
#include "ip/codecs/none_codec.h"

namespace trainvp::codecs {
namespace {

std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

TEST(none_codec, LittleEndianFloatBytes) {
    const none_codec c;
    EXPECT_EQ(c.name(), "none");
    const float in[] = {1.0f, -2.0f};
    std::vector<std::uint8_t> s = {0x55};
    c.encode(in, 2, s);
    EXPECT_EQ(s, (std::vector<std::uint8_t>{0x55, 0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0}));
}

TEST(none_codec, BitExactRoundTrip) {
    const none_codec c;
    std::mt19937_64 rng(1);
    std::vector<float> in(1001);
    for (float& f : in) {
        const auto u = static_cast<std::uint32_t>(rng());
        std::memcpy(&f, &u, 4);
    }
    in[0] = std::numeric_limits<float>::quiet_NaN();
    in[1] = -0.0f;
    in[2] = std::numeric_limits<float>::denorm_min();
    std::vector<std::uint8_t> s;
    c.encode(in.data(), in.size(), s);
    ASSERT_EQ(s.size(), 4 * in.size());
    s.push_back(0xEE);  // not consumed
    std::vector<float> back(in.size());
    EXPECT_EQ(c.decode(s.data(), s.size(), back.data(), back.size()), 4 * in.size());
    for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(bits_of(back[i]), bits_of(in[i])) << i;
}

TEST(none_codec, TruncationIsRejected) {
    const none_codec c;
    const std::vector<std::uint8_t> s(11);
    float back[3];
    EXPECT_THROW(c.decode(s.data(), s.size(), back, 3), codec_error);
    EXPECT_EQ(c.decode(s.data(), s.size(), back, 2), 8u);
    EXPECT_EQ(c.decode(nullptr, 0, back, 0), 0u);
}

TEST(codec_interface, UsableThroughTheInterface) {
    std::vector<std::unique_ptr<codec>> all;
    all.push_back(std::make_unique<none_codec>());
    all.push_back(std::make_unique<inceptionn_codec>(-10));
    all.push_back(std::make_unique<bfp_codec>(bfp_codec::bfp16()));
    const std::vector<std::string> names = {"none", "inceptionn", "bfp"};
    std::vector<float> in(100);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = 1e-3f * static_cast<float>(i % 7) - 3e-3f;
    for (std::size_t j = 0; j < all.size(); ++j) {
        EXPECT_EQ(all[j]->name(), names[j]);
        std::vector<std::uint8_t> s;
        all[j]->encode(in.data(), in.size(), s);
        std::vector<float> back(in.size());
        EXPECT_EQ(all[j]->decode(s.data(), s.size(), back.data(), back.size()), s.size());
        for (std::size_t i = 0; i < in.size(); ++i) EXPECT_NEAR(back[i], in[i], 1.0 / 128) << i;
    }
}

}  // namespace
}  // namespace trainvp::codecs
