// What a busy-until resource (timed_resource, time_ordered_resource) tells about its use: the
// end of its latest reservation, its busy time for utilisation, the queueing delay per
// reservation and the VCD busy flag.  The resources derive from it and call served() once per
// reservation.
#pragma once

#include <cstdint>

#include <systemc>

#include "traces/stat.h"
#include "traces/traced_level.h"

namespace trainvp {

class resource_usage {
public:
    // The end of the latest reservation.
    const sc_core::sc_time& busy_until() const { return m_busy_until; }
    std::uint64_t busy_ps() const { return m_busy_ps; }
    // Fraction of [0, now] the resource was serving.
    double utilisation(const sc_core::sc_time& now) const {
        return busy_fraction(static_cast<double>(m_busy_ps),
                             static_cast<double>(m_busy_until.value()),
                             static_cast<double>(now.value()));
    }
    // Fraction of [0, now] a one-at-a-time resource was busy, from BUSY (its busy time:
    // loosely-timed reservations count whole when they are made, their part after `now` too)
    // and UNTIL (the end of its latest reservation), all in one unit.  A finished run has
    // drained, so BUSY / NOW; in a run that stopped early the part after `now` (at most
    // UNTIL - NOW) is taken out, so that the fraction covers the time that ran, and it never
    // exceeds 1.
    static double busy_fraction(double busy, double until, double now);
    // Queueing delay per reservation (its start minus its arrival), in ns.
    const distribution& wait_ns() const { return m_wait_ps; }
    traced_level& busy_signal() { return m_busy_flag; }
    void reset_stats() {
        m_busy_ps = 0;
        m_wait_ps.reset();
    }

protected:
    // Counts a reservation of `duration` that arrived at `arrival` and started at `start`.
    void served(const sc_core::sc_time& arrival, const sc_core::sc_time& start,
                const sc_core::sc_time& duration) {
        m_busy_ps += duration.value();
        m_wait_ps.sample(static_cast<double>((start - arrival).value()) / 1000.0);
    }

    sc_core::sc_time m_busy_until = sc_core::SC_ZERO_TIME;
    traced_level m_busy_flag{traced_level::style::FLAG};

private:
    std::uint64_t m_busy_ps = 0;
    distribution m_wait_ps;
};

}  // namespace trainvp
