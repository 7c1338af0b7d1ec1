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

#include <algorithm>
#include <cstddef>
#include <vector>

#include <systemc>

#include "kit/resource_usage.h"
#include "kit/sim_time.h"

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
        return reserve(arrival, duration, sim_now());
    }
    // The same for a caller that has the current simulated time `now` at hand (asking the
    // kernel for it per request is a tenth of a DMA burst's cost at scale).
    slot reserve(const sc_core::sc_time& arrival, const sc_core::sc_time& duration,
                 const sc_core::sc_time& now) {
        prune(now);
        sc_core::sc_time start, t;
        if (arrival >= m_busy_until) {
            // After everything reserved so far (requests made in time order): as timed_resource.
            start = arrival;
            t = arrival + duration;
            add(start, t);
        } else if (m_busy.size() != m_head && m_busy.back().start <= arrival) {
            // Inside the last busy interval (a burst queued behind the one before it): no gap
            // after `arrival`, so it extends that interval.
            start = m_busy.back().end;
            t = start + duration;
            m_busy_flag.busy(start, t);
            m_busy.back().end = t;
        } else {
            start = idle_from(arrival);
            t = start;
            sc_core::sc_time left = duration;
            std::size_t next = first_after(t);
            while (true) {
                if (next == m_busy.size() || m_busy[next].start - t >= left) {
                    add(t, t + left);
                    t += left;
                    break;
                }
                // The gap up to `next` is too short: fill it and go on after `next`.
                const sc_core::sc_time gap_end = m_busy[next].start;
                const sc_core::sc_time resume = m_busy[next].end;
                left -= gap_end - t;
                add(t, gap_end);
                t = resume;
                next = first_after(t);
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
        for (std::size_t next = first_after(t);
             next != m_busy.size() && m_busy[next].start - t < duration; ++next) {
            t = m_busy[next].end;
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
        const std::size_t it = first_after(t);
        if (it != m_head && m_busy[it - 1].end > t) return m_busy[it - 1].end;
        return t;
    }

    // Busy intervals kept (those that end after the last prune): for tests.
    std::size_t intervals() const { return m_busy.size() - m_head; }

private:
    struct interval {
        sc_core::sc_time start, end;
    };

    // Index of the first live interval that starts after `t` (size() if none): binary search.
    std::size_t first_after(const sc_core::sc_time& t) const {
        if (m_busy.size() == m_head || t >= m_busy.back().start) return m_busy.size();
        const auto it = std::upper_bound(
            m_busy.begin() + static_cast<std::ptrdiff_t>(m_head), m_busy.end(), t,
            [](const sc_core::sc_time& x, const interval& i) { return x < i.start; });
        return static_cast<std::size_t>(it - m_busy.begin());
    }

    // Marks [s, e) busy, merging it with the busy intervals it touches (it overlaps none).
    void add(const sc_core::sc_time& s, const sc_core::sc_time& e) {
        if (e <= s) return;
        m_busy_flag.busy(s, e);
        if (m_busy.size() == m_head || s >= m_busy.back().end) {
            // After everything: extend the last interval or append one.
            if (m_busy.size() != m_head && m_busy.back().end == s) {
                m_busy.back().end = e;
            } else {
                m_busy.push_back(interval{s, e});
            }
            return;
        }
        const std::size_t next = first_after(s);  // the first interval starting after s
        const bool joins_next = next != m_busy.size() && m_busy[next].start == e;
        if (next != m_head && m_busy[next - 1].end == s) {
            if (joins_next) {
                m_busy[next - 1].end = m_busy[next].end;
                m_busy.erase(m_busy.begin() + static_cast<std::ptrdiff_t>(next));
            } else {
                m_busy[next - 1].end = e;
            }
            return;
        }
        if (joins_next) {
            m_busy[next].start = s;
            return;
        }
        insert_at(next, interval{s, e});
    }

    // Inserts before index `at`, moving the intervals on the shorter side: those before it into
    // the dead prefix when there is room (a request made now goes in front of reservations
    // made far ahead: a NIC's receive DMA behind its decompressor), else those after it.
    void insert_at(std::size_t at, const interval& i) {
        if (m_head > 0 && at - m_head < m_busy.size() - at) {
            std::move(m_busy.begin() + static_cast<std::ptrdiff_t>(m_head),
                      m_busy.begin() + static_cast<std::ptrdiff_t>(at),
                      m_busy.begin() + static_cast<std::ptrdiff_t>(m_head - 1));
            --m_head;
            m_busy[at - 1] = i;
        } else {
            m_busy.insert(m_busy.begin() + static_cast<std::ptrdiff_t>(at), i);
        }
    }

    // Intervals over before now can no longer matter: requests arrive at now or later.  The
    // live ones are [m_head, size()); the dead prefix is dropped in one go once it is half the
    // vector (but for k_front_room slots), so a reservation costs O(1) amortised when made in
    // time order and a search is O(log n) over the intervals still ahead.
    void prune() { prune(sim_now()); }
    void prune(const sc_core::sc_time& now) {
        while (m_head < m_busy.size() && m_busy[m_head].end <= now) ++m_head;
        if (m_head == m_busy.size()) {
            m_busy.clear();
            m_head = 0;
        } else if (m_head >= 2 * k_front_room && m_head * 2 >= m_busy.size()) {
            // Keep some room in front for insertions there.
            m_busy.erase(m_busy.begin(),
                         m_busy.begin() + static_cast<std::ptrdiff_t>(m_head - k_front_room));
            m_head = k_front_room;
        }
    }

    static constexpr std::size_t k_front_room = 64;
    std::vector<interval> m_busy;  // disjoint busy intervals in start order, live from m_head
    std::size_t m_head = 0;
};

}  // namespace trainvp
