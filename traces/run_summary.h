// What a person (or a script) reads after a run: the headline (status, iteration time and its
// breakdown), warnings and bottlenecks, then the headline statistics grouped by block type, in
// human units with 4 significant digits (630.9 ms, 7.9 %, 9.42 GB/s), identical per-node lines
// folded into one (`node[0..3].host.completion_time 630.9 ms`) and a mean/min/max line where
// many blocks differ.  Plain data in, text or JSON out; platform/simulation fills it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace trainvp {

struct run_summary {
    struct part {
        std::string name;  // "forward", "exposed comm", ...
        double seconds = 0.0;
    };
    struct stat_value {
        std::string type;   // "host.cpu"
        std::string block;  // "node[0].host"
        std::string stat;   // "completion_time"
        std::string unit;   // as declared: "ns", "B", "1", ...
        double value = 0.0;
    };
    // One printed line: one block's stat, or several blocks' folded.
    struct line {
        std::string label;  // "node[0..3].host.completion_time"
        std::string stat;
        std::string unit;
        std::string text;  // "630.9 ms", or "mean 7.9 %, min 7.1 %, max 8.2 %"
        double mean = 0.0, min = 0.0, max = 0.0;
        std::size_t blocks = 0;
    };
    struct group {
        std::string type;
        std::vector<line> lines;
    };

    std::string status;  // "finished", "stalled", ...
    double simulated_s = 0.0;
    double wall_s = 0.0;
    bool has_iteration = false;
    double iteration_s = 0.0;  // per iteration
    int iterations = 1;
    std::vector<part> breakdown;  // the critical path's non-zero parts
    std::vector<std::string> warnings;
    std::vector<std::string> bottlenecks;  // "communication: node[3].nic compress engine 98 % busy"
    std::vector<stat_value> stats;         // headline stats, in block order
    bool audited = false;
    std::size_t audit_checks = 0;
    std::size_t audit_broken = 0;
    std::vector<std::string> notes;

    // The whole summary for a terminal.
    std::string text() const;
    // One line: "finished: iteration time 630.9 ms" (what --quiet prints).
    std::string headline() const;
    // The summary as one JSON object (what --json prints).
    std::string json() const;
    // The headline stats grouped by type (first appearance order) and folded.
    std::vector<group> groups() const;

    // A value of a stat in human units: ns, ps and s as times, B as sizes, B/s as rates, pJ as
    // energy, unit "1" utilisations as percentages, anything else with 4 significant digits.
    static std::string format_value(double x, const std::string& unit, const std::string& stat);
};

}  // namespace trainvp
