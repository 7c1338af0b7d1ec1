#include "sc_main/run_progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>

#include "core/units.h"

namespace trainvp {

std::string format_wall(double s) {
    const long t = s < 0 ? 0 : static_cast<long>(s + 0.5);
    char buf[32];
    if (t >= 3600) {
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
    } else {
        std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
    }
    return buf;
}

std::string progress_bar(double fraction, int width) {
    const double f = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
    const int full = static_cast<int>(f * width + 1e-9);
    return "[" + std::string(static_cast<std::size_t>(full), '#') +
           std::string(static_cast<std::size_t>(width - full), '.') + "]";
}

std::string run_progress::line(double sim_s, double expected_s, double wall_s) {
    std::string s;
    if (expected_s > 0) s = progress_bar(sim_s / expected_s, 20) + " ";
    s += "simulated " + units::format_time(sim_s);
    if (expected_s > 0) {
        char pct[32];
        std::snprintf(pct, sizeof pct, " (%.1f%%)", 100.0 * sim_s / expected_s);
        s += " of " + units::format_time(expected_s) + pct;
    }
    char rate[64];
    std::snprintf(rate, sizeof rate, ", %.3g simulated s per wall s",
                  wall_s > 0 ? sim_s / wall_s : 0.0);
    s += ", wall " + format_wall(wall_s);
    // The time left at the rate so far (the expected end is max_time, a bound: the run may
    // finish sooner).
    if (expected_s > 0 && sim_s > 0 && sim_s < expected_s) {
        s += ", ETA " + format_wall(wall_s / sim_s * (expected_s - sim_s));
    }
    return s + rate;
}

void run_progress::update(double sim_s, double wall_s) {
    m_out << "\r\033[K" << line(sim_s, m_expected_s, wall_s) << std::flush;
    m_shown = true;
}

void run_progress::finish() {
    if (m_shown) m_out << "\r\033[K" << std::flush;
    m_shown = false;
}

bool run_progress::wanted() {
    if (const char* v = std::getenv("TRAINVP_PROGRESS")) {
        if (std::strcmp(v, "always") == 0) return true;
        if (std::strcmp(v, "never") == 0) return false;
    }
    return isatty(STDOUT_FILENO) == 1;
}

}  // namespace trainvp
