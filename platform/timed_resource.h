// A shared resource that serves one thing at a time and is busy until a time: a link
// direction, a memory channel, an engine.  Loosely-timed blocks reserve it at an arrival time
// for a duration and learn when the service starts and ends, without waiting.  It keeps the
// busy time for utilisation, the queueing delay, and the VCD busy flag.
#pragma once

#include <systemc>

#include "traces/stat.h"
#include "traces/traced_level.h"

namespace trainvp {

class timed_resource {
public:
    struct slot {
        sc_core::sc_time start;
        sc_core::sc_time end;
    };

    // Serves `duration` starting no earlier than `arrival` and no earlier than the end of the
    // previous reservation (FIFO in call order).
    slot reserve(const sc_core::sc_time& arrival, const sc_core::sc_time& duration) {
        const sc_core::sc_time start = arrival > m_busy_until ? arrival : m_busy_until;
        const sc_core::sc_time end = start + duration;
        m_busy_until = end;
        m_busy_ps += duration.value();
        m_wait_ps.sample(static_cast<double>((start - arrival).value()) / 1000.0);
        m_busy_flag.busy(start, end);
        return slot{start, end};
    }

    // Holds the resource until `t` without counting it as busy (back-pressure, a pause).
    void block_until(const sc_core::sc_time& t) {
        if (t > m_busy_until) m_busy_until = t;
    }

    const sc_core::sc_time& busy_until() const { return m_busy_until; }
    std::uint64_t busy_ps() const { return m_busy_ps; }
    // Fraction of [0, now] the resource was serving.
    double utilisation(const sc_core::sc_time& now) const {
        return now.value() ? static_cast<double>(m_busy_ps) / static_cast<double>(now.value())
                           : 0.0;
    }
    // Queueing delay per reservation, in ns.
    const distribution& wait_ns() const { return m_wait_ps; }
    traced_level& busy_signal() { return m_busy_flag; }
    void reset_stats() {
        m_busy_ps = 0;
        m_wait_ps.reset();
    }

private:
    sc_core::sc_time m_busy_until = sc_core::SC_ZERO_TIME;
    std::uint64_t m_busy_ps = 0;
    distribution m_wait_ps;
    traced_level m_busy_flag{traced_level::style::FLAG};
};

}  // namespace trainvp
