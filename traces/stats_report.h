// Collects every declared statistic of a run and writes stats.json and stats.csv.  Blocks and
// stats keep the order they were added in (config order), so the files are byte-identical for
// the same config and seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/stat.h"

namespace trainvp {

class stats_report {
public:
    // Run-level facts: key -> value, written under "run".
    void run_fact(const std::string& key, const std::string& value);
    void run_fact(const std::string& key, std::uint64_t value);
    void run_fact(const std::string& key, double value);

    void add(const std::string& block, const std::string& type, const std::string& stat,
             const std::string& unit, const counter& c);
    void add(const std::string& block, const std::string& type, const std::string& stat,
             const std::string& unit, const scalar& s);
    void add(const std::string& block, const std::string& type, const std::string& stat,
             const std::string& unit, const distribution& d);

    std::string json() const;
    std::string csv() const;

private:
    struct row {
        std::string block, type, stat, unit;
        enum class kind { COUNTER, SCALAR, DISTRIBUTION } k;
        std::uint64_t count = 0;
        double value = 0.0, mean = 0.0, min = 0.0, max = 0.0;
    };
    struct fact {
        std::string key;
        enum class kind { TEXT, UINT, REAL } k;
        std::string text;
        std::uint64_t u = 0;
        double d = 0.0;
    };
    std::vector<row> m_rows;
    std::vector<fact> m_facts;
};

}  // namespace trainvp
