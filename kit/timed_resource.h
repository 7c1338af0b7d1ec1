// A shared resource that serves one thing at a time and is busy until a time: a link
// direction, a memory channel, an engine.  Loosely-timed blocks reserve it at an arrival time
// for a duration and learn when the service starts and ends, without waiting.  It keeps the
// busy time for utilisation, the queueing delay, and the VCD busy flag (resource_usage).
#pragma once

#include <systemc>

#include "kit/resource_usage.h"

namespace trainvp {

class timed_resource : public resource_usage {
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
        served(arrival, start, duration);
        m_busy_flag.busy(start, end);
        return slot{start, end};
    }

    // Holds the resource until `t` without counting it as busy (back-pressure, a pause).
    void block_until(const sc_core::sc_time& t) {
        if (t > m_busy_until) m_busy_until = t;
    }
};

}  // namespace trainvp
