#include "sc_main/sweep_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/config_node.h"
#include "core/did_you_mean.h"
#include "core/input_file.h"
#include "core/param_decl.h"
#include "kit/registry.h"
#include "platform/platform_loader.h"

namespace trainvp {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> k_keys{"description", "base", "set", "grid"};

// One axis of the grid: one path, or several zipped paths of equal length.
struct axis {
    std::vector<std::string> paths;
    std::vector<std::vector<std::string>> values;  // [path][i]
    std::size_t size() const { return values.front().size(); }
};

// The text --set takes for a value: a scalar as written, a list or map in YAML flow style.
std::string set_text(const config_node& v) {
    if (v.is_scalar()) return v.scalar();
    YAML::Emitter out;
    out << YAML::Flow << v.to_yaml();
    return out.c_str();
}

// A folder-name-safe rendering of a value: letters, digits, '.', '-' kept, others become '-'.
std::string name_part(const std::string& v) {
    std::string out;
    for (char c : v) {
        const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
        out += keep ? c : '-';
    }
    return out.empty() ? "-" : out;
}

// `distinct`: a plain axis's values (zipped lists may repeat a value: the point is the tuple).
std::vector<std::string> value_list(const config_node& v, const std::string& key, bool distinct) {
    if (!v.is_seq()) {
        throw input_error(v.loc(), key,
                          std::string("expected a list of values, got ") + v.kind_name());
    }
    if (v.items().empty()) throw input_error(v.loc(), key, "the list of values is empty");
    std::vector<std::string> out;
    std::vector<source_loc> at;
    for (const auto& item : v.items()) {
        if (item.is_nil()) throw input_error(item.loc(), key, "empty value in the list");
        out.push_back(set_text(item));
        // The same value twice would run the same point twice under two names.
        const auto same = std::find(out.begin(), out.end() - 1, out.back());
        if (distinct && same != out.end() - 1) {
            throw input_error(item.loc(), key,
                              "value '" + out.back() + "' is listed twice (first at " +
                                  at[static_cast<std::size_t>(same - out.begin())].str() + ")");
        }
        at.push_back(item.loc());
    }
    return out;
}

}  // namespace

const std::vector<std::string>& sweep_spec::keys() { return k_keys; }

sweep_spec sweep_spec::load(const std::string& path, const registry& reg) {
    const config_node doc = config_node::load_file(path);
    sweep_spec s;
    s.m_file = path;
    for (const auto& e : doc.entries()) {
        if (std::find(k_keys.begin(), k_keys.end(), e.key) == k_keys.end()) {
            throw input_error(e.key_loc, e.key,
                              "unknown sweep key" + did_you_mean(e.key, k_keys) +
                                  "; expected one of " + join(k_keys, ", "));
        }
    }
    if (const config_node* d = doc.find("description")) {
        if (!d->is_scalar()) throw input_error(d->loc(), "description", "expected text");
        s.m_description = d->scalar();
    }
    const config_node* base = doc.find("base");
    if (base == nullptr) {
        throw input_error(doc.loc(), "base", "missing: the config the sweep varies (base: FILE)");
    }
    if (!base->is_scalar() || base->scalar().empty()) {
        throw input_error(base->loc(), "base", "expected a config file name");
    }
    fs::path bp(base->scalar());
    if (bp.is_relative()) bp = fs::path(path).parent_path() / bp;
    s.m_base = bp.lexically_normal().string();
    const std::string kind = input_file::not_regular(s.m_base);
    if (!kind.empty() && kind != "a directory") {
        throw input_error(
            base->loc(), "base",
            "cannot open config file '" + s.m_base + "': it is " + kind + ", not a regular file");
    }
    // The non-throwing overload: a name the system refuses (longer than NAME_MAX: fuzz_sweep
    // found it an internal error) is a bad input like a missing file.
    std::error_code ec;
    if (!fs::is_regular_file(s.m_base, ec)) {
        throw input_error(base->loc(), "base",
                          "cannot open config file '" + s.m_base + "'" +
                              (ec && ec != std::errc::no_such_file_or_directory
                                   ? ": " + ec.message()
                                   : std::string(" (a relative name is relative to the sweep "
                                                 "file)")));
    }

    // Where each path was written, to point errors from loading the base config at the sweep
    // file.
    std::map<std::string, source_loc> where;
    std::vector<std::string> fixed;
    if (const config_node* set = doc.find("set")) {
        if (!set->is_map()) {
            throw input_error(
                set->loc(), "set",
                std::string("expected a map of PATH: VALUE, got ") + set->kind_name());
        }
        for (const auto& e : set->entries()) {
            if (e.value.is_nil()) throw input_error(e.key_loc, "set." + e.key, "missing value");
            fixed.push_back(e.key + "=" + set_text(e.value));
            where[e.key] = e.key_loc;
        }
    }

    const config_node* grid = doc.find("grid");
    if (grid == nullptr) {
        throw input_error(doc.loc(), "grid", "missing: a list of axes (- PATH: [values])");
    }
    if (!grid->is_seq() || grid->items().empty()) {
        throw input_error(grid->loc(), "grid",
                          "expected a list of axes, each '- PATH: [values]' or '- zip: {PATH: "
                          "[values], ...}'");
    }
    std::vector<axis> axes;
    auto add_path = [&](const std::string& p, const source_loc& loc, const std::string& key) {
        if (where.count(p)) {
            throw input_error(loc, key, "'" + p + "' is already set or swept at " + where[p].str());
        }
        where[p] = loc;
        s.m_paths.push_back(p);
    };
    for (std::size_t i = 0; i < grid->items().size(); ++i) {
        const config_node& item = grid->items()[i];
        const std::string key = "grid[" + std::to_string(i) + "]";
        if (!item.is_map() || item.entries().size() != 1) {
            throw input_error(item.loc(), key,
                              "an axis is a map with one key: '- PATH: [values]' or '- zip: "
                              "{PATH: [values], ...}'");
        }
        const auto& e = item.entries().front();
        axis a;
        if (e.key == "zip") {
            if (!e.value.is_map() || e.value.entries().size() < 2) {
                throw input_error(e.value.loc(), key + ".zip",
                                  "expected a map of two or more PATH: [values] that advance "
                                  "together");
            }
            for (const auto& z : e.value.entries()) {
                const std::string zkey = key + ".zip." + z.key;
                add_path(z.key, z.key_loc, zkey);
                a.paths.push_back(z.key);
                a.values.push_back(value_list(z.value, zkey, false));
                if (a.values.back().size() != a.values.front().size()) {
                    throw input_error(z.value.loc(), zkey,
                                      "has " + std::to_string(a.values.back().size()) +
                                          " values but '" + a.paths.front() + "' has " +
                                          std::to_string(a.values.front().size()) +
                                          "; zipped lists advance together and need equal "
                                          "lengths");
                }
            }
        } else {
            add_path(e.key, e.key_loc, key + "." + e.key);
            a.paths.push_back(e.key);
            a.values.push_back(value_list(e.value, key + "." + e.key, true));
        }
        axes.push_back(std::move(a));
    }

    // Cartesian product; the first axis varies slowest.
    std::size_t total = 1;
    for (const auto& a : axes) {
        total *= a.size();
        if (total > 1000000) {
            throw input_error(grid->loc(), "grid", "more than 1000000 points");
        }
    }
    std::size_t width = 3;
    for (std::size_t n = total - 1; n >= 1000; n /= 10) ++width;
    std::vector<std::size_t> at(axes.size(), 0);
    for (std::size_t p = 0; p < total; ++p) {
        sweep_point pt;
        pt.index = p;
        pt.sets = fixed;
        std::string idx = std::to_string(p);
        pt.name = "p" + std::string(width - std::min(width, idx.size()), '0') + idx;
        for (std::size_t k = 0; k < axes.size(); ++k) {
            for (std::size_t j = 0; j < axes[k].paths.size(); ++j) {
                const std::string& v = axes[k].values[j][at[k]];
                pt.values.push_back(v);
                pt.sets.push_back(axes[k].paths[j] + "=" + v);
                pt.name += "_" + name_part(v);
            }
        }
        if (pt.name.size() > 80) pt.name.resize(80);
        s.m_points.push_back(std::move(pt));
        for (std::size_t k = axes.size(); k-- > 0;) {
            if (++at[k] < axes[k].size()) break;
            at[k] = 0;
        }
    }

    // Every point must load: unknown paths, blocks and settings are reported here, at the
    // line of the sweep file that names them.
    platform_loader loader(reg);
    for (auto& pt : s.m_points) {
        try {
            const platform_desc desc = loader.load(s.m_base, pt.sets);
            // The values the sweep gives are parsed here as their blocks would parse them
            // (a time where a bandwidth belongs, a range): an error before any point runs.
            for (const auto& inst : desc.instances) {
                for (const auto& p : inst.params) {
                    if (p.value.loc().file.rfind("--set", 0) != 0) continue;
                    const type_info* t = reg.find(inst.type);
                    if (t == nullptr) continue;
                    for (const auto& d : t->params) {
                        if (d.name == p.name)
                            param_parse::check(p.value, d, inst.path + "." + p.name);
                    }
                }
            }
            const std::string resolved = resolved_yaml(desc, reg);
            std::uint64_t h = 1469598103934665603ull;
            for (unsigned char c : resolved) {
                h ^= c;
                h *= 1099511628211ull;
            }
            char hex[17];
            std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
            pt.fingerprint = hex;
        } catch (const input_error& e) {
            std::string lhs;
            const std::string& f = e.where().file;
            if (f.rfind("--set ", 0) == 0) {
                lhs = f.substr(6);
            } else if (f == "--set") {
                lhs = e.key().substr(0, e.key().find('='));
            }
            auto it = where.find(lhs);
            if (it == where.end()) throw;  // an error in the base config itself
            std::string what = e.reason();
            const bool swept =
                std::find(s.m_paths.begin(), s.m_paths.end(), lhs) != s.m_paths.end();
            if (swept) what += " (point " + pt.name + ")";
            throw input_error(it->second, e.key(), what);
        }
    }
    return s;
}

}  // namespace trainvp
