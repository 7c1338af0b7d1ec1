// What the two HTML reports (run_report: report.html of a run; sweep_report: of a sweep folder)
// share: their base style and the script that sorts a table by the column header clicked.
#pragma once

namespace trainvp {

// Page, headings, tables (header cells clickable), numbers right-aligned, legends.
extern const char* const k_report_base_style;
// Every `table.sortable` sorts by a clicked column: by each cell's data-v when both cells have
// one, else by their text as numbers when both read as numbers, else as text; a second click
// reverses.  Then marks the page ready (body data-ready, which tools.report waits for).
extern const char* const k_sortable_tables_script;

}  // namespace trainvp
