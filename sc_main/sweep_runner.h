// Runs a sweep's points on this machine: each point is its own `trainvp run` process (the
// same binary), at most `jobs` at once.  Points that already have a result are skipped, so a
// rerun resumes.  On a terminal a progress line shows a bar, points done / total, the rate and
// the ETA.
#pragma once

#include <iosfwd>
#include <string>

#include "sc_main/sweep_plan.h"

namespace trainvp {

class sweep_runner {
public:
    sweep_runner(const sweep_plan& plan, std::string binary, unsigned jobs, std::ostream& out,
                 bool progress)
        : m_plan(plan),
          m_binary(std::move(binary)),
          m_jobs(jobs),
          m_out(out),
          m_progress(progress) {}

    struct outcome {
        std::size_t skipped = 0;  // had a result already
        std::size_t ran = 0;
        std::size_t nonzero = 0;  // of those run, exited with a non-zero code
    };
    // Throws sim_error when a process cannot be started.
    outcome run();

    // The progress line's text: "[#####...............] 4/16 points, elapsed 0:03, 80 points/min,
    // ETA 0:09".
    static std::string line(std::size_t done, std::size_t total, std::size_t nonzero,
                            double elapsed, bool final);

private:
    void show(std::size_t done, std::size_t total, std::size_t nonzero, double elapsed,
              bool final) const;

    const sweep_plan& m_plan;
    std::string m_binary;
    unsigned m_jobs;
    std::ostream& m_out;
    bool m_progress;
};

}  // namespace trainvp
