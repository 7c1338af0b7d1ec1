#include "core/units.h"

#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace trainvp::units {

namespace {

struct unit_def {
    const char* symbol;
    family fam;
    double scale;  // multiplier to the family's base unit
};

// Case-sensitive on purpose: "mb/s" (millibits?) and "Mb/s" must not be confused.
constexpr std::array<unit_def, 81> k_units{{
    {"ps", family::TIME, 1e-12},
    {"ns", family::TIME, 1e-9},
    {"us", family::TIME, 1e-6},
    {"\xC2\xB5s", family::TIME, 1e-6},  // µs
    {"ms", family::TIME, 1e-3},
    {"s", family::TIME, 1.0},
    {"Hz", family::FREQUENCY, 1.0},
    {"kHz", family::FREQUENCY, 1e3},
    {"KHz", family::FREQUENCY, 1e3},
    {"MHz", family::FREQUENCY, 1e6},
    {"GHz", family::FREQUENCY, 1e9},
    {"B", family::SIZE, 1.0},
    {"kB", family::SIZE, 1e3},
    {"KB", family::SIZE, 1e3},
    {"MB", family::SIZE, 1e6},
    {"GB", family::SIZE, 1e9},
    {"TB", family::SIZE, 1e12},
    {"KiB", family::SIZE, 1024.0},
    {"MiB", family::SIZE, 1024.0 * 1024.0},
    {"GiB", family::SIZE, 1024.0 * 1024.0 * 1024.0},
    {"TiB", family::SIZE, 1024.0 * 1024.0 * 1024.0 * 1024.0},
    {"b/s", family::BANDWIDTH, 1.0 / 8.0},
    {"kb/s", family::BANDWIDTH, 1e3 / 8.0},
    {"Kb/s", family::BANDWIDTH, 1e3 / 8.0},
    {"Mb/s", family::BANDWIDTH, 1e6 / 8.0},
    {"Gb/s", family::BANDWIDTH, 1e9 / 8.0},
    {"Tb/s", family::BANDWIDTH, 1e12 / 8.0},
    {"bps", family::BANDWIDTH, 1.0 / 8.0},
    {"kbps", family::BANDWIDTH, 1e3 / 8.0},
    {"Kbps", family::BANDWIDTH, 1e3 / 8.0},
    {"Mbps", family::BANDWIDTH, 1e6 / 8.0},
    {"Gbps", family::BANDWIDTH, 1e9 / 8.0},
    {"Tbps", family::BANDWIDTH, 1e12 / 8.0},
    {"B/s", family::BANDWIDTH, 1.0},
    {"kB/s", family::BANDWIDTH, 1e3},
    {"KB/s", family::BANDWIDTH, 1e3},
    {"MB/s", family::BANDWIDTH, 1e6},
    {"GB/s", family::BANDWIDTH, 1e9},
    {"TB/s", family::BANDWIDTH, 1e12},
    {"KiB/s", family::BANDWIDTH, 1024.0},
    {"MiB/s", family::BANDWIDTH, 1024.0 * 1024.0},
    {"GiB/s", family::BANDWIDTH, 1024.0 * 1024.0 * 1024.0},
    {"Bps", family::BANDWIDTH, 1.0},
    {"KBps", family::BANDWIDTH, 1e3},
    {"MBps", family::BANDWIDTH, 1e6},
    {"GBps", family::BANDWIDTH, 1e9},
    {"Gbit/s", family::BANDWIDTH, 1e9 / 8.0},
    {"Mbit/s", family::BANDWIDTH, 1e6 / 8.0},
    {"Tbit/s", family::BANDWIDTH, 1e12 / 8.0},
    {"FLOP/s", family::COMPUTE, 1.0},
    {"kFLOP/s", family::COMPUTE, 1e3},
    {"MFLOP/s", family::COMPUTE, 1e6},
    {"GFLOP/s", family::COMPUTE, 1e9},
    {"TFLOP/s", family::COMPUTE, 1e12},
    {"PFLOP/s", family::COMPUTE, 1e15},
    {"FLOPS", family::COMPUTE, 1.0},
    {"fJ", family::ENERGY, 1e-3},
    {"pJ", family::ENERGY, 1.0},
    {"nJ", family::ENERGY, 1e3},
    {"fJ/bit", family::ENERGY_PER_BIT, 1e-3},
    {"pJ/bit", family::ENERGY_PER_BIT, 1.0},
    {"nJ/bit", family::ENERGY_PER_BIT, 1e3},
    {"fJ/bit/mm", family::ENERGY_PER_BIT_LENGTH, 1e-3},
    {"pJ/bit/mm", family::ENERGY_PER_BIT_LENGTH, 1.0},
    {"um", family::LENGTH, 1e-3},
    {"\xC2\xB5m", family::LENGTH, 1e-3},  // µm
    {"mm", family::LENGTH, 1.0},
    {"cm", family::LENGTH, 10.0},
    {"uW", family::POWER, 1e-3},
    {"\xC2\xB5W", family::POWER, 1e-3},  // µW
    {"mW", family::POWER, 1.0},
    {"W", family::POWER, 1e3},
    {"nW/bit", family::POWER_PER_BIT, 1e-3},
    {"uW/bit", family::POWER_PER_BIT, 1.0},
    {"mW/bit", family::POWER_PER_BIT, 1e3},
    {"nW/bit/mm", family::POWER_PER_BIT_LENGTH, 1e-3},
    {"uW/bit/mm", family::POWER_PER_BIT_LENGTH, 1.0},
    {"mW/bit/mm", family::POWER_PER_BIT_LENGTH, 1e3},
    {"GT/s", family::NUMBER, 0.0},  // placeholder: rejected below with a hint (transfers, not bits)
    {"bit", family::NUMBER, 0.0},   // placeholder: sizes are in bytes
    {"%", family::NUMBER, 0.01},
}};

std::string trim(const std::string& s) {
    std::size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    std::size_t e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

// Parses the numeric prefix of `s`: decimal/scientific or 2^k.  Returns the number of chars
// consumed (0 when there is no number).
std::size_t parse_numeric_prefix(const std::string& s, double& out) {
    std::size_t i = 0;
    double sign = 1.0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
        if (s[i] == '-') sign = -1.0;
        ++i;
    }
    // Power of two: 2^k with an integer exponent.
    if (s.compare(i, 2, "2^") == 0) {
        std::size_t j = i + 2;
        std::size_t k = j;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        std::size_t digits_begin = k;
        while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
        if (k == digits_begin || k - digits_begin > 4) return 0;
        int exponent = std::atoi(s.substr(j, k - j).c_str());
        out = sign * std::ldexp(1.0, exponent);
        return k;
    }
    const char* begin = s.c_str() + i;
    // Reject hex floats, inf and nan, which strtod would accept.
    if (i >= s.size() || !(std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
        return 0;
    }
    if (s.compare(i, 2, "0x") == 0 || s.compare(i, 2, "0X") == 0) return 0;
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(begin, &end);
    if (end == begin || errno == ERANGE || !std::isfinite(v)) return 0;
    out = sign * v;
    return i + static_cast<std::size_t>(end - begin);
}

const unit_def* find_unit(const std::string& symbol) {
    for (const auto& u : k_units) {
        if (symbol == u.symbol) return &u;
    }
    return nullptr;
}

bool same_ignoring_case(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    }
    return true;
}

std::string shortest(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

// What an unknown unit most likely meant: the same letters in another case ("gb" for GB),
// bits where bytes are wanted ("Gb" for a size), a metric prefix or FLOP on a plain number
// ("1GFLOP" for 1e9), hours or minutes for a time.
std::string unit_hint(const std::string& symbol, double number, family want) {
    struct prefix {
        const char* name;
        double scale;
    };
    // exp: the power of ten a decimal prefix stands for (0: a binary prefix or none).
    struct prefix_exp {
        const char* name;
        double scale;
        int exp;
    };
    static const prefix_exp k_prefixes[] = {
        {"", 1.0, 0},         {"k", 1e3, 3},          {"K", 1e3, 3},   {"M", 1e6, 6},
        {"G", 1e9, 9},        {"T", 1e12, 12},        {"P", 1e15, 15}, {"Ki", 1024.0, 0},
        {"Mi", 1048576.0, 0}, {"Gi", 1073741824.0, 0}};
    if (want == family::SIZE) {
        for (const auto& p : k_prefixes) {
            if (symbol == std::string(p.name) + "b" || symbol == std::string(p.name) + "bit") {
                return " (" + symbol +
                       " counts bits; a size is in bytes: " + shortest(number / 8.0) + p.name +
                       "B)";
            }
        }
    }
    for (const auto& u : k_units) {
        if (u.fam == want && u.scale != 0.0 && same_ignoring_case(symbol, u.symbol)) {
            return " (did you mean '" + std::string(u.symbol) + "'? units are case-sensitive)";
        }
    }
    if (want == family::NUMBER) {
        for (const auto& p : k_prefixes) {
            const std::string n = p.name;
            if ((!n.empty() && symbol == n) || symbol == n + "FLOP" || symbol == n + "FLOPs") {
                return " (a plain number takes no unit or prefix: write " +
                       (p.exp > 0 ? shortest(number) + "e" + std::to_string(p.exp)
                                  : shortest(number * p.scale)) +
                       ")";
            }
        }
    }
    if (want == family::TIME) {
        static const prefix k_long[] = {{"min", 60.0},     {"h", 3600.0},    {"hour", 3600.0},
                                        {"hours", 3600.0}, {"day", 86400.0}, {"days", 86400.0}};
        for (const auto& p : k_long) {
            if (symbol == p.name) return " (write " + shortest(number * p.scale) + "s)";
        }
    }
    return "";
}

}  // namespace

const char* family_name(family f) {
    switch (f) {
        case family::NUMBER:
            return "number";
        case family::TIME:
            return "time";
        case family::FREQUENCY:
            return "frequency";
        case family::SIZE:
            return "size";
        case family::BANDWIDTH:
            return "bandwidth";
        case family::COMPUTE:
            return "compute rate";
        case family::ENERGY:
            return "per-event energy";
        case family::ENERGY_PER_BIT:
            return "per-bit energy";
        case family::ENERGY_PER_BIT_LENGTH:
            return "per-bit-per-mm energy";
        case family::LENGTH:
            return "length";
        case family::POWER:
            return "power";
        case family::POWER_PER_BIT:
            return "per-bit power";
        case family::POWER_PER_BIT_LENGTH:
            return "per-bit-per-mm power";
    }
    return "?";
}

const char* family_example(family f) {
    switch (f) {
        case family::NUMBER:
            return "0.9, 2^-10 or 90%";
        case family::TIME:
            return "10ns (units ps, ns, us, ms, s)";
        case family::FREQUENCY:
            return "100MHz (units Hz, kHz, MHz, GHz)";
        case family::SIZE:
            return "256B (units B, KB, MB, GB, KiB, MiB, GiB)";
        case family::BANDWIDTH:
            return "10Gb/s (units b/s, Mb/s, Gb/s, Gbps, B/s, MB/s, GB/s)";
        case family::COMPUTE:
            return "12TFLOP/s (units FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s)";
        case family::ENERGY:
            return "0.25pJ (units fJ, pJ, nJ)";
        case family::ENERGY_PER_BIT:
            return "0.006pJ/bit (units fJ/bit, pJ/bit, nJ/bit)";
        case family::ENERGY_PER_BIT_LENGTH:
            return "0.1pJ/bit/mm (units fJ/bit/mm, pJ/bit/mm)";
        case family::LENGTH:
            return "3mm (units um, mm, cm)";
        case family::POWER:
            return "2.5mW (units uW, mW, W)";
        case family::POWER_PER_BIT:
            return "2uW/bit (units nW/bit, uW/bit, mW/bit)";
        case family::POWER_PER_BIT_LENGTH:
            return "0.1uW/bit/mm (units nW/bit/mm, uW/bit/mm, mW/bit/mm)";
    }
    return "?";
}

std::optional<double> parse_number(const std::string& text) {
    std::string why;
    auto q = parse(text, family::NUMBER, why);
    if (!q) return std::nullopt;
    return q->value;
}

std::optional<quantity> parse(const std::string& raw, family want, std::string& why) {
    const std::string text = trim(raw);
    double number = 0.0;
    std::size_t used = parse_numeric_prefix(text, number);
    if (used == 0) {
        why = "'" + raw + "' is not a " + family_name(want) + "; expected e.g. " +
              family_example(want);
        return std::nullopt;
    }
    // 2^k beyond a double (2^1024 and up) is infinite (fuzz_units found 2^2210 accepted).
    const auto out_of_range = [&] {
        why = "'" + raw + "' is out of range (a " + std::string(family_name(want)) +
              " must be below 1.8e308 in its base unit)";
        return std::nullopt;
    };
    if (!std::isfinite(number)) return out_of_range();
    const std::string symbol = trim(text.substr(used));
    if (symbol.empty()) {
        if (want == family::NUMBER || number == 0.0) return quantity{want, number};
        why = "'" + raw + "' has no unit; a " + std::string(family_name(want)) +
              " needs one, e.g. " + family_example(want);
        return std::nullopt;
    }
    const unit_def* u = find_unit(symbol);
    if (u == nullptr || u->scale == 0.0) {
        why = "unknown unit '" + symbol + "' in '" + raw + "'; a " + family_name(want) +
              " is written e.g. " + family_example(want);
        if (symbol == "GT/s") why += " (give the link rate in Gb/s, or use the PCIe gen param)";
        why += unit_hint(symbol, number, want);
        return std::nullopt;
    }
    if (u->fam != want) {
        if (u->fam == family::NUMBER) {
            why = "'" + raw + "' is a plain number, but a " + family_name(want) +
                  " is expected, e.g. " + family_example(want);
        } else {
            why = "'" + raw + "' is a " + family_name(u->fam) + ", but a " + family_name(want) +
                  " is expected, e.g. " + family_example(want);
        }
        return std::nullopt;
    }
    const double value = number * u->scale;
    if (!std::isfinite(value)) return out_of_range();
    return quantity{want, value};
}

duration frequency::period() const {
    if (hz <= 0.0) return duration{0};
    return duration{static_cast<std::uint64_t>(std::llround(1e12 / hz))};
}

duration compute_rate::time_for(double flops) const {
    if (flops_per_s <= 0.0) return duration{0};
    return duration{round_ps(flops * 1e12 / flops_per_s)};
}

namespace {
std::string format_scaled(double v, const char* const* names, const double* scales, int n) {
    int pick = n - 1;
    for (int i = 0; i < n; ++i) {
        if (std::fabs(v) >= scales[i]) {
            pick = i;
            break;
        }
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g %s", v / scales[pick], names[pick]);
    return buf;
}
}  // namespace

std::string format_time(double seconds) {
    static const char* names[] = {"s", "ms", "us", "ns", "ps"};
    static const double scales[] = {1.0, 1e-3, 1e-6, 1e-9, 1e-12};
    return format_scaled(seconds, names, scales, 5);
}

std::string format_bandwidth(double bytes_per_s) {
    static const char* names[] = {"Gb/s", "Mb/s", "kb/s", "b/s"};
    static const double scales[] = {1e9, 1e6, 1e3, 1.0};
    return format_scaled(bytes_per_s * 8.0, names, scales, 4);
}

std::string format_size(double bytes) {
    static const char* names[] = {"GB", "MB", "KB", "B"};
    static const double scales[] = {1e9, 1e6, 1e3, 1.0};
    return format_scaled(bytes, names, scales, 4);
}

}  // namespace trainvp::units
