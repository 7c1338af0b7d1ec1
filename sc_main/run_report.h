// `trainvp report OUT_DIR` (and `trainvp run --report`): one self-contained report.html from a
// run's outputs, with no network (styles and the table-sorting script inline, charts as inline
// SVG): the run's status and config, the iteration breakdown as a stacked bar, a NoC's k x k
// routers with every channel coloured by its utilisation (noc.interposer's link_utilisation,
// bypass, wrap and express links as dashed arcs), the cluster's links as a node x link heatmap,
// the ops of every host as a Gantt chart (timeline.json), per-block utilisation as a sortable
// table with bars, every per-node utilisation as a node x statistic heatmap, the audit and every
// statistic.  A sweep's folder gets sweep_report's page instead.
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
