#include "sc_main/run_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "kit/registry.h"
#include "traces/run_summary.h"

namespace trainvp {

namespace {

nlohmann::ordered_json load_stats(const std::string& dir, const std::string& which) {
    const source_loc cmdline{"command line", 0, 0};
    const std::filesystem::path file = std::filesystem::path(dir) / "stats.json";
    std::ifstream in(file);
    if (!in) {
        throw input_error(cmdline, which,
                          "'" + dir + "' holds no stats.json (give the output folder of a run)");
    }
    try {
        return nlohmann::ordered_json::parse(in);
    } catch (const nlohmann::ordered_json::exception& e) {
        throw input_error(cmdline, which,
                          "'" + file.string() + "' is not a stats file: " + e.what());
    }
}

// A statistic's one number: a counter's or scalar's value, a distribution's mean.
double number_of(const nlohmann::ordered_json& s) {
    if (s.contains("value")) return s["value"].get<double>();
    if (s.contains("mean")) return s["mean"].get<double>();
    return 0.0;
}

std::string value_text(const run_diff::row& r, bool a) {
    if (!(a ? r.in_a : r.in_b)) return "-";
    return run_summary::format_value(a ? r.a : r.b, r.unit, r.name);
}

std::string ratio_text(const run_diff::row& r) {
    if (!r.in_a || !r.in_b) return r.in_a ? "only in A" : "only in B";
    if (r.a == 0.0) return r.b == 0.0 ? "1" : "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", r.b / r.a);
    return buf;
}

std::string pad(const std::string& s, std::size_t w) {
    return (s.size() >= w ? s : s + std::string(w - s.size(), ' ')) + " ";
}

}  // namespace

double run_diff::row::difference() const {
    if (!in_a || !in_b) return 1.0;
    const double m = std::max(std::fabs(a), std::fabs(b));
    return m == 0.0 ? 0.0 : std::fabs(b - a) / m;
}

run_diff::run_diff(const std::string& dir_a, const std::string& dir_b, const registry& reg)
    : m_dir_a(dir_a),
      m_dir_b(dir_b),
      m_a(load_stats(dir_a, "OUT_A")),
      m_b(load_stats(dir_b, "OUT_B")) {
    auto sim_time = [](const nlohmann::ordered_json& j) {
        return j["run"].value("sim_time_ps", 0.0) * 1e-12;
    };
    m_headline.push_back({"simulated time", "s", sim_time(m_a), sim_time(m_b)});
    // The iteration and its breakdown (block "iteration"), parts non-zero in either run.
    const nlohmann::ordered_json empty = nlohmann::ordered_json::object();
    const auto& ia =
        m_a["blocks"].contains("iteration") ? m_a["blocks"]["iteration"]["stats"] : empty;
    const auto& ib =
        m_b["blocks"].contains("iteration") ? m_b["blocks"]["iteration"]["stats"] : empty;
    if (!ia.empty() || !ib.empty()) {
        const auto& names = ia.empty() ? ib : ia;
        for (auto it = names.begin(); it != names.end(); ++it) {
            if (it.key() == "iterations") continue;
            row r{it.key() == "time" ? "iteration time" : "  " + it.key(), "ns"};
            r.in_a = ia.contains(it.key());
            r.in_b = ib.contains(it.key());
            if (r.in_a) r.a = number_of(ia[it.key()]);
            if (r.in_b) r.b = number_of(ib[it.key()]);
            if (it.key() != "time" && r.a == 0.0 && r.b == 0.0) continue;
            m_headline.push_back(r);
        }
    }
    // Each block type's headline stats (the registry's declarations), as a mean over its blocks.
    struct sum {
        double a = 0.0, b = 0.0;
        std::size_t na = 0, nb = 0;
        std::string unit;
    };
    std::vector<std::pair<std::string, sum>> by_type;
    auto add = [&](const nlohmann::ordered_json& j, bool is_a) {
        for (auto it = j["blocks"].begin(); it != j["blocks"].end(); ++it) {
            const std::string type = it.value().value("type", "");
            const type_info* t = reg.find(type);
            if (t == nullptr) continue;
            for (const auto& d : t->stats) {
                if (!d.headline || !it.value()["stats"].contains(d.name)) continue;
                const std::string key = type + "." + d.name;
                auto s = std::find_if(by_type.begin(), by_type.end(),
                                      [&](const auto& p) { return p.first == key; });
                if (s == by_type.end()) {
                    by_type.push_back({key, sum{0, 0, 0, 0, d.unit}});
                    s = by_type.end() - 1;
                }
                const double x = number_of(it.value()["stats"][d.name]);
                (is_a ? s->second.a : s->second.b) += x;
                ++(is_a ? s->second.na : s->second.nb);
            }
        }
    };
    add(m_a, true);
    add(m_b, false);
    for (const auto& [key, s] : by_type) {
        row r{key + " (mean)", s.unit};
        r.in_a = s.na > 0;
        r.in_b = s.nb > 0;
        r.a = s.na ? s.a / static_cast<double>(s.na) : 0.0;
        r.b = s.nb ? s.b / static_cast<double>(s.nb) : 0.0;
        m_headline.push_back(r);
    }
    // Every statistic of either run, A's order first.
    std::map<std::string, std::size_t> index;
    auto collect = [&](const nlohmann::ordered_json& j, bool is_a) {
        for (auto blk = j["blocks"].begin(); blk != j["blocks"].end(); ++blk) {
            for (auto st = blk.value()["stats"].begin(); st != blk.value()["stats"].end(); ++st) {
                const std::string name = blk.key() + "." + st.key();
                auto [pos, fresh] = index.emplace(name, m_stats.size());
                if (fresh) {
                    row r{name, st.value().value("unit", "")};
                    r.in_a = false;
                    r.in_b = false;
                    m_stats.push_back(r);
                }
                row& r = m_stats[pos->second];
                (is_a ? r.in_a : r.in_b) = true;
                (is_a ? r.a : r.b) = number_of(st.value());
            }
        }
    };
    collect(m_a, true);
    collect(m_b, false);
}

std::string run_diff::text(double threshold, std::size_t limit) const {
    std::ostringstream os;
    auto origin = [](const nlohmann::ordered_json& j) {
        return j["run"].value("config", std::string("?")) + ", " +
               j["run"].value("status", std::string("?"));
    };
    os << "A: " << m_dir_a << " (" << origin(m_a) << ")\n"
       << "B: " << m_dir_b << " (" << origin(m_b) << ")\n\n";
    std::vector<const row*> differing;
    for (const auto& r : m_stats) {
        if (r.difference() > threshold) differing.push_back(&r);
    }
    std::stable_sort(differing.begin(), differing.end(),
                     [](const row* x, const row* y) { return x->difference() > y->difference(); });
    std::size_t width = 32;
    for (const auto& r : m_headline) width = std::max(width, r.name.size());
    const std::size_t shown = limit == 0 ? differing.size() : std::min(limit, differing.size());
    for (std::size_t i = 0; i < shown; ++i) width = std::max(width, differing[i]->name.size());
    auto line = [&](const row& r) {
        os << "  " << pad(r.name, width) << pad(value_text(r, true), 12)
           << pad(value_text(r, false), 12) << ratio_text(r) << "\n";
    };
    os << pad("headline", width + 2) << pad("A", 12) << pad("B", 12) << "B/A\n";
    for (const auto& r : m_headline) line(r);
    char pct[32];
    std::snprintf(pct, sizeof pct, "%g %%", threshold * 100.0);
    os << "\nstatistics differing by more than " << pct << ": " << differing.size() << " of "
       << m_stats.size() << (differing.empty() ? "\n" : ", largest difference first\n");
    for (std::size_t i = 0; i < shown; ++i) line(*differing[i]);
    if (shown < differing.size()) {
        os << "  ... " << differing.size() - shown << " more (--all lists them)\n";
    }
    return os.str();
}

}  // namespace trainvp
