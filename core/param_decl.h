// A declared parameter: name, kind, unit family, default or required, range, description, and
// how to store a parsed value into the object that owns it (a member pointer, type-erased).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/config_node.h"
#include "core/units.h"

namespace trainvp {

enum class param_kind {
    BOOL,
    INT,
    REAL,
    STRING,
    ENUM,
    TIME,
    FREQUENCY,
    SIZE,
    BANDWIDTH,
    COMPUTE,
    REAL_LIST,
    // A YAML sub-tree (a map or a list) its owner reads itself, with its own messages: a
    // workload section's `gradient:` or `workers:` (workloads/drivers/).
    NODE,
    ENERGY,
    ENERGY_PER_BIT,
    ENERGY_PER_BIT_LENGTH,
    LENGTH,
    POWER,
    POWER_PER_BIT,
    POWER_PER_BIT_LENGTH,
    GROUP,      // a sub-map of declared params (`fields`), stored into a struct member
    GROUP_LIST  // a list of such sub-maps, stored into a std::vector of the struct
};

const char* param_kind_name(param_kind k);
// Whether a kind is a quantity with a unit family (TIME, SIZE, ..., POWER_PER_BIT_LENGTH).
bool is_quantity(param_kind k);

struct param_decl {
    std::string name;
    param_kind kind = param_kind::REAL;
    std::string description;
    std::string default_text;  // as a config would spell it; empty when required
    bool required = false;
    std::optional<double> min;  // in the family's base unit (s, Hz, B, B/s) or plain
    std::optional<double> max;
    std::string range_text;            // "[1, 1024]" as declared, for messages and docs
    std::vector<std::string> choices;  // ENUM only
    // ENUM whose spellings a registry extends after the declaration is built (plugins load
    // later): read when a value is parsed or described, instead of `choices`.
    std::function<std::vector<std::string>()> choices_from;
    std::vector<param_decl> fields;  // GROUP, GROUP_LIST: the keys of the sub-map
    // Parses `value` (whose full key is `key`) and stores it into `obj`.  Throws input_error.
    std::function<void(void* obj, const config_node& value, const std::string& key,
                       const param_decl& self)>
        assign;

    // Parses `value` and stores it into `obj`.
    void apply(void* obj, const config_node& value, const std::string& key) const {
        assign(obj, value, key, *this);
    }

    // The unit column of `describe`: "time", "bandwidth", "bytes", "one of drop|pause", ...
    std::string unit_text() const;
    // ENUM: the spellings it accepts now.
    std::vector<std::string> current_choices() const {
        return choices_from ? choices_from() : choices;
    }
};

// Parsing of one value for a declared kind, with range checks.  Exposed for tests and for
// the few places (simulation settings, workloads) that parse values outside an IP type.
namespace param_parse {
bool to_bool(const config_node& v, const param_decl& d, const std::string& key);
std::int64_t to_int(const config_node& v, const param_decl& d, const std::string& key);
double to_real(const config_node& v, const param_decl& d, const std::string& key);
std::string to_string(const config_node& v, const param_decl& d, const std::string& key);
std::size_t to_choice(const config_node& v, const param_decl& d, const std::string& key);
units::duration to_time(const config_node& v, const param_decl& d, const std::string& key);
units::frequency to_frequency(const config_node& v, const param_decl& d, const std::string& key);
units::data_size to_size(const config_node& v, const param_decl& d, const std::string& key);
units::bandwidth to_bandwidth(const config_node& v, const param_decl& d, const std::string& key);
units::compute_rate to_compute(const config_node& v, const param_decl& d, const std::string& key);
std::vector<double> to_real_list(const config_node& v, const param_decl& d, const std::string& key);
// A quantity of the declared kind's unit family, in its base unit (units::quantity).
double to_quantity(const config_node& v, const param_decl& d, const std::string& key);
// The entries of a GROUP's sub-map (nil or an empty default: none), each key checked against
// `d.fields` (an unknown key is an error naming it in full, with a did-you-mean).
std::vector<const config_node*> group_values(const config_node& v, const param_decl& d,
                                             const std::string& key);
// The maps of a GROUP_LIST (nil or an empty default: none).
const std::vector<config_node>& group_items(const config_node& v, const param_decl& d,
                                            const std::string& key);
// Parses a range bound given as text in the declaration (a programming error if invalid).
double bound(const std::string& text, param_kind k);
// Parses `v` as `d` would and drops the value: the same input_error `d.apply` would throw, with
// no object to store into (a sweep checks every point's values before it runs any).  A GROUP
// checks its keys, not their values; NODE and GROUP_LIST are read by their owners.
void check(const config_node& v, const param_decl& d, const std::string& key);
}  // namespace param_parse

// Fluent builder returned by param declarations: `.range("1", "64")`, `.required()`.
class param_builder {
public:
    explicit param_builder(param_decl& d) : m_d(d) {}
    param_builder& range(const std::string& lo, const std::string& hi);
    param_builder& at_least(const std::string& lo);

private:
    param_decl& m_d;
};

// Stores the sub-map `v` of a GROUP (or one item of a GROUP_LIST) into `obj`: each field its
// value or its default; unknown keys and missing required ones are input_errors.
void apply_group(void* obj, const config_node& v, const std::string& key, const param_decl& d);

namespace detail {

template <typename M>
struct kind_of;
template <>
struct kind_of<bool> {
    static constexpr param_kind value = param_kind::BOOL;
};
template <>
struct kind_of<std::int64_t> {
    static constexpr param_kind value = param_kind::INT;
};
template <>
struct kind_of<std::uint64_t> {
    static constexpr param_kind value = param_kind::INT;
};
template <>
struct kind_of<int> {
    static constexpr param_kind value = param_kind::INT;
};
template <>
struct kind_of<unsigned> {
    static constexpr param_kind value = param_kind::INT;
};
template <>
struct kind_of<double> {
    static constexpr param_kind value = param_kind::REAL;
};
template <>
struct kind_of<std::string> {
    static constexpr param_kind value = param_kind::STRING;
};
template <>
struct kind_of<units::duration> {
    static constexpr param_kind value = param_kind::TIME;
};
template <>
struct kind_of<units::frequency> {
    static constexpr param_kind value = param_kind::FREQUENCY;
};
template <>
struct kind_of<units::data_size> {
    static constexpr param_kind value = param_kind::SIZE;
};
template <>
struct kind_of<units::bandwidth> {
    static constexpr param_kind value = param_kind::BANDWIDTH;
};
template <>
struct kind_of<units::compute_rate> {
    static constexpr param_kind value = param_kind::COMPUTE;
};
template <>
struct kind_of<std::vector<double>> {
    static constexpr param_kind value = param_kind::REAL_LIST;
};
template <>
struct kind_of<config_node> {
    static constexpr param_kind value = param_kind::NODE;
};

template <>
struct kind_of<units::energy> {
    static constexpr param_kind value = param_kind::ENERGY;
};
template <>
struct kind_of<units::energy_per_bit> {
    static constexpr param_kind value = param_kind::ENERGY_PER_BIT;
};
template <>
struct kind_of<units::energy_per_bit_length> {
    static constexpr param_kind value = param_kind::ENERGY_PER_BIT_LENGTH;
};
template <>
struct kind_of<units::length> {
    static constexpr param_kind value = param_kind::LENGTH;
};
template <>
struct kind_of<units::power> {
    static constexpr param_kind value = param_kind::POWER;
};
template <>
struct kind_of<units::power_per_bit> {
    static constexpr param_kind value = param_kind::POWER_PER_BIT;
};
template <>
struct kind_of<units::power_per_bit_length> {
    static constexpr param_kind value = param_kind::POWER_PER_BIT_LENGTH;
};

template <typename M>
M parse_as(const config_node& v, const param_decl& d, const std::string& key) {
    using namespace param_parse;
    if constexpr (std::is_same_v<M, bool>) {
        return to_bool(v, d, key);
    } else if constexpr (std::is_integral_v<M>) {
        std::int64_t x = to_int(v, d, key);
        if (std::is_unsigned_v<M> && x < 0) {
            throw input_error(v.loc(), key, "must not be negative");
        }
        return static_cast<M>(x);
    } else if constexpr (std::is_same_v<M, double>) {
        return to_real(v, d, key);
    } else if constexpr (std::is_same_v<M, std::string>) {
        return to_string(v, d, key);
    } else if constexpr (std::is_same_v<M, units::duration>) {
        return to_time(v, d, key);
    } else if constexpr (std::is_same_v<M, units::frequency>) {
        return to_frequency(v, d, key);
    } else if constexpr (std::is_same_v<M, units::data_size>) {
        return to_size(v, d, key);
    } else if constexpr (std::is_same_v<M, units::bandwidth>) {
        return to_bandwidth(v, d, key);
    } else if constexpr (std::is_same_v<M, units::compute_rate>) {
        return to_compute(v, d, key);
    } else if constexpr (std::is_same_v<M, config_node>) {
        (void)d;
        (void)key;
        return v;
    } else if constexpr (std::is_same_v<M, units::energy> ||
                         std::is_same_v<M, units::energy_per_bit> ||
                         std::is_same_v<M, units::energy_per_bit_length> ||
                         std::is_same_v<M, units::length> || std::is_same_v<M, units::power> ||
                         std::is_same_v<M, units::power_per_bit> ||
                         std::is_same_v<M, units::power_per_bit_length>) {
        return M{to_quantity(v, d, key)};
    } else {
        return to_real_list(v, d, key);
    }
}

}  // namespace detail

// Declares params of objects of type T (an IP module or a settings struct).
template <typename T>
class param_list {
public:
    // A param with a default, spelt as in a config ("10Gb/s").
    // Member pointers of a base class of T are accepted, so a derived block can declare the
    // params it inherits.
    template <typename M, typename C>
    param_builder param(const std::string& name, M C::*member, const std::string& default_text,
                        const std::string& description) {
        param_decl& d = add<M>(name, static_cast<M T::*>(member), description);
        d.default_text = default_text;
        return param_builder(d);
    }

    // A param the config must give.
    template <typename M, typename C>
    param_builder required(const std::string& name, M C::*member, const std::string& description) {
        param_decl& d = add<M>(name, static_cast<M T::*>(member), description);
        d.required = true;
        return param_builder(d);
    }

    // An enum param: `choices` maps config spellings to values.
    template <typename E, typename C>
    param_builder choice(const std::string& name, E C::*base_member,
                         std::vector<std::pair<std::string, E>> choices,
                         const std::string& default_text, const std::string& description) {
        E T::*member = static_cast<E T::*>(base_member);
        param_decl d;
        d.name = name;
        d.kind = param_kind::ENUM;
        d.description = description;
        d.default_text = default_text;
        for (const auto& c : choices) d.choices.push_back(c.first);
        d.assign = [member, choices](void* obj, const config_node& v, const std::string& key,
                                     const param_decl& self) {
            static_cast<T*>(obj)->*member = choices[param_parse::to_choice(v, self, key)].second;
        };
        m_params.push_back(std::move(d));
        return param_builder(m_params.back());
    }

    // A string param that is one of the names `names()` gives when a value is parsed or
    // described (a registry's, e.g. collectives, which plugins extend after this declaration
    // is built).  Errors and docs read as an enum's.
    template <typename C>
    param_builder choice_of(const std::string& name, std::string C::*base_member,
                            std::function<std::vector<std::string>()> names,
                            const std::string& default_text, const std::string& description) {
        std::string T::*member = static_cast<std::string T::*>(base_member);
        param_decl d;
        d.name = name;
        d.kind = param_kind::ENUM;
        d.description = description;
        d.default_text = default_text;
        d.choices_from = std::move(names);
        d.assign = [member](void* obj, const config_node& v, const std::string& key,
                            const param_decl& self) {
            param_decl now = self;
            now.choices = self.current_choices();
            now.choices_from = nullptr;
            static_cast<T*>(obj)->*member = now.choices[param_parse::to_choice(v, now, key)];
        };
        m_params.push_back(std::move(d));
        return param_builder(m_params.back());
    }

    // A sub-map of params (`router: {vcs: 4, vc_buffers: 32}`) stored into a struct member S;
    // `declare_fields(param_list<S>&)` declares its keys like a type's params (S::declare).
    // Absent, every key takes its default.  Its keys are documented as `name.key`.
    template <typename S, typename C, typename F>
    param_builder group(const std::string& name, S C::*base_member, const std::string& description,
                        F declare_fields) {
        S T::*member = static_cast<S T::*>(base_member);
        param_list<S> fields;
        declare_fields(fields);
        param_decl d;
        d.name = name;
        d.kind = param_kind::GROUP;
        d.description = description;
        d.fields = fields.params();
        d.assign = [member](void* obj, const config_node& v, const std::string& key,
                            const param_decl& self) {
            apply_group(&(static_cast<T*>(obj)->*member), v, key, self);
        };
        m_params.push_back(std::move(d));
        return param_builder(m_params.back());
    }

    // A list of such sub-maps (`segments: [{dim: x, ...}, ...]`) stored into a std::vector<S>.
    template <typename S, typename C, typename F>
    param_builder group_list(const std::string& name, std::vector<S> C::*base_member,
                             const std::string& description, F declare_fields) {
        std::vector<S> T::*member = static_cast<std::vector<S> T::*>(base_member);
        param_list<S> fields;
        declare_fields(fields);
        param_decl d;
        d.name = name;
        d.kind = param_kind::GROUP_LIST;
        d.description = description;
        d.fields = fields.params();
        d.assign = [member](void* obj, const config_node& v, const std::string& key,
                            const param_decl& self) {
            std::vector<S>& out = static_cast<T*>(obj)->*member;
            out.clear();
            const auto& items = param_parse::group_items(v, self, key);
            for (std::size_t i = 0; i < items.size(); ++i) {
                out.emplace_back();
                apply_group(&out.back(), items[i], key + "[" + std::to_string(i) + "]", self);
            }
        };
        m_params.push_back(std::move(d));
        return param_builder(m_params.back());
    }

    const std::vector<param_decl>& params() const { return m_params; }
    std::vector<param_decl>& params() { return m_params; }

private:
    template <typename M>
    param_decl& add(const std::string& name, M T::*member, const std::string& description) {
        param_decl d;
        d.name = name;
        d.kind = detail::kind_of<M>::value;
        d.description = description;
        d.assign = [member](void* obj, const config_node& v, const std::string& key,
                            const param_decl& self) {
            static_cast<T*>(obj)->*member = detail::parse_as<M>(v, self, key);
        };
        m_params.push_back(std::move(d));
        return m_params.back();
    }

    std::vector<param_decl> m_params;
};

}  // namespace trainvp
