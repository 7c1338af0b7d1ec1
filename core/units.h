// Quantities with units, as they appear in configs: "10Gb/s", "68GB/s", "10ns", "256B",
// "100MHz", "2^-10", "90%".  Pure C++ (no SystemC) so that every area can parse them.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace trainvp::units {

enum class family {
    NUMBER,
    TIME,
    FREQUENCY,
    SIZE,
    BANDWIDTH,
    COMPUTE,
    ENERGY,                 // per event: pJ
    ENERGY_PER_BIT,         // pJ/bit
    ENERGY_PER_BIT_LENGTH,  // pJ/bit/mm (on-chip wires)
    LENGTH,                 // mm
    POWER,                  // mW (static power)
    POWER_PER_BIT,          // uW/bit (static power of a component per bit of its datapath)
    POWER_PER_BIT_LENGTH    // uW/bit/mm (static power of wires, per wire and mm)
};

// "time", "bandwidth", ... as used in error messages and in `trainvp describe`.
const char* family_name(family f);
// An example literal of the family, shown in error messages ("10Gb/s").
const char* family_example(family f);

// A parsed quantity in the family's base unit: seconds, hertz, bytes, bytes per second, a plain
// number, or for the on-chip families picojoules (per bit, per bit and millimetre) and
// millimetres, milliwatts, microwatts per bit (and mm), the units their models compute in, so that
// a value given in them is exact.
struct quantity {
    family fam = family::NUMBER;
    double value = 0.0;
};

// Parses `text` as a quantity of family `want`.  On failure returns std::nullopt and sets `why`
// to one sentence: the expected family with an example, and, when the text is a valid quantity
// of another family, which one it is (a time where a bandwidth belongs).
std::optional<quantity> parse(const std::string& text, family want, std::string& why);

// Parses a plain number: decimal, scientific, power of two ("2^-10", "-2^3"), or a percentage
// ("90%" -> 0.9).
std::optional<double> parse_number(const std::string& text);

// Rounds a non-negative time in picoseconds to the nearest integer, halves away from zero:
// std::llround without its library call (transfer times are computed several times per
// transaction).  Below 2^52 a double's integer part and fraction are exact.
inline std::uint64_t round_ps(double x) {
    if (!(x >= 0.0 && x < 4503599627370496.0)) return static_cast<std::uint64_t>(std::llround(x));
    const auto whole = static_cast<std::uint64_t>(x);
    return whole + (x - static_cast<double>(whole) >= 0.5 ? 1 : 0);
}

// Strong types for declared params.  Times are integer picoseconds (SystemC's default
// resolution) so that closed-form timing checks can be exact.
struct duration {
    std::uint64_t ps = 0;
    double seconds() const { return static_cast<double>(ps) * 1e-12; }
};
struct frequency {
    double hz = 0.0;
    // One clock period, rounded to the nearest picosecond.
    duration period() const;
};
struct data_size {
    std::uint64_t bytes = 0;
};
struct bandwidth {
    double bytes_per_s = 0.0;
    double bits_per_s() const { return bytes_per_s * 8.0; }
    // Time to move `bytes` at this bandwidth, rounded to the nearest picosecond.
    duration transfer_time(std::uint64_t bytes) const {
        if (bytes_per_s <= 0.0) return duration{0};
        return duration{round_ps(static_cast<double>(bytes) * 1e12 / bytes_per_s)};
    }
};

// A compute throughput in floating-point operations per second ("12TFLOP/s").
struct compute_rate {
    double flops_per_s = 0.0;
    // Time for `flops` operations, rounded to the nearest picosecond.
    duration time_for(double flops) const;
};

// On-chip energy and geometry (the NoC's energy model), in the units it computes in.
struct energy {
    double pj = 0.0;
};
struct energy_per_bit {
    double pj_per_bit = 0.0;
};
struct energy_per_bit_length {
    double pj_per_bit_mm = 0.0;
};
struct length {
    double mm = 0.0;
};
struct power {
    double mw = 0.0;
};
struct power_per_bit {
    double uw_per_bit = 0.0;
};
struct power_per_bit_length {
    double uw_per_bit_mm = 0.0;
};

// Formats a value in a readable unit ("12.5 GB/s", "409.6 ns", "4 KiB") for summaries.
std::string format_time(double seconds);
std::string format_bandwidth(double bytes_per_s);
std::string format_size(double bytes);

}  // namespace trainvp::units
