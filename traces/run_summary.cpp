#include "traces/run_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

namespace trainvp {

namespace {

// 4 significant digits of v in the largest unit it reaches (names and scales largest first).
std::string scaled(double v, const std::vector<std::pair<const char*, double>>& units) {
    std::size_t pick = units.size() - 1;
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (std::fabs(v) >= units[i].second) {
            pick = i;
            break;
        }
    }
    if (v == 0.0) {
        // Zero in the unit a person expects to see it in (0 s, 0 B), not the smallest.
        for (std::size_t i = 0; i < units.size(); ++i) {
            if (units[i].second == 1.0) pick = i;
        }
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g %s", v / units[pick].second, units[pick].first);
    return buf;
}

// s in a column of w characters and the space after it.
std::string pad(const std::string& s, std::size_t w) {
    return (s.size() >= w ? s : s + std::string(w - s.size(), ' ')) + " ";
}

// "node[12].nic" -> prefix "node[", index 12, suffix "].nic"; false without a "[digits]".
bool split_index(const std::string& path, std::string& prefix, long& index, std::string& suffix) {
    const std::size_t open = path.find('[');
    if (open == std::string::npos) return false;
    const std::size_t close = path.find(']', open);
    if (close == std::string::npos || close == open + 1) return false;
    for (std::size_t i = open + 1; i < close; ++i) {
        if (path[i] < '0' || path[i] > '9') return false;
    }
    prefix = path.substr(0, open + 1);
    index = std::stol(path.substr(open + 1, close - open - 1));
    suffix = path.substr(close);
    return true;
}

std::string range_label(const std::string& prefix, long first, long last,
                        const std::string& suffix) {
    return prefix + std::to_string(first) + (last > first ? ".." + std::to_string(last) : "") +
           suffix;
}

// More distinct lines than this for one stat become one mean/min/max line.
constexpr std::size_t k_max_lines_per_stat = 6;

}  // namespace

std::string run_summary::format_value(double x, const std::string& unit, const std::string& stat) {
    static const std::vector<std::pair<const char*, double>> k_time = {
        {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}};
    if (unit == "ns") return scaled(x * 1e-9, k_time);
    if (unit == "ps") return scaled(x * 1e-12, k_time);
    if (unit == "s") return scaled(x, k_time);
    if (unit == "B") return scaled(x, {{"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}, {"B", 1.0}});
    if (unit == "B/s") {
        return scaled(x, {{"GB/s", 1e9}, {"MB/s", 1e6}, {"kB/s", 1e3}, {"B/s", 1.0}});
    }
    if (unit == "pJ") {
        return scaled(x * 1e-12,
                      {{"J", 1.0}, {"mJ", 1e-3}, {"uJ", 1e-6}, {"nJ", 1e-9}, {"pJ", 1e-12}});
    }
    char buf[64];
    if (unit == "1" && stat.find("utilisation") != std::string::npos) {
        std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * x);
        return buf;
    }
    std::snprintf(buf, sizeof buf, "%.4g", x);
    return unit == "1" || unit.empty() ? std::string(buf) : std::string(buf) + " " + unit;
}

std::vector<run_summary::group> run_summary::groups() const {
    // type -> stat -> the blocks' values, each in first-appearance order.
    std::vector<
        std::pair<std::string, std::vector<std::pair<std::string, std::vector<const stat_value*>>>>>
        by_type;
    for (const auto& s : stats) {
        auto t = std::find_if(by_type.begin(), by_type.end(),
                              [&](const auto& p) { return p.first == s.type; });
        if (t == by_type.end()) {
            by_type.push_back({s.type, {}});
            t = by_type.end() - 1;
        }
        auto st = std::find_if(t->second.begin(), t->second.end(),
                               [&](const auto& p) { return p.first == s.stat; });
        if (st == t->second.end()) {
            t->second.push_back({s.stat, {}});
            st = t->second.end() - 1;
        }
        st->second.push_back(&s);
    }
    std::vector<group> out;
    for (const auto& [type, stat_list] : by_type) {
        group g{type, {}};
        for (const auto& [stat, values] : stat_list) {
            // Blocks named alike (node[i].pcie, node[i].gpu_pcie) are folded among themselves:
            // runs of consecutive indices with the same printed value.
            struct run {
                std::string prefix, suffix, text;
                long first = 0, last = 0;
                bool indexed = false;
                std::vector<double> xs;
                std::string block;
            };
            std::vector<std::vector<run>> patterns;
            for (const stat_value* v : values) {
                run r;
                r.text = format_value(v->value, v->unit, stat);
                r.block = v->block;
                r.indexed = split_index(v->block, r.prefix, r.first, r.suffix);
                r.last = r.first;
                r.xs.push_back(v->value);
                auto same = std::find_if(patterns.begin(), patterns.end(), [&](const auto& p) {
                    return r.indexed && p.front().indexed && p.front().prefix == r.prefix &&
                           p.front().suffix == r.suffix;
                });
                if (same == patterns.end()) {
                    patterns.push_back({std::move(r)});
                    continue;
                }
                run& b = same->back();
                if (r.text == b.text && r.first == b.last + 1) {
                    b.last = r.first;
                    b.xs.push_back(v->value);
                } else {
                    same->push_back(std::move(r));
                }
            }
            const std::string& unit = values.front()->unit;
            auto stats_of = [](line& l, const std::vector<double>& xs) {
                l.blocks = xs.size();
                l.min = *std::min_element(xs.begin(), xs.end());
                l.max = *std::max_element(xs.begin(), xs.end());
                double sum = 0.0;
                for (double x : xs) sum += x;
                l.mean = sum / static_cast<double>(xs.size());
            };
            for (const auto& runs : patterns) {
                if (runs.size() > k_max_lines_per_stat) {
                    std::vector<double> xs;
                    long lo = runs.front().first, hi = runs.front().last;
                    for (const auto& r : runs) {
                        xs.insert(xs.end(), r.xs.begin(), r.xs.end());
                        lo = std::min(lo, r.first);
                        hi = std::max(hi, r.last);
                    }
                    line l;
                    l.label =
                        range_label(runs.front().prefix, lo, hi, runs.front().suffix) + "." + stat;
                    l.stat = stat;
                    l.unit = unit;
                    stats_of(l, xs);
                    l.text = "mean " + format_value(l.mean, unit, stat) + ", min " +
                             format_value(l.min, unit, stat) + ", max " +
                             format_value(l.max, unit, stat);
                    g.lines.push_back(std::move(l));
                    continue;
                }
                for (const auto& r : runs) {
                    line l;
                    l.label =
                        (r.indexed ? range_label(r.prefix, r.first, r.last, r.suffix) : r.block) +
                        "." + stat;
                    l.stat = stat;
                    l.unit = unit;
                    l.text = r.text;
                    stats_of(l, r.xs);
                    g.lines.push_back(std::move(l));
                }
            }
        }
        out.push_back(std::move(g));
    }
    return out;
}

std::string run_summary::headline() const {
    std::string s = status + ": ";
    if (has_iteration) {
        s += "iteration time " + format_value(iteration_s, "s", "");
        if (iterations > 1) s += " (mean of " + std::to_string(iterations) + ")";
    } else {
        s += "simulated time " + format_value(simulated_s, "s", "");
    }
    return s + "\n";
}

std::string run_summary::text() const {
    std::ostringstream os;
    char buf[128];
    os << pad("status", 22) << status << "\n";
    os << pad("simulated time", 22) << format_value(simulated_s, "s", "") << "\n";
    std::snprintf(buf, sizeof buf, "%.3f s (%.3g simulated s per wall s)", wall_s,
                  wall_s > 0 ? simulated_s / wall_s : 0.0);
    os << pad("wall time", 22) << buf << "\n";
    if (has_iteration) {
        os << pad("iteration time", 22) << format_value(iteration_s, "s", "")
           << (iterations > 1 ? " (mean of " + std::to_string(iterations) + ")" : "") << "\n";
        for (const auto& p : breakdown) {
            std::snprintf(buf, sizeof buf, "%5.1f %%",
                          iteration_s > 0 ? 100.0 * p.seconds / iteration_s : 0.0);
            os << pad("  " + p.name, 22) << pad(format_value(p.seconds, "s", ""), 12) << buf
               << "\n";
        }
    }
    for (const auto& b : bottlenecks) os << "bottleneck: " << b << "\n";
    for (const auto& w : warnings) os << "warning: " << w << "\n";
    for (const auto& g : groups()) {
        std::size_t width = 20;
        for (const auto& l : g.lines) width = std::max(width, l.label.size());
        os << g.type << "\n";
        for (const auto& l : g.lines) os << "  " << pad(l.label, width) << " " << l.text << "\n";
    }
    if (audited) {
        os << pad("audit", 22) << audit_checks << " checks, " << audit_broken << " broken\n";
    }
    for (const auto& n : notes) os << "note: " << n << "\n";
    return os.str();
}

std::string run_summary::json() const {
    nlohmann::ordered_json j;
    j["status"] = status;
    j["simulated_time_s"] = simulated_s;
    j["wall_time_s"] = wall_s;
    if (has_iteration) {
        nlohmann::ordered_json it;
        it["time_s"] = iteration_s;
        it["iterations"] = iterations;
        nlohmann::ordered_json parts = nlohmann::ordered_json::array();
        for (const auto& p : breakdown) {
            parts.push_back({{"part", p.name},
                             {"time_s", p.seconds},
                             {"fraction", iteration_s > 0 ? p.seconds / iteration_s : 0.0}});
        }
        it["breakdown"] = parts;
        j["iteration"] = it;
    }
    j["bottlenecks"] = bottlenecks;
    j["warnings"] = warnings;
    nlohmann::ordered_json gs = nlohmann::ordered_json::array();
    for (const auto& g : groups()) {
        nlohmann::ordered_json lines = nlohmann::ordered_json::array();
        for (const auto& l : g.lines) {
            lines.push_back({{"label", l.label},
                             {"stat", l.stat},
                             {"unit", l.unit},
                             {"text", l.text},
                             {"blocks", l.blocks},
                             {"mean", l.mean},
                             {"min", l.min},
                             {"max", l.max}});
        }
        gs.push_back({{"type", g.type}, {"stats", lines}});
    }
    j["groups"] = gs;
    if (audited) j["audit"] = {{"checks", audit_checks}, {"broken", audit_broken}};
    j["notes"] = notes;
    return j.dump(2) + "\n";
}

}  // namespace trainvp
