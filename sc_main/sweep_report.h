// `trainvp report SWEEP_DIR`: one self-contained report.html for a sweep's output folder (no
// network: the data, styles and script inline): the sweep's description, sweep.csv as a
// sortable table, and a line plot (inline SVG drawn by the page's script) of a chosen column
// against a chosen swept column, one line per combination of the other swept values.
#pragma once

#include <string>
#include <vector>

namespace trainvp {

class sweep_report {
public:
    // Reads DIR/sweep.csv (required: an input_error otherwise) and DIR/sweep.json (optional:
    // the description and which columns were swept).
    explicit sweep_report(const std::string& dir);

    // Whether DIR looks like a sweep's output folder (it holds sweep.csv).
    static bool is_sweep(const std::string& dir);

    // The page.
    std::string html() const;

    // One CSV record split into fields (RFC 4180 quoting).
    static std::vector<std::vector<std::string>> parse_csv(const std::string& text);

private:
    std::string m_dir;
    std::string m_description;
    std::vector<std::string> m_swept;              // the swept parameters' column names
    std::vector<std::vector<std::string>> m_rows;  // header first
};

}  // namespace trainvp
