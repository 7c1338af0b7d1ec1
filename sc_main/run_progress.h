// The progress line of a long `trainvp run` on a terminal: simulated time (with a bar, the
// percentage and the ETA when the end is known: simulation.max_time), wall time and the rate in
// simulated seconds per wall second.  Refreshed in place ("\r", erase line); nothing when stdout is
// not a terminal.
#pragma once

#include <iosfwd>
#include <string>

namespace trainvp {

class run_progress {
public:
    // `expected_s` <= 0: unknown.
    run_progress(std::ostream& out, double expected_s) : m_out(out), m_expected_s(expected_s) {}

    void update(double sim_s, double wall_s);
    // Erases the line (before the run's summary) if one was shown.
    void finish();

    // The text of the line.
    static std::string line(double sim_s, double expected_s, double wall_s);

    // Whether a run shows the line: stdout is a terminal, unless TRAINVP_PROGRESS says
    // `always` or `never`.
    static bool wanted();

private:
    std::ostream& m_out;
    double m_expected_s;
    bool m_shown = false;
};

// "[#####...............]": `fraction` (0..1) of `width` characters filled.
std::string progress_bar(double fraction, int width);

// Wall time as "1:05" or "2:03:07".
std::string format_wall(double seconds);

}  // namespace trainvp
