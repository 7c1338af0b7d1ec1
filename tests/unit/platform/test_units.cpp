// Units parser: every family with its prefixes, power-of-two and percent numbers, and the
// errors for wrong families, missing and unknown units.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/did_you_mean.h"
#include "core/param_decl.h"
#include "core/params.h"
#include "core/units.h"
#include "tests/support/test_util.h"

namespace trainvp {
namespace {

using units::family;

double parse_ok(const std::string& text, family f) {
    std::string why;
    auto q = units::parse(text, f, why);
    EXPECT_TRUE(q.has_value()) << text << ": " << why;
    return q ? q->value : -1.0;
}

std::string parse_err(const std::string& text, family f) {
    std::string why;
    auto q = units::parse(text, f, why);
    EXPECT_FALSE(q.has_value()) << text;
    return why;
}

TEST(units, times_from_ps_to_s) {
    EXPECT_DOUBLE_EQ(parse_ok("1ps", family::TIME), 1e-12);
    EXPECT_DOUBLE_EQ(parse_ok("10ns", family::TIME), 10e-9);
    EXPECT_DOUBLE_EQ(parse_ok("2.5 us", family::TIME), 2.5e-6);
    EXPECT_DOUBLE_EQ(parse_ok("3ms", family::TIME), 3e-3);
    EXPECT_DOUBLE_EQ(parse_ok("1s", family::TIME), 1.0);
    EXPECT_DOUBLE_EQ(parse_ok("0", family::TIME), 0.0);  // zero needs no unit
}

TEST(units, frequencies) {
    EXPECT_DOUBLE_EQ(parse_ok("100MHz", family::FREQUENCY), 100e6);
    EXPECT_DOUBLE_EQ(parse_ok("1.5GHz", family::FREQUENCY), 1.5e9);
    EXPECT_DOUBLE_EQ(parse_ok("32kHz", family::FREQUENCY), 32e3);
    EXPECT_DOUBLE_EQ(parse_ok("50Hz", family::FREQUENCY), 50.0);
}

TEST(units, sizes_decimal_and_binary) {
    EXPECT_DOUBLE_EQ(parse_ok("256B", family::SIZE), 256.0);
    EXPECT_DOUBLE_EQ(parse_ok("4KB", family::SIZE), 4000.0);
    EXPECT_DOUBLE_EQ(parse_ok("4KiB", family::SIZE), 4096.0);
    EXPECT_DOUBLE_EQ(parse_ok("64MB", family::SIZE), 64e6);
    EXPECT_DOUBLE_EQ(parse_ok("64MiB", family::SIZE), 64.0 * 1024 * 1024);
    EXPECT_DOUBLE_EQ(parse_ok("2GiB", family::SIZE), 2.0 * 1024 * 1024 * 1024);
    EXPECT_DOUBLE_EQ(parse_ok("1GB", family::SIZE), 1e9);
}

TEST(units, bandwidths_bits_and_bytes) {
    EXPECT_DOUBLE_EQ(parse_ok("10Gb/s", family::BANDWIDTH), 1.25e9);
    EXPECT_DOUBLE_EQ(parse_ok("10Gbps", family::BANDWIDTH), 1.25e9);
    EXPECT_DOUBLE_EQ(parse_ok("100 Mb/s", family::BANDWIDTH), 12.5e6);
    EXPECT_DOUBLE_EQ(parse_ok("68GB/s", family::BANDWIDTH), 68e9);
    EXPECT_DOUBLE_EQ(parse_ok("400Gb/s", family::BANDWIDTH), 50e9);
    EXPECT_DOUBLE_EQ(parse_ok("1Tb/s", family::BANDWIDTH), 125e9);
    EXPECT_DOUBLE_EQ(parse_ok("8b/s", family::BANDWIDTH), 1.0);
    EXPECT_DOUBLE_EQ(parse_ok("1kb/s", family::BANDWIDTH), 125.0);
    EXPECT_DOUBLE_EQ(parse_ok("1MiB/s", family::BANDWIDTH), 1024.0 * 1024.0);
}

TEST(units, plain_power_of_two_and_percent_numbers) {
    EXPECT_DOUBLE_EQ(parse_ok("0.9", family::NUMBER), 0.9);
    EXPECT_DOUBLE_EQ(parse_ok("2^-10", family::NUMBER), 1.0 / 1024.0);
    EXPECT_DOUBLE_EQ(parse_ok("2^10", family::NUMBER), 1024.0);
    EXPECT_DOUBLE_EQ(parse_ok("-2^3", family::NUMBER), -8.0);
    EXPECT_DOUBLE_EQ(parse_ok("90%", family::NUMBER), 0.9);
    EXPECT_DOUBLE_EQ(parse_ok("1e-3", family::NUMBER), 1e-3);
}

TEST(units, wrong_family_is_named) {
    EXPECT_EQ(parse_err("10ns", family::BANDWIDTH),
              "'10ns' is a time, but a bandwidth is expected, e.g. 10Gb/s (units b/s, Mb/s, "
              "Gb/s, Gbps, B/s, MB/s, GB/s)");
    EXPECT_EQ(parse_err("4KiB", family::TIME),
              "'4KiB' is a size, but a time is expected, e.g. 10ns (units ps, ns, us, ms, s)");
    EXPECT_EQ(parse_err("10Gb/s", family::SIZE),
              "'10Gb/s' is a bandwidth, but a size is expected, e.g. 256B (units B, KB, MB, GB, "
              "KiB, MiB, GiB)");
    EXPECT_EQ(parse_err("100MHz", family::TIME),
              "'100MHz' is a frequency, but a time is expected, e.g. 10ns (units ps, ns, us, ms, "
              "s)");
}

TEST(units, missing_and_unknown_units_and_garbage) {
    EXPECT_EQ(parse_err("10", family::TIME),
              "'10' has no unit; a time needs one, e.g. 10ns (units ps, ns, us, ms, s)");
    EXPECT_EQ(parse_err("10 parsecs", family::TIME),
              "unknown unit 'parsecs' in '10 parsecs'; a time is written e.g. 10ns (units ps, ns, "
              "us, ms, s)");
    EXPECT_EQ(parse_err("fast", family::BANDWIDTH),
              "'fast' is not a bandwidth; expected e.g. 10Gb/s (units b/s, Mb/s, Gb/s, Gbps, B/s, "
              "MB/s, GB/s)");
    // Case matters: mb/s would be millibits.
    EXPECT_FALSE(parse_err("10mb/s", family::BANDWIDTH).empty());
    EXPECT_FALSE(parse_err("0x10", family::NUMBER).empty());
    EXPECT_FALSE(parse_err("inf", family::NUMBER).empty());
    EXPECT_FALSE(parse_err("nan", family::NUMBER).empty());
    EXPECT_FALSE(parse_err("1e999", family::NUMBER).empty());
    EXPECT_FALSE(parse_err("", family::NUMBER).empty());
    EXPECT_FALSE(parse_err("2^", family::NUMBER).empty());
}

TEST(units, transfer_time_and_period_are_exact_picoseconds) {
    units::bandwidth bw{25.6e9};
    EXPECT_EQ(bw.transfer_time(4096).ps, 160000u);  // 4096 B / 25.6 GB/s = 160 ns
    units::bandwidth ten_g{1.25e9};
    EXPECT_EQ(ten_g.transfer_time(1500).ps, 1200000u);  // 1500 B at 10 Gb/s = 1.2 us
    EXPECT_EQ(units::frequency{100e6}.period().ps, 10000u);
}

// Typed param parsing: integers, times as whole picoseconds, ranges.
TEST(units, round_ps_is_llround_for_every_time_it_rounds) {
    // The halves, the values one ulp either side of them, integers, and random times over the
    // whole range transfer times take (0 .. 2^52 ps, ~75 minutes), plus the fallback above it.
    std::vector<double> xs = {
        0.0, 0.5, 1.5, 2.5, 1e6 + 0.5, 4503599627370495.5, 4503599627370496.0, 1e17, 9.2e18};
    for (double h : {0.5, 1.5, 7.5, 1446.5, 123456789.5}) {
        xs.push_back(std::nextafter(h, 0.0));
        xs.push_back(std::nextafter(h, 1e30));
    }
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> exponent(-3.0, 15.6);
    for (int i = 0; i < 100000; ++i) xs.push_back(std::pow(10.0, exponent(rng)));
    for (double x : xs) {
        ASSERT_EQ(units::round_ps(x), static_cast<std::uint64_t>(std::llround(x))) << x;
    }
}

TEST(units, param_values_check_kind_and_range) {
    param_decl d;
    d.kind = param_kind::INT;
    d.min = 1;
    d.max = 64;
    d.range_text = "[1, 64]";
    auto v = [](const std::string& s) {
        return config_node::scalar_node(s, source_loc{"f.yaml", 3, 7});
    };
    EXPECT_EQ(param_parse::to_int(v("2^5"), d, "x.lanes"), 32);
    EXPECT_EQ(test::input_error_of([&] { param_parse::to_int(v("65"), d, "x.lanes"); }),
              "f.yaml:3:7: error: x.lanes: '65' is out of range [1, 64]");
    EXPECT_EQ(test::input_error_of([&] { param_parse::to_int(v("2.5"), d, "x.lanes"); }),
              "f.yaml:3:7: error: x.lanes: '2.5' is not an integer");
    param_decl t;
    t.kind = param_kind::TIME;
    EXPECT_EQ(param_parse::to_time(v("1.5ns"), t, "x.lat").ps, 1500u);
    EXPECT_EQ(test::input_error_of([&] { param_parse::to_time(v("0.5ps"), t, "x.lat"); }),
              "f.yaml:3:7: error: x.lat: '0.5ps' is not a whole number of picoseconds");
    EXPECT_EQ(test::input_error_of([&] { param_parse::to_time(v("-3ns"), t, "x.lat"); }),
              "f.yaml:3:7: error: x.lat: '-3ns' must not be negative");
    param_decl b;
    b.kind = param_kind::BOOL;
    EXPECT_EQ(test::input_error_of([&] { param_parse::to_bool(v("maybe"), b, "x.on"); }),
              "f.yaml:3:7: error: x.on: 'maybe' is not a bool; expected true or false");
}

TEST(did_you_mean, suggests_close_names_only) {
    EXPECT_EQ(edit_distance("kernal", "kernel"), 1u);
    EXPECT_EQ(edit_distance("", "abc"), 3u);
    EXPECT_EQ(edit_distance("widht", "width"), 1u);  // an adjacent swap is one edit
    EXPECT_EQ(edit_distance("abc", "ca"), 3u);
    EXPECT_EQ(did_you_mean("kernal", {"stride", "kernel", "padding"}), " (did you mean 'kernel'?)");
    EXPECT_EQ(did_you_mean("memroy", {"memory", "traffic.generator"}), " (did you mean 'memory'?)");
    EXPECT_EQ(did_you_mean("foo", {"stride", "kernel", "groups"}), "");
    EXPECT_EQ(did_you_mean("c", {"b"}), "");  // replacing the whole word is not a typo
    EXPECT_EQ(did_you_mean("outt", {"out"}), " (did you mean 'out'?)");
    EXPECT_EQ(join({"a", "b", "c"}), "a, b, c");
}

TEST(units, on_chip_energy_and_length_in_the_model_units) {
    // Given in the unit the NoC's energy model computes in, a value is exact.
    EXPECT_EQ(parse_ok("0.006pJ/bit", family::ENERGY_PER_BIT), 0.006);
    EXPECT_EQ(parse_ok("0.25pJ", family::ENERGY), 0.25);
    EXPECT_EQ(parse_ok("0.1pJ/bit/mm", family::ENERGY_PER_BIT_LENGTH), 0.1);
    EXPECT_EQ(parse_ok("3mm", family::LENGTH), 3.0);
    EXPECT_DOUBLE_EQ(parse_ok("6fJ/bit", family::ENERGY_PER_BIT), 0.006);
    EXPECT_DOUBLE_EQ(parse_ok("2nJ", family::ENERGY), 2000.0);
    EXPECT_DOUBLE_EQ(parse_ok("100fJ/bit/mm", family::ENERGY_PER_BIT_LENGTH), 0.1);
    EXPECT_DOUBLE_EQ(parse_ok("2500um", family::LENGTH), 2.5);
    EXPECT_DOUBLE_EQ(parse_ok("1cm", family::LENGTH), 10.0);
    // Static power (the NoC's leakage model) in mW, mW per bit and per bit and mm.
    EXPECT_EQ(parse_ok("2.5mW", family::POWER), 2.5);
    EXPECT_DOUBLE_EQ(parse_ok("20uW", family::POWER), 0.02);
    EXPECT_DOUBLE_EQ(parse_ok("1W", family::POWER), 1000.0);
    EXPECT_EQ(parse_ok("1.967uW/bit", family::POWER_PER_BIT), 1.967);
    EXPECT_DOUBLE_EQ(parse_ok("0.002mW/bit", family::POWER_PER_BIT), 2.0);
    EXPECT_DOUBLE_EQ(parse_ok("71.38nW/bit", family::POWER_PER_BIT), 0.07138);
    EXPECT_EQ(parse_ok("0.11365uW/bit/mm", family::POWER_PER_BIT_LENGTH), 0.11365);
    EXPECT_DOUBLE_EQ(parse_ok("113.65nW/bit/mm", family::POWER_PER_BIT_LENGTH), 0.11365);
    EXPECT_DOUBLE_EQ(parse_ok("1mW/bit/mm", family::POWER_PER_BIT_LENGTH), 1000.0);
    EXPECT_EQ(parse_err("2uW", family::POWER_PER_BIT),
              "'2uW' is a power, but a per-bit power is expected, e.g. 2uW/bit (units nW/bit, "
              "uW/bit, mW/bit)");
    EXPECT_EQ(
        parse_err("0.25pJ", family::ENERGY_PER_BIT),
        "'0.25pJ' is a per-event energy, but a per-bit energy is expected, e.g. 0.006pJ/bit (units "
        "fJ/bit, pJ/bit, nJ/bit)");
    EXPECT_EQ(parse_err("3", family::LENGTH),
              "'3' has no unit; a length needs one, e.g. 3mm (units um, mm, cm)");
}

// A sub-map of declared params: its keys with defaults, a list of sub-maps, and the errors
// for an unknown key (full key, did-you-mean), a wrong shape and a bad value inside.
struct test_segment {
    int from = 0, to = 0;
};
struct test_router {
    std::uint64_t vcs = 4, vc_buffers = 32;
    units::energy_per_bit write{0};
    std::vector<test_segment> segments;
};
struct test_block {
    std::uint64_t size = 0;
    test_router router;
};

std::vector<param_decl> test_block_decls() {
    param_list<test_block> d;
    d.param("size", &test_block::size, "4", "routers per row");
    d.group("router", &test_block::router, "the routers", [](param_list<test_router>& r) {
        r.param("vcs", &test_router::vcs, "4", "virtual channels").range("1", "16");
        r.param("vc_buffers", &test_router::vc_buffers, "32", "flits per VC");
        r.param("write", &test_router::write, "0.006pJ/bit", "buffer write energy");
        r.group_list("segments", &test_router::segments, "segments",
                     [](param_list<test_segment>& s) {
                         s.required("from", &test_segment::from, "one end");
                         s.param("to", &test_segment::to, "0", "the other end");
                     });
    });
    return d.params();
}

test_block apply_yaml(const std::string& text) {
    const config_node doc = config_node::parse(text, "f.yaml");
    std::vector<param_value> values;
    for (const auto& e : doc.entries()) values.push_back(param_value{e.key, e.value});
    const params p("noc", values);
    test_block b;
    p.apply_to(&b, test_block_decls());
    return b;
}

TEST(param_groups, keys_of_a_sub_map_take_values_or_defaults) {
    test_block b =
        apply_yaml("size: 8\nrouter:\n  vcs: 2\n  segments: [{from: 1, to: 3}, {from: 2}]\n");
    EXPECT_EQ(b.size, 8u);
    EXPECT_EQ(b.router.vcs, 2u);
    EXPECT_EQ(b.router.vc_buffers, 32u);
    EXPECT_EQ(b.router.write.pj_per_bit, 0.006);
    ASSERT_EQ(b.router.segments.size(), 2u);
    EXPECT_EQ(b.router.segments[0].to, 3);
    EXPECT_EQ(b.router.segments[1].from, 2);
    EXPECT_EQ(b.router.segments[1].to, 0);
    test_block absent = apply_yaml("size: 8\n");
    EXPECT_EQ(absent.router.vcs, 4u);
    EXPECT_TRUE(absent.router.segments.empty());
}

TEST(param_groups, errors_name_the_full_key_and_its_place) {
    EXPECT_EQ(test::input_error_of([] { apply_yaml("router:\n  vc: 2\n"); }),
              "f.yaml:2:3: error: noc.router.vc: unknown key of `router` (did you mean 'vcs'?); "
              "its keys are vcs, vc_buffers, write, segments");
    EXPECT_EQ(test::input_error_of([] { apply_yaml("router:\n  vcs: 20\n"); }),
              "f.yaml:2:8: error: noc.router.vcs: '20' is out of range [1, 16]");
    EXPECT_EQ(test::input_error_of([] { apply_yaml("router: 4\n"); }),
              "f.yaml:1:9: error: noc.router: expected a map of router's keys, got a value");
    EXPECT_EQ(test::input_error_of([] { apply_yaml("router: {segments: [{fro: 1}]}\n"); }),
              "f.yaml:1:22: error: noc.router.segments[0].fro: unknown key of `segments` (did "
              "you mean 'from'?); its keys are from, to");
    EXPECT_EQ(test::input_error_of([] { apply_yaml("router: {write: 3pJ}\n"); }),
              "f.yaml:1:17: error: noc.router.write: '3pJ' is a per-event energy, but a per-bit "
              "energy is "
              "expected, e.g. 0.006pJ/bit (units fJ/bit, pJ/bit, nJ/bit)");
}

}  // namespace
}  // namespace trainvp
