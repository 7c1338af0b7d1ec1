// The codec registry: the built-in codecs by name with their params, made with defaults or
// given values, the same streams as constructing the classes directly; bad params refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "ip/codecs/bfp_codec.h"
#include "ip/codecs/codec_registry.h"
#include "ip/codecs/inceptionn_codec.h"
#include "ip/codecs/none_codec.h"

namespace trainvp::codecs {
namespace {

std::vector<float> sample() {
    std::vector<float> v;
    for (int i = 0; i < 100; ++i) v.push_back(0.001f * static_cast<float>(i * i - 37 * i) / 7.0f);
    v.push_back(3.5f);
    v.push_back(-0.0f);
    return v;
}

std::vector<std::uint8_t> encoded(const codec& c, const std::vector<float>& v) {
    std::vector<std::uint8_t> out;
    c.encode(v.data(), v.size(), out);
    return out;
}

TEST(codec_registry, lists_the_built_ins_with_their_params) {
    const auto& reg = codec_registry::global();
    EXPECT_EQ(reg.names(), (std::vector<std::string>{"none", "inceptionn", "bfp"}));
    for (const auto& n : reg.names()) {
        const codec_info* c = reg.find(n);
        ASSERT_NE(c, nullptr);
        EXPECT_FALSE(c->description.empty()) << n;
        EXPECT_EQ(reg.make(n)->name(), n);  // the registry name is the codec's name()
        EXPECT_EQ(reg.origin(n), "built in");
    }
    EXPECT_TRUE(reg.find("none")->params.empty());
    ASSERT_EQ(reg.find("inceptionn")->params.size(), 1u);
    EXPECT_EQ(reg.find("inceptionn")->params[0].name, "error_bound_exponent");
    EXPECT_EQ(reg.find("inceptionn")->params[0].default_value, -10);
    ASSERT_EQ(reg.find("bfp")->params.size(), 3u);
}

TEST(codec_registry, makes_the_same_codecs_as_their_constructors) {
    const std::vector<float> v = sample();
    EXPECT_EQ(encoded(*make_codec("none"), v), encoded(none_codec(), v));
    EXPECT_EQ(encoded(*make_codec("inceptionn"), v), encoded(inceptionn_codec(-10), v));
    EXPECT_EQ(encoded(*make_codec("inceptionn", {{"error_bound_exponent", -6}}), v),
              encoded(inceptionn_codec(-6), v));
    EXPECT_EQ(encoded(*make_codec("bfp"), v), encoded(bfp_codec::bfp16(), v));
    const auto b =
        make_codec("bfp", {{"block_size", 8}, {"exponent_bits", 6}, {"mantissa_bits", 3}});
    EXPECT_EQ(encoded(*b, v), encoded(bfp_codec(8, 6, 3), v));
    // encoded_bytes through the interface: fixed for none and bfp, data-dependent for
    // inceptionn.
    EXPECT_EQ(b->encoded_bytes(1000), bfp_codec(8, 6, 3).encoded_bytes(1000));
    EXPECT_EQ(make_codec("none")->encoded_bytes(10), 40u);
    EXPECT_THROW(make_codec("inceptionn")->encoded_bytes(10), std::logic_error);
}

TEST(codec_registry, refuses_unknown_names_params_and_values) {
    EXPECT_THROW(make_codec("gzip"), std::invalid_argument);
    EXPECT_THROW(make_codec("bfp", {{"block", 16}}), std::invalid_argument);
    EXPECT_THROW(make_codec("bfp", {{"block_size", 0}}), std::invalid_argument);
    EXPECT_THROW(make_codec("bfp", {{"block_size", 16.5}}), std::invalid_argument);
    EXPECT_THROW(make_codec("inceptionn", {{"error_bound_exponent", 0}}), std::invalid_argument);
    try {
        make_codec("none", {{"x", 1}});
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "codec none has no param 'x'");
    }
    auto& reg = codec_registry::global();
    codec_info c = *reg.find("bfp");
    EXPECT_THROW(reg.add(c), std::logic_error);  // taken
    c.name = "test.bad_default";
    c.params[0].default_value = 0;
    EXPECT_THROW(reg.add(c), std::logic_error);
}

}  // namespace
}  // namespace trainvp::codecs
