#include "sc_main/run_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "sc_main/report_html.h"
#include "traces/run_summary.h"

namespace trainvp {

namespace {

using json = nlohmann::ordered_json;

std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return {};
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string esc(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string num(double x, const char* fmt = "%.1f") {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, x);
    return buf;
}

double number_of(const json& s) {
    if (s.contains("value")) return s["value"].get<double>();
    if (s.contains("mean")) return s["mean"].get<double>();
    return 0.0;
}

// A fixed palette (colour-blind friendly, Okabe-Ito), by index.
const char* colour(std::size_t i) {
    static const char* k[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
                              "#D55E00", "#F0E442", "#000000", "#999999", "#882255"};
    return k[i % (sizeof k / sizeof k[0])];
}

// Utilisation 0..1 as a colour: light grey (idle), blue (half), red (saturated).
std::string heat(double v) {
    v = std::min(1.0, std::max(0.0, v));
    double r, g, b;
    if (v < 0.5) {
        const double t = v / 0.5;
        r = 220 + (0 - 220) * t;
        g = 220 + (114 - 220) * t;
        b = 220 + (178 - 220) * t;
    } else {
        const double t = (v - 0.5) / 0.5;
        r = 0 + 204 * t;
        g = 114 - 114 * t;
        b = 178 - 178 * t;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", static_cast<int>(r + 0.5),
                  static_cast<int>(g + 0.5), static_cast<int>(b + 0.5));
    return buf;
}

// The colour scale's legend: a gradient bar from 0 to 100 %.
std::string heat_legend(const std::string& id) {
    std::ostringstream os;
    os << "<svg class=\"legend-bar\" width=\"320\" height=\"34\" role=\"img\"><defs>"
       << "<linearGradient id=\"" << id << "\">";
    for (int i = 0; i <= 10; ++i) {
        os << "<stop offset=\"" << i * 10 << "%\" stop-color=\"" << heat(i / 10.0) << "\"/>";
    }
    os << "</linearGradient></defs><rect x=\"10\" y=\"2\" width=\"300\" height=\"12\" fill=\"url(#"
       << id << ")\"/><text x=\"10\" y=\"28\" font-size=\"10\">0 %</text><text x=\"145\" y=\"28\" "
       << "font-size=\"10\">50 %</text><text x=\"285\" y=\"28\" font-size=\"10\">100 "
          "%</text></svg>";
    return os.str();
}

const char* k_link_kind[] = {"mesh", "wrap", "express", "bypass-x", "bypass-y"};

// The NoC of one noc.interposer block: its k x k routers and every channel (link_from[i] ->
// link_to[i]) coloured by link_utilisation[i]; mesh links as straight arrows between
// neighbours (one per direction, side by side), wrap, express and ARIES bypass links as
// dashed arcs over the routers they pass.
std::string noc_heatmap(const std::string& block, const json& st, std::size_t index) {
    std::vector<double> util, from, to, kind;
    for (std::size_t i = 0;; ++i) {
        const std::string n = "[" + std::to_string(i) + "]";
        if (!st.contains("link_utilisation" + n) || !st.contains("link_from" + n)) break;
        util.push_back(number_of(st["link_utilisation" + n]));
        from.push_back(number_of(st["link_from" + n]));
        to.push_back(number_of(st["link_to" + n]));
        kind.push_back(number_of(st["link_kind" + n]));
    }
    int routers = 0;
    for (std::size_t i = 0; i < util.size(); ++i) {
        routers = std::max(routers, static_cast<int>(std::max(from[i], to[i])) + 1);
    }
    int k = 1;
    while (k * k < routers) ++k;
    if (util.empty() || k * k != routers) return {};
    const double cell = std::max(36.0, std::min(90.0, 640.0 / k)), left = 30.0, top = 30.0;
    const double box = cell * 0.34;
    auto cx = [&](int r) { return left + cell * (r % k) + cell / 2; };
    auto cy = [&](int r) { return top + cell * (r / k) + cell / 2; };
    std::ostringstream os;
    double busiest = 0.0;
    std::size_t busiest_at = 0;
    for (std::size_t i = 0; i < util.size(); ++i) {
        if (util[i] > busiest) {
            busiest = util[i];
            busiest_at = i;
        }
    }
    os << "<h3>" << esc(block) << ": " << k << " x " << k << " routers, " << util.size()
       << " channels";
    if (busiest > 0) {
        os << "; busiest r" << static_cast<int>(from[busiest_at]) << " -> r"
           << static_cast<int>(to[busiest_at]) << " ("
           << k_link_kind[std::min<std::size_t>(4, static_cast<std::size_t>(kind[busiest_at]))]
           << ") " << num(100.0 * busiest) << " %";
    }
    os << "</h3>\n<svg class=\"chart noc-heatmap\" id=\"noc-heatmap"
       << (index ? "-" + std::to_string(index) : "") << "\" width=\""
       << num(2 * left + cell * k, "%.0f") << "\" height=\"" << num(2 * top + cell * k, "%.0f")
       << "\" role=\"img\">\n";
    // Routers first, the links over them.
    for (int r = 0; r < routers; ++r) {
        os << "<rect x=\"" << num(cx(r) - box / 2, "%.1f") << "\" y=\""
           << num(cy(r) - box / 2, "%.1f") << "\" width=\"" << num(box, "%.1f") << "\" height=\""
           << num(box, "%.1f") << "\" fill=\"#f4f4f4\" stroke=\"#888\"><title>router " << r
           << " (x " << r % k << ", y " << r / k << ")</title></rect>";
        if (cell >= 50) {
            os << "<text x=\"" << num(cx(r), "%.1f") << "\" y=\"" << num(cy(r) + 3.5, "%.1f")
               << "\" font-size=\"9\" text-anchor=\"middle\" fill=\"#666\">" << r << "</text>";
        }
    }
    os << "\n";
    const double width = std::max(2.0, cell * 0.07);
    for (std::size_t i = 0; i < util.size(); ++i) {
        const int a = static_cast<int>(from[i]), b = static_cast<int>(to[i]);
        const double x0 = cx(a), y0 = cy(a), x1 = cx(b), y1 = cy(b);
        const double dx = x1 - x0, dy = y1 - y0, len = std::sqrt(dx * dx + dy * dy);
        if (len <= 0) continue;
        const double ux = dx / len, uy = dy / len;
        const double px = -uy, py = ux;  // to the right of the direction of travel (y down)
        const auto kd = static_cast<std::size_t>(std::min(4.0, std::max(0.0, kind[i])));
        std::ostringstream title;
        title << "r" << a << " (" << a % k << "," << a / k << ") -> r" << b << " (" << b % k << ","
              << b / k << ") " << k_link_kind[kd] << ": " << num(100.0 * util[i]) << " %";
        if (kd == 0) {
            const double off = cell * 0.09, gap = box / 2 + 2;
            os << "<line x1=\"" << num(x0 + ux * gap + px * off, "%.1f") << "\" y1=\""
               << num(y0 + uy * gap + py * off, "%.1f") << "\" x2=\""
               << num(x1 - ux * gap + px * off, "%.1f") << "\" y2=\""
               << num(y1 - uy * gap + py * off, "%.1f") << "\" stroke=\"" << heat(util[i])
               << "\" stroke-width=\"" << num(width, "%.1f") << "\" class=\"link\"><title>"
               << title.str() << "</title></line>";
        } else {
            // An arc whose height grows with the span, on the right of its direction, so that
            // the two directions of a segment sit on either side of the row or column.
            const double bend = cell * 0.28 + len * 0.12;
            const double mx = (x0 + x1) / 2 + px * bend, my = (y0 + y1) / 2 + py * bend;
            os << "<path d=\"M" << num(x0, "%.1f") << " " << num(y0, "%.1f") << " Q"
               << num(mx, "%.1f") << " " << num(my, "%.1f") << " " << num(x1, "%.1f") << " "
               << num(y1, "%.1f") << "\" fill=\"none\" stroke=\"" << heat(util[i])
               << "\" stroke-width=\"" << num(width, "%.1f")
               << "\" stroke-dasharray=\"6 3\" class=\"link bypass\"><title>" << title.str()
               << "</title></path>";
        }
    }
    os << "</svg>\n";
    return os.str();
}

// Beyond the reports' base style: utilisation bars, the resolved config, the audit's marks.
const char* k_style = R"(
.bar{display:inline-block;height:.8em;background:#0072B2;vertical-align:middle}
pre{background:#f6f6f6;padding:.8em;overflow:auto;max-height:30em;font-size:.8em}
.ok{color:#009E73}.bad{color:#D55E00}
)";

}  // namespace

run_report::run_report(const std::string& dir) : m_dir(dir) {
    const std::filesystem::path d(dir);
    m_stats = read_text(d / "stats.json");
    if (m_stats.empty()) {
        throw input_error(
            source_loc{"command line", 0, 0}, "OUT_DIR",
            "'" + dir +
                "' holds no stats.json nor sweep.csv (give the output folder of a run or a sweep)");
    }
    m_timeline = read_text(d / "timeline.json");
    m_config = read_text(d / "config.resolved.yaml");
}

std::string run_report::html() const {
    const json stats = json::parse(m_stats);
    const json& run = stats["run"];
    const json& blocks = stats["blocks"];
    std::ostringstream os;
    const std::string config = run.value("config", std::string("?"));
    os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>trainvp: "
       << esc(config) << "</title><style>" << k_report_base_style << k_style
       << "</style></head><body>\n";
    const double sim_s = run.value("sim_time_ps", 0.0) * 1e-12;
    const std::string status = run.value("status", std::string("?"));
    os << "<h1>trainvp run: " << esc(config) << "</h1>\n<p>status <b>" << esc(status)
       << "</b>, simulated time " << esc(run_summary::format_value(sim_s, "s", "")) << ", seed "
       << run.value("seed", 0) << "; outputs in <code>" << esc(m_dir) << "</code></p>\n";

    // The iteration breakdown as one stacked bar.
    os << "<h2 id=\"breakdown\">Iteration breakdown</h2>\n";
    if (blocks.contains("iteration")) {
        const json& it = blocks["iteration"]["stats"];
        const double total = number_of(it["time"]);
        os << "<p>iteration time " << esc(run_summary::format_value(total, "ns", ""))
           << " (the critical path's parts)</p>\n";
        os << "<svg class=\"chart\" id=\"breakdown-bar\" width=\"900\" height=\"50\" "
              "role=\"img\">\n";
        double x = 0.0;
        std::size_t i = 0;
        std::ostringstream legend;
        for (auto p = it.begin(); p != it.end(); ++p) {
            if (p.key() == "time" || p.key() == "iterations") continue;
            const double v = number_of(p.value());
            if (v <= 0.0 || total <= 0.0) continue;
            const double w = 900.0 * v / total;
            os << "<rect x=\"" << num(x, "%.2f") << "\" y=\"5\" width=\"" << num(w, "%.2f")
               << "\" height=\"40\" fill=\"" << colour(i) << "\"><title>" << esc(p.key()) << " "
               << esc(run_summary::format_value(v, "ns", "")) << " (" << num(100.0 * v / total)
               << " %)</title></rect>\n";
            legend << "<span><i class=\"sw\" style=\"background:" << colour(i) << "\"></i>"
                   << esc(p.key()) << " " << esc(run_summary::format_value(v, "ns", "")) << " ("
                   << num(100.0 * v / total) << " %)</span>";
            x += w;
            ++i;
        }
        os << "</svg>\n<div class=\"legend\">" << legend.str() << "</div>\n";
    } else {
        os << "<p>No iteration breakdown (the run has no hosts running ops).</p>\n";
    }

    // The NoC's routers and links, one picture per noc.interposer block.
    std::ostringstream noc;
    std::size_t nocs = 0;
    for (auto b = blocks.begin(); b != blocks.end(); ++b) {
        const std::string picture = noc_heatmap(b.key(), b.value()["stats"], nocs);
        if (picture.empty()) continue;
        noc << picture;
        ++nocs;
    }
    if (nocs > 0) {
        os << "<h2 id=\"noc\">NoC link utilisation (routers and links; dashed arcs: bypass, wrap "
              "or express links)</h2>\n"
           << noc.str() << heat_legend("noc-scale") << "\n";
    }

    // Utilisations: a sortable table with bars, and the node x statistic heatmap.
    struct util {
        std::string block, type, stat;
        double v;
    };
    std::vector<util> utils;
    for (auto b = blocks.begin(); b != blocks.end(); ++b) {
        for (auto s = b.value()["stats"].begin(); s != b.value()["stats"].end(); ++s) {
            if (s.key().find("utilisation") == std::string::npos) continue;
            if (s.value().value("unit", "") != "1") continue;
            utils.push_back({b.key(), b.value().value("type", ""), s.key(), number_of(s.value())});
        }
    }
    // Heatmaps: rows node[i], columns "block.stat" under the node; first the links (blocks of
    // a *.link type: Ethernet and PCIe), then every per-node utilisation.
    auto heatmap = [&](const std::string& id, bool links_only) {
        std::vector<std::string> nodes, cols;
        std::map<std::pair<std::string, std::string>, double> cell;
        for (const auto& u : utils) {
            if (u.block.rfind("node[", 0) != 0) continue;
            const std::size_t close = u.block.find(']');
            if (close == std::string::npos || close + 2 > u.block.size()) continue;
            const bool link =
                u.type.size() > 5 && u.type.compare(u.type.size() - 5, 5, ".link") == 0;
            if (links_only && !link) continue;
            const std::string node = u.block.substr(0, close + 1);
            const std::string col = u.block.substr(close + 2) + "." + u.stat;
            if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(node);
            if (std::find(cols.begin(), cols.end(), col) == cols.end()) cols.push_back(col);
            cell[{node, col}] = u.v;
        }
        if (nodes.empty()) return false;
        const double cw = 70.0, ch = 18.0, left = 80.0, top = 110.0;
        const std::size_t shown_nodes = std::min<std::size_t>(nodes.size(), 256);
        os << "<svg class=\"chart\" id=\"" << id << "\" width=\""
           << num(left + cw * static_cast<double>(cols.size()) + 10, "%.0f") << "\" height=\""
           << num(top + ch * static_cast<double>(shown_nodes) + 10, "%.0f") << "\" role=\"img\">\n";
        for (std::size_t c = 0; c < cols.size(); ++c) {
            os << "<text font-size=\"10\" transform=\"translate("
               << num(left + cw * static_cast<double>(c) + 10, "%.1f") << "," << top - 4
               << ") rotate(-40)\">" << esc(cols[c]) << "</text>";
        }
        for (std::size_t n = 0; n < shown_nodes; ++n) {
            const double y = top + ch * static_cast<double>(n);
            os << "<text x=\"0\" y=\"" << num(y + 13, "%.1f") << "\" font-size=\"11\">"
               << esc(nodes[n]) << "</text>";
            for (std::size_t c = 0; c < cols.size(); ++c) {
                auto it = cell.find({nodes[n], cols[c]});
                if (it == cell.end()) continue;
                const double v = std::min(1.0, std::max(0.0, it->second));
                os << "<rect x=\"" << num(left + cw * static_cast<double>(c), "%.1f") << "\" y=\""
                   << num(y, "%.1f") << "\" width=\"" << cw - 2 << "\" height=\"" << ch - 2
                   << "\" fill=\"" << heat(v) << "\"><title>" << esc(nodes[n] + "." + cols[c])
                   << " " << num(100.0 * it->second) << " %</title></rect><text x=\""
                   << num(left + cw * static_cast<double>(c) + 4, "%.1f") << "\" y=\""
                   << num(y + 12, "%.1f") << "\" font-size=\"10\" fill=\""
                   << (v > 0.3 ? "#fff" : "#222") << "\">" << num(100.0 * it->second) << "</text>";
            }
        }
        if (nodes.size() > shown_nodes) {
            os << "<text x=\"0\" y=\""
               << num(top + ch * static_cast<double>(shown_nodes) + 8, "%.0f")
               << "\" font-size=\"10\">(the first 256 of " << nodes.size() << " nodes)</text>";
        }
        os << "</svg>\n";
        return true;
    };
    os << "<h2 id=\"link-heatmap\">Cluster links (node x link utilisation, over the run)</h2>\n";
    if (heatmap("link-heatmap-chart", true)) {
        os << heat_legend("link-scale") << "\n";
    } else {
        os << "<p>No per-node links.</p>\n";
    }
    // Gantt chart of the hosts' ops from timeline.json.
    os << "<h2 id=\"gantt\">Ops per host (timeline.json)</h2>\n";
    if (!m_timeline.empty()) {
        const json tl = json::parse(m_timeline);
        std::map<std::pair<int, int>, std::string> track_name;
        for (const auto& e : tl["traceEvents"]) {
            if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name") {
                track_name[{e["pid"].get<int>(), e["tid"].get<int>()}] =
                    e["args"]["name"].get<std::string>();
            }
        }
        std::vector<std::string> rows;
        std::map<std::string, std::size_t> row_of;
        for (const auto& [k, name] : track_name) {
            (void)k;
            if (name.find(".host") == std::string::npos) continue;
            row_of.emplace(name, 0);
        }
        for (auto& [name, idx] : row_of) {
            idx = rows.size();
            rows.push_back(name);
        }
        double end_us = 0.0;
        for (const auto& e : tl["traceEvents"]) {
            if (e.value("ph", "") != "X") continue;
            end_us = std::max(end_us, e["ts"].get<double>() + e["dur"].get<double>());
        }
        const double left = 170.0, width = 720.0, row_h = 16.0;
        std::map<std::string, std::size_t> cat_colour;
        std::ostringstream rects;
        std::size_t drawn = 0;
        for (const auto& e : tl["traceEvents"]) {
            if (e.value("ph", "") != "X" || end_us <= 0.0) continue;
            const auto t = track_name.find({e["pid"].get<int>(), e["tid"].get<int>()});
            if (t == track_name.end()) continue;
            const auto r = row_of.find(t->second);
            if (r == row_of.end()) continue;
            if (++drawn > 20000) break;  // a long run: the first 20000 ops
            const std::string cat = e.value("cat", "");
            const std::size_t c = cat_colour.emplace(cat, cat_colour.size()).first->second;
            const double x = left + width * e["ts"].get<double>() / end_us;
            const double w = std::max(0.5, width * e["dur"].get<double>() / end_us);
            rects << "<rect x=\"" << num(x, "%.2f") << "\" y=\""
                  << num(4 + row_h * static_cast<double>(r->second), "%.1f") << "\" width=\""
                  << num(w, "%.2f") << "\" height=\"" << row_h - 3 << "\" fill=\"" << colour(c)
                  << "\"><title>" << esc(e.value("name", "")) << " (" << esc(cat)
                  << ")</title></rect>";
        }
        os << "<svg class=\"chart\" id=\"gantt-chart\" width=\"900\" height=\""
           << num(8 + row_h * static_cast<double>(rows.size()) + 16, "%.0f")
           << "\" role=\"img\">\n";
        for (std::size_t i = 0; i < rows.size(); ++i) {
            os << "<text x=\"0\" y=\"" << num(15 + row_h * static_cast<double>(i), "%.1f")
               << "\" font-size=\"11\">" << esc(rows[i]) << "</text>";
        }
        os << rects.str();
        os << "<text x=\"" << left << "\" y=\""
           << num(4 + row_h * static_cast<double>(rows.size()) + 12, "%.0f")
           << "\" font-size=\"11\">0</text><text x=\"" << left + width - 60 << "\" y=\""
           << num(4 + row_h * static_cast<double>(rows.size()) + 12, "%.0f")
           << "\" font-size=\"11\">" << esc(run_summary::format_value(end_us * 1e-6, "s", ""))
           << "</text></svg>\n<div class=\"legend\">";
        for (const auto& [cat, c] : cat_colour) {
            os << "<span><i class=\"sw\" style=\"background:" << colour(c) << "\"></i>"
               << esc(cat.empty() ? "(none)" : cat) << "</span>";
        }
        os << "</div>\n";
    } else {
        os << "<p>No timeline.json.</p>\n";
    }

    os << "<h2 id=\"utilisation\">Utilisation per block (over the run; click a header to "
          "sort)</h2>\n<table class=\"sortable\" id=\"util-table\"><thead><tr><th>block</th>"
          "<th>type</th><th>statistic</th><th>utilisation</th></tr></thead><tbody>\n";
    for (const auto& u : utils) {
        os << "<tr><td>" << esc(u.block) << "</td><td>" << esc(u.type) << "</td><td>" << esc(u.stat)
           << "</td><td data-v=\"" << num(u.v, "%.6f") << "\"><span class=\"bar\" "
           << "style=\"width:" << num(150.0 * std::min(1.0, std::max(0.0, u.v)), "%.1f")
           << "px\"></span> " << num(100.0 * u.v) << " %</td></tr>\n";
    }
    os << "</tbody></table>\n";

    os << "<h2 id=\"heatmap\">Cluster heatmap (node x every utilisation)</h2>\n";
    if (!heatmap("heatmap-chart", false)) os << "<p>No per-node utilisations.</p>\n";

    // The audit and every statistic.
    os << "<h2 id=\"audit\">Audit</h2>\n";
    if (run.contains("audit_checks")) {
        const auto broken = run.value("audit_violations", 0);
        os << "<p class=\"" << (broken == 0 ? "ok" : "bad") << "\">" << run.value("audit_checks", 0)
           << " checks, " << broken << " broken</p>\n";
    } else {
        os << "<p>Not audited (the run did not finish).</p>\n";
    }
    os << "<h2 id=\"stats\">Every statistic</h2>\n<details><summary>stats.json as a table"
          "</summary><table class=\"sortable\" id=\"stats-table\"><thead><tr><th>block</th>"
          "<th>statistic</th><th>value</th><th>unit</th></tr></thead><tbody>\n";
    for (auto b = blocks.begin(); b != blocks.end(); ++b) {
        for (auto s = b.value()["stats"].begin(); s != b.value()["stats"].end(); ++s) {
            const double v = number_of(s.value());
            const std::string unit = s.value().value("unit", "");
            os << "<tr><td>" << esc(b.key()) << "</td><td>" << esc(s.key()) << "</td><td data-v=\""
               << num(v, "%.9g") << "\">" << esc(run_summary::format_value(v, unit, s.key()))
               << "</td><td>" << esc(unit) << "</td></tr>\n";
        }
    }
    os << "</tbody></table></details>\n";
    os << "<h2 id=\"config\">Config (config.resolved.yaml)</h2>\n<details><summary>the fully "
          "expanded platform</summary><pre>"
       << esc(m_config.empty() ? "(no config.resolved.yaml)" : m_config) << "</pre></details>\n";
    os << "<script>" << k_sortable_tables_script << "</script>\n</body></html>\n";
    return os.str();
}

}  // namespace trainvp
