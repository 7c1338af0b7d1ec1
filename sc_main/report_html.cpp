#include "sc_main/report_html.h"

namespace trainvp {

const char* const k_report_base_style = R"(
body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1200px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.85em}td,th{padding:2px 8px;text-align:left}
th{cursor:pointer;background:#eee}tr:nth-child(even){background:#fafafa}
.num{text-align:right;font-variant-numeric:tabular-nums}
.legend span{display:inline-block;margin-right:1em}.sw{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:middle}
)";

const char* const k_sortable_tables_script = R"(
(function() {
  function value(cell) {
    if (cell.dataset.v !== undefined) return parseFloat(cell.dataset.v);
    var v = parseFloat(cell.textContent);
    return isFinite(v) ? v : NaN;
  }
  document.querySelectorAll('table.sortable th').forEach(function(th, col) {
    th.addEventListener('click', function() {
      var body = th.closest('table').tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var down = th.dataset.dir !== 'desc';
      rows.sort(function(a, b) {
        var x = value(a.cells[col]), y = value(b.cells[col]);
        var r = (!isNaN(x) && !isNaN(y)) ? x - y
                : a.cells[col].textContent.localeCompare(b.cells[col].textContent);
        return down ? -r : r;
      });
      th.dataset.dir = down ? 'desc' : 'asc';
      rows.forEach(function(r) { body.appendChild(r); });
    });
  });
  document.body.dataset.ready = 'yes';
})();
)";

}  // namespace trainvp
