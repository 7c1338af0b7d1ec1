// `trainvp report OUT_DIR` (and `trainvp run --report`): one self-contained report.html from a
// run's outputs, with no network (styles and the table-sorting script inline, charts as inline
// SVG): the run's status and config, the iteration breakdown as a stacked bar, the ops of every
// host as a Gantt chart (timeline.json), per-block utilisation as a sortable table with bars,
// the cluster's utilisations as a node x statistic heatmap, every statistic, and the audit.
#pragma once

#include <string>

namespace trainvp {

class run_report {
public:
    // Reads DIR/stats.json (required: an input_error otherwise), DIR/timeline.json and
    // DIR/config.resolved.yaml (each optional).
    explicit run_report(const std::string& dir);

    // The page.
    std::string html() const;

private:
    std::string m_dir;
    std::string m_stats;     // stats.json text
    std::string m_timeline;  // timeline.json text, or empty
    std::string m_config;    // config.resolved.yaml text, or empty
};

}  // namespace trainvp
