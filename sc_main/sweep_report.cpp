#include "sc_main/sweep_report.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "sc_main/report_html.h"
#include "sc_main/sweep_plan.h"

namespace trainvp {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return {};
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string esc(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&') {
            out += "&amp;";
        } else if (c == '<') {
            out += "&lt;";
        } else if (c == '>') {
            out += "&gt;";
        } else if (c == '"') {
            out += "&quot;";
        } else {
            out += c;
        }
    }
    return out;
}

// Beyond the reports' base style: the plot's selectors.
const char* k_style = R"(
label{margin-right:1.5em}select{max-width:28em}
)";

// Reads the data block, fills the selectors, draws the plot (and redraws on a change); the
// table sorts by k_sortable_tables_script.
const char* k_script = R"(
(function() {
  var data = JSON.parse(document.getElementById('sweep-data').textContent);
  var head = data.columns, rows = data.rows, swept = data.swept;
  var NS = document.getElementById('sweep-plot').namespaceURI;  // the SVG namespace
  var colours = ['#0072B2','#E69F00','#009E73','#CC79A7','#56B4E9','#D55E00','#F0E442','#000000','#999999','#882255'];
  function num(s) { var v = parseFloat(s); return isFinite(v) ? v : NaN; }
  function numericColumn(c) {
    var any = false;
    for (var i = 0; i < rows.length; ++i) {
      if (rows[i][c] === '') continue;
      if (isNaN(num(rows[i][c]))) return false;
      any = true;
    }
    return any;
  }
  var ysel = document.getElementById('sweep-y'), xsel = document.getElementById('sweep-x');
  var firstStat = -1;
  head.forEach(function(h, c) {
    if (swept.indexOf(h) >= 0) {
      var o = document.createElement('option'); o.value = c; o.textContent = h; xsel.appendChild(o);
    } else if (h !== 'point' && h !== 'status' && h !== 'error' && numericColumn(c)) {
      var o2 = document.createElement('option'); o2.value = c; o2.textContent = h; ysel.appendChild(o2);
      if (firstStat < 0 && h !== 'sim_time_ps') firstStat = c;
    }
  });
  if (firstStat >= 0) ysel.value = firstStat;
  function el(name, attrs, text) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function draw() {
    var svg = document.getElementById('sweep-plot');
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var legend = document.getElementById('sweep-legend');
    legend.textContent = '';
    var yc = parseInt(ysel.value, 10), xc = parseInt(xsel.value, 10);
    if (isNaN(yc) || isNaN(xc)) { svg.appendChild(el('text', {x: 20, y: 30}, 'nothing to plot')); return; }
    var xnumeric = numericColumn(xc);
    var xcats = [];
    rows.forEach(function(r) { if (xcats.indexOf(r[xc]) < 0) xcats.push(r[xc]); });
    function xv(r) { return xnumeric ? num(r[xc]) : xcats.indexOf(r[xc]); }
    // One series per combination of the other swept columns, leaving out those that move with
    // x (zipped with it: one value per x value and one x value per value).
    function tied(c) {
      var fwd = {}, back = {};
      for (var i = 0; i < rows.length; ++i) {
        var x = rows[i][xc], v = rows[i][c];
        if ((x in fwd && fwd[x] !== v) || (v in back && back[v] !== x)) return false;
        fwd[x] = v; back[v] = x;
      }
      return true;
    }
    var others = [];
    head.forEach(function(h, c) { if (swept.indexOf(h) >= 0 && c !== xc && !tied(c)) others.push(c); });
    var series = {}, order = [];
    rows.forEach(function(r) {
      var y = num(r[yc]);
      if (isNaN(y)) return;
      var key = others.map(function(c) { return head[c] + '=' + r[c]; }).join(', ') || head[yc];
      if (!(key in series)) { series[key] = []; order.push(key); }
      series[key].push([xv(r), y, r[xc]]);
    });
    var xs = [], ymax = 0;
    order.forEach(function(k) { series[k].forEach(function(p) { xs.push(p[0]); ymax = Math.max(ymax, p[1]); }); });
    // Readable units: a column "name [ns]" (or "sim_time_ps") in ms when its values are
    // millions of ns, bytes in MB, ...
    var unit = '', m = /\[([^\]]+)\]$/.exec(head[yc]);
    if (m) unit = m[1]; else if (/_ps$/.test(head[yc])) unit = 'ps';
    var scales = {ps: [[1e12, 's'], [1e9, 'ms'], [1e6, 'us'], [1e3, 'ns']],
                  ns: [[1e9, 's'], [1e6, 'ms'], [1e3, 'us']], s: [[1e-3, 'ms']],
                  B: [[1e9, 'GB'], [1e6, 'MB'], [1e3, 'kB']], 'B/s': [[1e9, 'GB/s'], [1e6, 'MB/s']]};
    var div = 1, shown = unit;
    (scales[unit] || []).some(function(sc) {
      if (unit === 's' ? ymax < 1 : ymax >= sc[0]) { div = unit === 's' ? 1e-3 : sc[0]; shown = sc[1]; return true; }
      return false;
    });
    ymax /= div;
    order.forEach(function(k) { series[k].forEach(function(p) { p[1] /= div; }); });
    if (!xs.length) { svg.appendChild(el('text', {x: 20, y: 30}, 'no values')); return; }
    var xmin = Math.min.apply(null, xs), xmax = Math.max.apply(null, xs);
    if (xmax === xmin) { xmax = xmin + 1; }
    if (ymax <= 0) ymax = 1;
    var L = 90, T = 20, W = 760, H = 340;
    function px(x) { return L + W * (x - xmin) / (xmax - xmin); }
    function py(y) { return T + H - H * y / ymax; }  // from zero
    svg.appendChild(el('line', {x1: L, y1: T + H, x2: L + W, y2: T + H, stroke: '#444'}));
    svg.appendChild(el('line', {x1: L, y1: T, x2: L, y2: T + H, stroke: '#444'}));
    for (var i = 0; i <= 4; ++i) {
      var yv = ymax * i / 4;
      svg.appendChild(el('text', {x: L - 6, y: py(yv) + 4, 'text-anchor': 'end', 'font-size': 11}, String(+yv.toPrecision(3))));
      svg.appendChild(el('line', {x1: L, y1: py(yv), x2: L + W, y2: py(yv), stroke: '#eee'}));
    }
    var ticks = {};
    rows.forEach(function(r) { ticks[xv(r)] = r[xc]; });
    Object.keys(ticks).forEach(function(t) {
      svg.appendChild(el('text', {x: px(parseFloat(t)), y: T + H + 16, 'text-anchor': 'middle', 'font-size': 11}, ticks[t]));
    });
    svg.appendChild(el('text', {x: L + W / 2, y: T + H + 34, 'text-anchor': 'middle', 'font-size': 12}, head[xc]));
    var ylabel = head[yc].replace(/ \[[^\]]+\]$/, '') + (shown ? ' [' + shown + ']' : '');
    svg.appendChild(el('text', {x: 14, y: T + H / 2, 'font-size': 12, transform: 'rotate(-90 14 ' + (T + H / 2) + ')', 'text-anchor': 'middle', id: 'sweep-ylabel'}, ylabel));
    order.forEach(function(k, s) {
      var pts = series[k].slice().sort(function(a, b) { return a[0] - b[0]; });
      var c = colours[s % colours.length];
      svg.appendChild(el('polyline', {points: pts.map(function(p) { return px(p[0]) + ',' + py(p[1]); }).join(' '),
                                      fill: 'none', stroke: c, 'stroke-width': 2, 'class': 'series'}));
      pts.forEach(function(p) {
        var dot = el('circle', {cx: px(p[0]), cy: py(p[1]), r: 3.5, fill: c});
        dot.appendChild(el('title', {}, k + ', ' + head[xc] + '=' + p[2] + ': ' + (+p[1].toPrecision(4)) + ' ' + shown));
        svg.appendChild(dot);
      });
      var item = document.createElement('span');
      var sw = document.createElement('i'); sw.className = 'sw'; sw.style.background = c;
      item.appendChild(sw); item.appendChild(document.createTextNode(k));
      legend.appendChild(item);
    });
  }
  ysel.addEventListener('change', draw);
  xsel.addEventListener('change', draw);
  draw();
})();
)";

}  // namespace

std::vector<std::vector<std::string>> sweep_report::parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, any = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
            any = true;
        } else if (c == ',') {
            row.push_back(field);
            field.clear();
            any = true;
        } else if (c == '\n') {
            row.push_back(field);
            rows.push_back(row);
            row.clear();
            field.clear();
            any = false;
        } else if (c != '\r') {
            field += c;
            any = true;
        }
    }
    if (any) {
        row.push_back(field);
        rows.push_back(row);
    }
    return rows;
}

bool sweep_report::is_sweep(const std::string& dir) {
    return fs::exists(fs::path(dir) / sweep_plan::k_table_file) &&
           !fs::exists(fs::path(dir) / "stats.json");
}

sweep_report::sweep_report(const std::string& dir) : m_dir(dir) {
    const std::string csv = read_text(fs::path(dir) / sweep_plan::k_table_file);
    if (csv.empty()) {
        throw input_error(source_loc{"command line", 0, 0}, "OUT_DIR",
                          "'" + dir + "' holds no sweep.csv (give the output folder of a sweep)");
    }
    m_rows = parse_csv(csv);
    const std::string plan = read_text(fs::path(dir) / sweep_plan::k_plan_file);
    if (!plan.empty()) {
        try {
            const auto j = nlohmann::json::parse(plan);
            m_description = j.value("description", std::string());
            m_swept = j.value("paths", std::vector<std::string>());
        } catch (const nlohmann::json::exception&) {
            // The table alone still makes a page; the swept columns are guessed below.
        }
    }
    if (m_swept.empty() && !m_rows.empty()) {
        // Without the plan: the columns between `point` and `status` were swept.
        for (std::size_t c = 1; c < m_rows[0].size() && m_rows[0][c] != "status"; ++c) {
            m_swept.push_back(m_rows[0][c]);
        }
    }
}

std::string sweep_report::html() const {
    std::ostringstream os;
    const std::string title = m_description.empty() ? m_dir : m_description;
    os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>trainvp sweep: "
       << esc(title) << "</title><style>" << k_report_base_style << k_style
       << "</style></head><body>\n";
    const std::size_t points = m_rows.empty() ? 0 : m_rows.size() - 1;
    os << "<h1>trainvp sweep: " << esc(title) << "</h1>\n<p>" << points << " points; swept: ";
    for (std::size_t i = 0; i < m_swept.size(); ++i) {
        os << (i ? ", " : "") << "<code>" << esc(m_swept[i]) << "</code>";
    }
    os << "; results in <code>" << esc(m_dir) << "</code></p>\n";

    os << "<h2 id=\"plot\">Plot</h2>\n<p><label>statistic <select id=\"sweep-y\"></select>"
          "</label><label>against <select id=\"sweep-x\"></select></label></p>\n"
          "<svg class=\"chart\" id=\"sweep-plot\" width=\"880\" height=\"410\" role=\"img\">"
          "</svg>\n<div class=\"legend\" id=\"sweep-legend\"></div>\n";

    os << "<h2 id=\"table\">sweep.csv (click a header to sort)</h2>\n<table class=\"sortable\" "
          "id=\"sweep-table\"><thead><tr>";
    if (!m_rows.empty()) {
        for (const auto& h : m_rows[0]) os << "<th>" << esc(h) << "</th>";
    }
    os << "</tr></thead><tbody>\n";
    for (std::size_t r = 1; r < m_rows.size(); ++r) {
        os << "<tr>";
        for (const auto& f : m_rows[r]) os << "<td>" << esc(f) << "</td>";
        os << "</tr>\n";
    }
    os << "</tbody></table>\n";

    json data;
    data["columns"] = m_rows.empty() ? std::vector<std::string>() : m_rows[0];
    data["swept"] = m_swept;
    json rows = json::array();
    for (std::size_t r = 1; r < m_rows.size(); ++r) rows.push_back(m_rows[r]);
    data["rows"] = rows;
    std::string text = data.dump();
    // "</" would end the script element early.
    for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3)) {
        text.replace(at, 2, "<\\/");
    }
    os << "<script type=\"application/json\" id=\"sweep-data\">" << text << "</script>\n";
    os << "<script>" << k_script << k_sortable_tables_script << "</script>\n</body></html>\n";
    return os.str();
}

}  // namespace trainvp
