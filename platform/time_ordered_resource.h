// A shared resource (a PCIe link direction, a memory channel) that serves requests in the
// order of their arrival times, not in the order they are made.  Loosely-timed blocks reserve
// ahead: a NIC reserves the DMA write of a frame that will only have been decompressed
// microseconds from now.  timed_resource (FIFO in call order) puts every later request behind
// such a reservation even when it arrives long before it, and the resource sits idle meanwhile;
// here a request takes the idle time at and after its arrival, around the reservations made
// earlier, split over as many idle gaps as it needs (preemptive-resume around earlier
// commitments; work-conserving).  Requests made in time order are served exactly as by
// timed_resource.  Earlier reservations never move, so results stay independent of anything
// but the call sequence (determinism).
#pragma once

#include <iterator>
#include <map>

#include <systemc>

#include "platform/resource_usage.h"

namespace trainvp {

class time_ordered_resource : public resource_usage {
public:
    struct slot {
        sc_core::sc_time start;  // the first piece's start
        sc_core::sc_time end;    // the last piece's end
    };

    // Serves `duration` in the idle time at and after `arrival` (>= the current simulated
    // time); returns when the service starts and when it ends.
    slot reserve(const sc_core::sc_time& arrival, const sc_core::sc_time& duration) {
        prune();
        sc_core::sc_time start, t;
        if (arrival >= m_busy_until) {
            // After everything reserved so far (requests made in time order): as timed_resource.
            start = arrival;
            t = arrival + duration;
            add(start, t);
        } else {
            start = idle_from(arrival);
            t = start;
            sc_core::sc_time left = duration;
            auto next = m_busy.upper_bound(t);
            while (true) {
                if (next == m_busy.end() || next->first - t >= left) {
                    add(t, t + left);
                    t += left;
                    break;
                }
                // The gap up to `next` is too short: fill it and go on after `next`.
                const sc_core::sc_time resume = next->second;
                left -= next->first - t;
                add(t, next->first);
                t = resume;
                next = m_busy.upper_bound(t);
            }
        }
        if (t > m_busy_until) m_busy_until = t;
        served(arrival, start, duration);
        return slot{start, t};
    }

    // The earliest start at or after `arrival` of an idle gap at least `duration` long (for
    // work that cannot be split, a PCIe TLP).
    sc_core::sc_time first_fit(const sc_core::sc_time& arrival,
                               const sc_core::sc_time& duration) const {
        if (arrival >= m_busy_until) return arrival;
        sc_core::sc_time t = idle_from(arrival);
        for (auto next = m_busy.upper_bound(t); next != m_busy.end() && next->first - t < duration;
             ++next) {
            t = next->second;
        }
        return t;
    }

    // Serves `duration` in one piece from `start`, which must be idle for that long (a
    // first_fit answer); `arrival` is for the wait statistic.
    slot reserve_at(const sc_core::sc_time& arrival, const sc_core::sc_time& start,
                    const sc_core::sc_time& duration) {
        prune();
        const sc_core::sc_time end = start + duration;
        add(start, end);
        if (end > m_busy_until) m_busy_until = end;
        served(arrival, start, duration);
        return slot{start, end};
    }

    // The first idle instant at or after `t`.
    sc_core::sc_time idle_from(const sc_core::sc_time& t) const {
        auto it = m_busy.upper_bound(t);
        if (it != m_busy.begin()) {
            auto prev = std::prev(it);
            if (prev->second > t) return prev->second;
        }
        return t;
    }

private:
    // Marks [s, e) busy, merging it with the busy intervals it touches (it overlaps none).
    void add(const sc_core::sc_time& s, const sc_core::sc_time& e) {
        if (e <= s) return;
        m_busy_flag.busy(s, e);
        if (m_busy.empty() || s >= m_busy.rbegin()->second) {
            // After everything: extend the last interval or append one.
            if (!m_busy.empty() && m_busy.rbegin()->second == s) {
                m_busy.rbegin()->second = e;
            } else {
                m_busy.emplace_hint(m_busy.end(), s, e);
            }
            return;
        }
        auto next = m_busy.lower_bound(s);
        const bool joins_next = next != m_busy.end() && next->first == e;
        if (next != m_busy.begin()) {
            auto prev = std::prev(next);
            if (prev->second == s) {
                prev->second = joins_next ? next->second : e;
                if (joins_next) m_busy.erase(next);
                return;
            }
        }
        if (joins_next) {
            // Re-key the node in place (no allocation).
            auto node = m_busy.extract(next);
            node.key() = s;
            m_busy.insert(std::move(node));
            return;
        }
        m_busy.emplace_hint(next, s, e);
    }

    // Intervals over before now can no longer matter: requests arrive at now or later.
    void prune() {
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        while (!m_busy.empty() && m_busy.begin()->second <= now) m_busy.erase(m_busy.begin());
    }

    std::map<sc_core::sc_time, sc_core::sc_time> m_busy;  // disjoint busy intervals: start -> end
};

}  // namespace trainvp
