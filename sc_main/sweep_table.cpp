#include "sc_main/sweep_table.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kit/registry.h"

namespace trainvp {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string number(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", x);
    return buf;
}

// A failed point's stderr on one line, without the "trainvp: error: " prefix.
std::string error_text(const fs::path& file) {
    std::istringstream in(read_text(file));
    std::string line, out;
    while (std::getline(in, line)) {
        const std::string prefix = "trainvp: error: ";
        if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) {
            line.pop_back();
        }
        std::size_t b = 0;
        while (b < line.size() && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
        if (b == line.size()) continue;
        out += (out.empty() ? "" : "; ") + line.substr(b);
    }
    if (out.size() > 1000) out = out.substr(0, 997) + "...";
    return out;
}

struct row {
    std::string status, sim_time, error;
    std::map<std::string, std::vector<double>> headline;  // "type.stat" -> one per block
    std::map<std::string, double> breakdown;              // "iteration.stat" -> value
};

// A column's name with its unit, "host.cpu.completion_time.mean [ns]" (none for "1").
std::string with_unit(const std::string& name, const std::string& unit) {
    return unit.empty() || unit == "1" ? name : name + " [" + unit + "]";
}

}  // namespace

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

sweep_table::sweep_table(const sweep_plan& plan, const registry& reg) {
    std::vector<row> rows;
    std::vector<std::string> keys;            // headline columns, in order of first appearance
    std::vector<std::string> breakdown_keys;  // the iteration breakdown's, likewise
    std::map<std::string, std::string> unit;  // of each key
    for (const auto& p : plan.points()) {
        const fs::path dir = plan.point_dir(p);
        row r;
        const int code = read_exit_code(dir.string());
        nlohmann::ordered_json stats;
        bool have_stats = false;
        if (code == 0 || code == 1) {
            try {
                stats = nlohmann::ordered_json::parse(read_text(dir / "stats.json"));
                have_stats = true;
            } catch (const nlohmann::json::exception&) {
                have_stats = false;
            }
        }
        if (code < 0) {
            r.status = "missing";
            r.error = "no result (not run yet, or killed)";
        } else if (have_stats) {
            r.status = stats["run"].value("status", "?");
            r.sim_time = std::to_string(stats["run"].value("sim_time_ps", std::uint64_t{0}));
            for (const auto& [block, b] : stats["blocks"].items()) {
                if (b.value("type", "") == "breakdown") {
                    // The iteration breakdown (critical path): one value per stat.
                    for (const auto& [name, v] : b["stats"].items()) {
                        const std::string key = block + "." + name;
                        if (std::find(breakdown_keys.begin(), breakdown_keys.end(), key) ==
                            breakdown_keys.end()) {
                            breakdown_keys.push_back(key);
                        }
                        unit[key] = v.value("unit", "");
                        r.breakdown[key] = v["value"].get<double>();
                    }
                    continue;
                }
                const type_info* t = reg.find(b.value("type", ""));
                if (t == nullptr) continue;
                for (const auto& [name, v] : b["stats"].items()) {
                    const std::string base = name.substr(0, name.find('['));
                    auto d = std::find_if(t->stats.begin(), t->stats.end(),
                                          [&](const stat_decl& s) { return s.name == base; });
                    if (d == t->stats.end() || !d->headline) continue;
                    const std::string key = t->name + "." + base;
                    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
                        keys.push_back(key);
                    }
                    const auto& x = v.contains("mean") ? v["mean"] : v["value"];
                    r.headline[key].push_back(x.get<double>());
                    unit[key] = d->unit;
                }
            }
            if (code != 0) r.error = error_text(dir / sweep_plan::k_err_file);
        } else {
            r.status = code == 2 ? "bad_input" : "error";
            r.error = error_text(dir / sweep_plan::k_err_file);
            if (code > 2) {
                r.error =
                    "exit code " + std::to_string(code) + (r.error.empty() ? "" : ": " + r.error);
            }
        }
        if (r.status == "finished") {
            ++m_finished;
        } else if (r.status == "missing") {
            ++m_missing;
        } else {
            ++m_failed;
        }
        rows.push_back(std::move(r));
    }

    std::ostringstream os;
    os << "point";
    for (const auto& path : plan.paths()) os << "," << csv_field(path);
    os << ",status,sim_time_ps";
    for (const auto& k : breakdown_keys) os << "," << csv_field(with_unit(k, unit[k]));
    for (const auto& k : keys) {
        os << "," << csv_field(with_unit(k + ".mean", unit[k])) << ","
           << csv_field(with_unit(k + ".max", unit[k]));
    }
    os << ",error\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& p = plan.points()[i];
        const auto& r = rows[i];
        os << csv_field(p.name);
        for (const auto& v : p.values) os << "," << csv_field(v);
        os << "," << r.status << "," << r.sim_time;
        for (const auto& k : breakdown_keys) {
            auto it = r.breakdown.find(k);
            os << "," << (it == r.breakdown.end() ? std::string() : number(it->second));
        }
        for (const auto& k : keys) {
            auto it = r.headline.find(k);
            if (it == r.headline.end() || it->second.empty()) {
                os << ",,";
                continue;
            }
            double sum = 0, mx = it->second.front();
            for (double x : it->second) {
                sum += x;
                mx = std::max(mx, x);
            }
            os << "," << number(sum / double(it->second.size())) << "," << number(mx);
        }
        os << "," << csv_field(r.error) << "\n";
    }
    m_csv = os.str();
}

}  // namespace trainvp
