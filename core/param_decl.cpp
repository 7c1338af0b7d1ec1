#include "core/param_decl.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "core/did_you_mean.h"
#include "core/params.h"

namespace trainvp {

const char* param_kind_name(param_kind k) {
    switch (k) {
        case param_kind::BOOL:
            return "bool";
        case param_kind::INT:
            return "integer";
        case param_kind::REAL:
            return "number";
        case param_kind::STRING:
            return "string";
        case param_kind::ENUM:
            return "choice";
        case param_kind::TIME:
            return "time";
        case param_kind::FREQUENCY:
            return "frequency";
        case param_kind::SIZE:
            return "size";
        case param_kind::BANDWIDTH:
            return "bandwidth";
        case param_kind::COMPUTE:
            return "compute rate";
        case param_kind::REAL_LIST:
            return "list of numbers";
        case param_kind::NODE:
            return "YAML";
        case param_kind::ENERGY:
            return "per-event energy";
        case param_kind::ENERGY_PER_BIT:
            return "per-bit energy";
        case param_kind::ENERGY_PER_BIT_LENGTH:
            return "per-bit-per-mm energy";
        case param_kind::LENGTH:
            return "length";
        case param_kind::POWER:
            return "power";
        case param_kind::POWER_PER_BIT:
            return "per-bit power";
        case param_kind::POWER_PER_BIT_LENGTH:
            return "per-bit-per-mm power";
        case param_kind::GROUP:
            return "map";
        case param_kind::GROUP_LIST:
            return "list of maps";
    }
    return "?";
}

std::string param_decl::unit_text() const {
    switch (kind) {
        case param_kind::TIME:
            return "time (ps..s)";
        case param_kind::FREQUENCY:
            return "frequency (Hz..GHz)";
        case param_kind::SIZE:
            return "size (B, KB..GB, KiB..GiB)";
        case param_kind::BANDWIDTH:
            return "bandwidth (b/s, B/s)";
        case param_kind::COMPUTE:
            return "compute rate (FLOP/s)";
        case param_kind::ENERGY:
            return "energy (fJ, pJ, nJ)";
        case param_kind::ENERGY_PER_BIT:
            return "energy per bit (fJ/bit, pJ/bit)";
        case param_kind::ENERGY_PER_BIT_LENGTH:
            return "energy per bit and mm (pJ/bit/mm)";
        case param_kind::LENGTH:
            return "length (um, mm, cm)";
        case param_kind::POWER:
            return "power (uW, mW, W)";
        case param_kind::POWER_PER_BIT:
            return "power per bit (nW/bit, uW/bit, mW/bit)";
        case param_kind::POWER_PER_BIT_LENGTH:
            return "power per bit and mm (nW/bit/mm, uW/bit/mm)";
        case param_kind::GROUP:
            return "map of the keys below";
        case param_kind::GROUP_LIST:
            return "list of maps of the keys below";
        case param_kind::ENUM:
            return "one of " + join(current_choices(), "|");
        default:
            return param_kind_name(kind);
    }
}

namespace {

units::family family_of(param_kind k) {
    switch (k) {
        case param_kind::TIME:
            return units::family::TIME;
        case param_kind::FREQUENCY:
            return units::family::FREQUENCY;
        case param_kind::SIZE:
            return units::family::SIZE;
        case param_kind::BANDWIDTH:
            return units::family::BANDWIDTH;
        case param_kind::COMPUTE:
            return units::family::COMPUTE;
        case param_kind::ENERGY:
            return units::family::ENERGY;
        case param_kind::ENERGY_PER_BIT:
            return units::family::ENERGY_PER_BIT;
        case param_kind::ENERGY_PER_BIT_LENGTH:
            return units::family::ENERGY_PER_BIT_LENGTH;
        case param_kind::LENGTH:
            return units::family::LENGTH;
        case param_kind::POWER:
            return units::family::POWER;
        case param_kind::POWER_PER_BIT:
            return units::family::POWER_PER_BIT;
        case param_kind::POWER_PER_BIT_LENGTH:
            return units::family::POWER_PER_BIT_LENGTH;
        default:
            return units::family::NUMBER;
    }
}

}  // namespace

bool is_quantity(param_kind k) { return family_of(k) != units::family::NUMBER; }

namespace {

// What a value of D's kind looks like, for "expected ..." messages.  A bool or a choice is
// not a number, so a number's example would mislead.
std::string example_of(const param_decl& d) {
    if (d.kind == param_kind::BOOL) return "true or false";
    if (d.kind == param_kind::ENUM) return "one of " + join(d.current_choices(), ", ");
    return units::family_example(family_of(d.kind));
}

const std::string& need_scalar(const config_node& v, const param_decl& d, const std::string& key) {
    if (!v.is_scalar()) {
        throw input_error(v.loc(), key,
                          std::string("expected ") + param_kind_name(d.kind) + " (" +
                              example_of(d) + "), got " + v.kind_name());
    }
    return v.scalar();
}

void check_range(double x, const config_node& v, const param_decl& d, const std::string& key) {
    if ((d.min && x < *d.min) || (d.max && x > *d.max)) {
        throw input_error(v.loc(), key, "'" + v.scalar() + "' is out of range " + d.range_text);
    }
}

double parse_quantity(const config_node& v, const param_decl& d, const std::string& key) {
    const std::string& text = need_scalar(v, d, key);
    std::string why;
    auto q = units::parse(text, family_of(d.kind), why);
    if (!q) throw input_error(v.loc(), key, why);
    if (q->value < 0) throw input_error(v.loc(), key, "'" + text + "' must not be negative");
    check_range(q->value, v, d, key);
    return q->value;
}

}  // namespace

namespace param_parse {

bool to_bool(const config_node& v, const param_decl& d, const std::string& key) {
    const std::string& t = need_scalar(v, d, key);
    if (t == "true" || t == "yes" || t == "on") return true;
    if (t == "false" || t == "no" || t == "off") return false;
    throw input_error(v.loc(), key, "'" + t + "' is not a bool; expected true or false");
}

std::int64_t to_int(const config_node& v, const param_decl& d, const std::string& key) {
    const std::string& t = need_scalar(v, d, key);
    auto x = units::parse_number(t);
    if (!x || t.find('%') != std::string::npos) {
        throw input_error(v.loc(), key, "'" + t + "' is not an integer");
    }
    if (*x != std::floor(*x) || std::fabs(*x) > 9.0e18) {
        throw input_error(v.loc(), key, "'" + t + "' is not an integer");
    }
    check_range(*x, v, d, key);
    return static_cast<std::int64_t>(*x);
}

double to_real(const config_node& v, const param_decl& d, const std::string& key) {
    const std::string& t = need_scalar(v, d, key);
    std::string why;
    auto q = units::parse(t, units::family::NUMBER, why);
    if (!q) throw input_error(v.loc(), key, why);
    check_range(q->value, v, d, key);
    return q->value;
}

std::string to_string(const config_node& v, const param_decl& d, const std::string& key) {
    return need_scalar(v, d, key);
}

std::size_t to_choice(const config_node& v, const param_decl& d, const std::string& key) {
    const std::string& t = need_scalar(v, d, key);
    const std::vector<std::string> choices = d.current_choices();
    for (std::size_t i = 0; i < choices.size(); ++i) {
        if (choices[i] == t) return i;
    }
    throw input_error(
        v.loc(), key,
        "'" + t + "' is not one of " + join(choices, ", ") + did_you_mean(t, choices));
}

units::duration to_time(const config_node& v, const param_decl& d, const std::string& key) {
    double s = parse_quantity(v, d, key);
    double ps = s * 1e12;
    double rounded = std::round(ps);
    // Times are integer picoseconds; a value that is not is a typo, not something to round.
    if (std::fabs(ps - rounded) > 1e-6 * std::max(1.0, ps)) {
        throw input_error(v.loc(), key,
                          "'" + v.scalar() + "' is not a whole number of picoseconds");
    }
    if (rounded > 1.8e19) throw input_error(v.loc(), key, "'" + v.scalar() + "' is too long");
    return units::duration{static_cast<std::uint64_t>(rounded)};
}

units::frequency to_frequency(const config_node& v, const param_decl& d, const std::string& key) {
    return units::frequency{parse_quantity(v, d, key)};
}

units::data_size to_size(const config_node& v, const param_decl& d, const std::string& key) {
    double b = parse_quantity(v, d, key);
    if (b != std::floor(b)) {
        throw input_error(v.loc(), key, "'" + v.scalar() + "' is not a whole number of bytes");
    }
    if (b > 1.8e19) throw input_error(v.loc(), key, "'" + v.scalar() + "' is too large");
    return units::data_size{static_cast<std::uint64_t>(b)};
}

units::bandwidth to_bandwidth(const config_node& v, const param_decl& d, const std::string& key) {
    return units::bandwidth{parse_quantity(v, d, key)};
}

units::compute_rate to_compute(const config_node& v, const param_decl& d, const std::string& key) {
    return units::compute_rate{parse_quantity(v, d, key)};
}

std::vector<double> to_real_list(const config_node& v, const param_decl& d,
                                 const std::string& key) {
    if (!v.is_seq()) {
        throw input_error(v.loc(), key,
                          std::string("expected a list of numbers, got ") + v.kind_name());
    }
    std::vector<double> out;
    param_decl item = d;
    item.kind = param_kind::REAL;
    for (std::size_t i = 0; i < v.items().size(); ++i) {
        out.push_back(to_real(v.items()[i], item, key + "[" + std::to_string(i) + "]"));
    }
    return out;
}

double to_quantity(const config_node& v, const param_decl& d, const std::string& key) {
    return parse_quantity(v, d, key);
}

void check(const config_node& v, const param_decl& d, const std::string& key) {
    if (is_quantity(d.kind)) {
        to_quantity(v, d, key);
        return;
    }
    switch (d.kind) {
        case param_kind::BOOL:
            to_bool(v, d, key);
            return;
        case param_kind::INT:
            to_int(v, d, key);
            return;
        case param_kind::REAL:
            to_real(v, d, key);
            return;
        case param_kind::STRING:
            to_string(v, d, key);
            return;
        case param_kind::ENUM:
            to_choice(v, d, key);
            return;
        case param_kind::REAL_LIST:
            to_real_list(v, d, key);
            return;
        case param_kind::GROUP:
            group_values(v, d, key);
            return;
        case param_kind::NODE:
        case param_kind::GROUP_LIST:
        default:  // the quantities, checked above
            return;
    }
}

namespace {
// A group left out, written empty (`router:`) or given as an empty default has no entries.
bool empty_group(const config_node& v) {
    return v.is_nil() || (v.is_scalar() && v.scalar().empty());
}
}  // namespace

std::vector<const config_node*> group_values(const config_node& v, const param_decl& d,
                                             const std::string& key) {
    std::vector<const config_node*> out(d.fields.size(), nullptr);
    if (empty_group(v)) return out;
    if (!v.is_map()) {
        throw input_error(
            v.loc(), key,
            std::string("expected a map of ") + d.name + "'s keys, got " + v.kind_name());
    }
    std::vector<std::string> names;
    for (const auto& f : d.fields) names.push_back(f.name);
    for (const auto& e : v.entries()) {
        bool known = false;
        for (std::size_t i = 0; i < d.fields.size(); ++i) {
            if (d.fields[i].name == e.key) {
                out[i] = &e.value;
                known = true;
            }
        }
        if (!known) {
            throw input_error(e.key_loc, key + "." + e.key,
                              "unknown key of `" + d.name + "`" + did_you_mean(e.key, names) +
                                  "; its keys are " + join(names, ", "));
        }
    }
    return out;
}

const std::vector<config_node>& group_items(const config_node& v, const param_decl& d,
                                            const std::string& key) {
    static const std::vector<config_node> k_none;
    if (empty_group(v)) return k_none;
    if (!v.is_seq()) {
        throw input_error(
            v.loc(), key,
            std::string("expected a list of maps of ") + d.name + "'s keys, got " + v.kind_name());
    }
    return v.items();
}

double bound(const std::string& text, param_kind k) {
    std::string why;
    auto q = units::parse(text, family_of(k), why);
    if (!q) throw std::logic_error("bad declared bound '" + text + "': " + why);
    return q->value;
}

}  // namespace param_parse

void apply_group(void* obj, const config_node& v, const std::string& key, const param_decl& d) {
    const std::vector<const config_node*> values = param_parse::group_values(v, d, key);
    for (std::size_t i = 0; i < d.fields.size(); ++i) {
        const param_decl& f = d.fields[i];
        const std::string field_key = key + "." + f.name;
        if (values[i] != nullptr) {
            f.apply(obj, *values[i], field_key);
        } else if (f.required) {
            throw input_error(v.loc(), field_key, "missing required key (" + f.description + ")");
        } else {
            f.apply(obj, default_value(f), field_key);
        }
    }
}

param_builder& param_builder::range(const std::string& lo, const std::string& hi) {
    m_d.min = param_parse::bound(lo, m_d.kind);
    m_d.max = param_parse::bound(hi, m_d.kind);
    m_d.range_text = "[" + lo + ", " + hi + "]";
    return *this;
}

param_builder& param_builder::at_least(const std::string& lo) {
    m_d.min = param_parse::bound(lo, m_d.kind);
    m_d.range_text = ">= " + lo;
    return *this;
}

}  // namespace trainvp
