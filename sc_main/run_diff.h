// `trainvp diff OUT_A OUT_B`: what changed between two runs.  Reads each folder's stats.json and
// lists the headline (status, simulated time, iteration time and its breakdown, each block
// type's headline statistics as a mean over its blocks) with both values and the ratio B / A,
// then every statistic whose values differ by more than a threshold.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainvp {

class registry;

class run_diff {
public:
    // Throws input_error (at "command line", key OUT_A or OUT_B) when a folder holds no
    // readable stats.json.
    run_diff(const std::string& dir_a, const std::string& dir_b, const registry& reg);

    // The comparison for a terminal: statistics differing by more than `threshold` (a
    // fraction: 0.01 is 1 %), at most `limit` of them (0: all), largest difference first.
    std::string text(double threshold, std::size_t limit) const;

    struct row {
        std::string name;  // "node[0].nic.tx_wire", "iteration time", "host.cpu.completion_time"
        std::string unit;
        double a = 0.0, b = 0.0;
        bool in_a = true, in_b = true;
        // |b - a| / max(|a|, |b|); 0 when both are 0.
        double difference() const;
    };
    // The headline rows and the per-statistic rows (every stat present in either run).
    const std::vector<row>& headline() const { return m_headline; }
    const std::vector<row>& stats() const { return m_stats; }

private:
    std::string m_dir_a, m_dir_b;
    nlohmann::ordered_json m_a, m_b;
    std::vector<row> m_headline;
    std::vector<row> m_stats;
};

}  // namespace trainvp
