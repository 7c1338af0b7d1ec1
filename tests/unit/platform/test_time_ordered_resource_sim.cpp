// kit/time_ordered_resource.h while simulated time advances: intervals that are over are
// dropped (pruned) and insertions in front of reservations made ahead move the intervals
// before them into the dropped prefix.  Checked against a reference that keeps every interval
// in a std::map (the resource's first implementation): the same slot for every request, in
// random sequences of requests arriving up to 20 ns ahead of a clock advancing in small steps.
// sc_spawn lives behind this switch in SystemC 2.3.
#define SC_INCLUDE_DYNAMIC_PROCESSES

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <random>

#include "kit/time_ordered_resource.h"

namespace trainvp {
namespace {

using sc_core::sc_time;

// The map implementation, never pruned (what is over cannot matter to requests arriving now
// or later, so both must answer alike).
struct reference {
    std::map<sc_time, sc_time> busy;
    sc_time busy_until = sc_core::SC_ZERO_TIME;

    sc_time idle_from(const sc_time& t) const {
        auto it = busy.upper_bound(t);
        if (it != busy.begin() && std::prev(it)->second > t) return std::prev(it)->second;
        return t;
    }
    // By value: a caller may pass a node's own fields, and the merges below erase nodes.
    void add(const sc_time s, const sc_time e) {
        if (e <= s) return;
        auto it = busy.emplace(s, e).first;
        if (it != busy.begin() && std::prev(it)->second == s) {
            std::prev(it)->second = e;
            it = std::prev(busy.erase(it));
        }
        auto n = std::next(it);
        if (n != busy.end() && n->first == it->second) {
            it->second = n->second;
            busy.erase(n);
        }
        if (e > busy_until) busy_until = e;
    }
    time_ordered_resource::slot reserve(const sc_time& a, const sc_time& d) {
        sc_time start = idle_from(a), t = start, left = d;
        auto next = busy.upper_bound(t);
        while (next != busy.end() && next->first - t < left) {
            const sc_time resume = next->second;
            left -= next->first - t;
            add(t, next->first);
            t = resume;
            next = busy.upper_bound(t);
        }
        add(t, t + left);
        return {start, t + left};
    }
    sc_time first_fit(const sc_time& a, const sc_time& d) const {
        sc_time t = idle_from(a);
        for (auto n = busy.upper_bound(t); n != busy.end() && n->first - t < d; ++n) {
            t = n->second;
        }
        return t;
    }
};

sc_time ps(std::uint64_t v) { return sc_time::from_value(v); }

TEST(time_ordered_resource_sim, pruned_and_shifted_it_answers_as_the_unpruned_map) {
    int mismatches = 0;
    std::size_t most_intervals = 0;
    sc_core::sc_spawn([&] {
        std::mt19937_64 g(7);
        for (int round = 0; round < 20 && mismatches == 0; ++round) {
            time_ordered_resource r;
            reference f;
            for (int i = 0; i < 2000 && mismatches == 0; ++i) {
                if (g() % 4 == 0) sc_core::wait(ps(g() % 200));
                const sc_time a = sc_core::sc_time_stamp() + ps(g() % 20000);
                const sc_time d = ps(1 + g() % 300);
                if (g() % 3 == 0) {
                    const sc_time s = r.first_fit(a, d);
                    if (s != f.first_fit(a, d)) ++mismatches;
                    r.reserve_at(a, s, d);
                    f.add(s, s + d);
                } else {
                    const auto x = r.reserve(a, d);
                    const auto y = f.reserve(a, d);
                    if (x.start != y.start || x.end != y.end) ++mismatches;
                }
                if (r.busy_until() != f.busy_until) ++mismatches;
                most_intervals = std::max(most_intervals, r.intervals());
            }
        }
    });
    sc_core::sc_start();
    EXPECT_EQ(mismatches, 0);
    // Pruned: the kept intervals are those within ~20 ns of the clock, not all 2000 requests'.
    EXPECT_GT(most_intervals, 10u);  // the thread ran and reservations piled up ahead
    EXPECT_LT(most_intervals, 1000u);
}

}  // namespace
}  // namespace trainvp
