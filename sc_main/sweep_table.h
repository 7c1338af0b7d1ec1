// sweep.csv from a sweep's point folders: one row per point with the swept values, the run's
// status and simulated time, the iteration breakdown (`iteration.time`, `.forward`, ... when
// the run has one), the headline statistics (declared with `headline` by the blocks' types,
// aggregated over the blocks of a type as mean and max) and the error of a failed point.
// Columns with a unit carry it in the header: "host.cpu.completion_time.mean [ns]".  The same
// function serves a local sweep and `trainvp sweep --merge`, so both give byte-identical tables for
// the same results.
#pragma once

#include <string>

#include "sc_main/sweep_plan.h"

namespace trainvp {

class registry;

class sweep_table {
public:
    sweep_table(const sweep_plan& plan, const registry& reg);

    std::string csv() const { return m_csv; }
    std::size_t finished() const { return m_finished; }  // status finished
    std::size_t failed() const { return m_failed; }      // a result, but not finished
    std::size_t missing() const { return m_missing; }    // no result (not run, killed)

private:
    std::string m_csv;
    std::size_t m_finished = 0, m_failed = 0, m_missing = 0;
};

// A CSV field, quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& s);

}  // namespace trainvp
