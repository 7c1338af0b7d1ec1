// kit/time_ordered_resource.h: requests served in arrival-time order around earlier
// reservations (no simulation runs: the current time stays 0, so nothing is pruned).
#include <gtest/gtest.h>

#include "kit/time_ordered_resource.h"

namespace trainvp {
namespace {

sc_core::sc_time ns_(double v) { return sc_core::sc_time(v, sc_core::SC_NS); }

TEST(time_ordered_resource, in_time_order_it_is_a_fifo) {
    time_ordered_resource r;
    auto a = r.reserve(ns_(0), ns_(10));
    auto b = r.reserve(ns_(5), ns_(10));
    auto c = r.reserve(ns_(40), ns_(1));
    EXPECT_EQ(a.start, ns_(0));
    EXPECT_EQ(a.end, ns_(10));
    EXPECT_EQ(b.start, ns_(10));  // queued behind a
    EXPECT_EQ(b.end, ns_(20));
    EXPECT_EQ(c.start, ns_(40));
    EXPECT_EQ(r.busy_until(), ns_(41));
    EXPECT_EQ(r.busy_ps(), 21000u);
}

// A request made after one reserved for later, but arriving before it, goes first when it fits.
TEST(time_ordered_resource, an_earlier_arrival_fits_before_a_later_reservation) {
    time_ordered_resource r;
    r.reserve(ns_(100), ns_(50));
    auto s = r.reserve(ns_(10), ns_(20));
    EXPECT_EQ(s.start, ns_(10));
    EXPECT_EQ(s.end, ns_(30));
    // One that arrives inside the reservation waits for its end.
    auto t = r.reserve(ns_(120), ns_(5));
    EXPECT_EQ(t.start, ns_(150));
    EXPECT_EQ(t.end, ns_(155));
}

// A request longer than the idle gap uses the gap and resumes after the reservation
// (work-conserving): 30 ns of service from 0 around [20, 40) ends at 50.
TEST(time_ordered_resource, a_long_request_is_split_over_idle_gaps) {
    time_ordered_resource r;
    r.reserve(ns_(20), ns_(20));  // [20, 40)
    r.reserve(ns_(60), ns_(10));  // [60, 70)
    auto s = r.reserve(ns_(0), ns_(50));
    EXPECT_EQ(s.start, ns_(0));
    // 20 before the first, 20 between them, 10 after the second.
    EXPECT_EQ(s.end, ns_(80));
    EXPECT_EQ(r.busy_until(), ns_(80));
    // Everything from 0 to 80 is now busy: the next request starts at 80.
    EXPECT_EQ(r.idle_from(ns_(0)), ns_(80));
    EXPECT_EQ(r.reserve(ns_(30), ns_(1)).start, ns_(80));
}

TEST(time_ordered_resource, waits_are_sampled_per_request) {
    time_ordered_resource r;
    r.reserve(ns_(0), ns_(10));
    r.reserve(ns_(0), ns_(10));  // waits 10 ns
    EXPECT_DOUBLE_EQ(r.wait_ns().mean(), 5.0);
}

// The busy intervals are kept merged: contiguous reservations are one interval, and a request
// that fills the gap between two joins them (the list the searches go through stays short).
TEST(time_ordered_resource, touching_intervals_are_merged) {
    time_ordered_resource r;
    for (int i = 0; i < 1000; ++i) r.reserve(ns_(0), ns_(1));  // back to back: [0, 1000)
    EXPECT_EQ(r.intervals(), 1u);
    EXPECT_EQ(r.busy_until(), ns_(1000));
    r.reserve(ns_(2000), ns_(10));  // [2000, 2010)
    r.reserve(ns_(3000), ns_(10));  // [3000, 3010)
    EXPECT_EQ(r.intervals(), 3u);
    // Fills [1000, 2000) and [2010, 2510): joins the first two intervals.
    auto s = r.reserve(ns_(500), ns_(1500));
    EXPECT_EQ(s.start, ns_(1000));
    EXPECT_EQ(s.end, ns_(2510));
    EXPECT_EQ(r.intervals(), 2u);
    // Exactly the gap [2510, 3000): everything is one interval again.
    auto t = r.reserve(ns_(0), ns_(490));
    EXPECT_EQ(t.start, ns_(2510));
    EXPECT_EQ(t.end, ns_(3000));
    EXPECT_EQ(r.intervals(), 1u);
    EXPECT_EQ(r.idle_from(ns_(0)), ns_(3010));
}

// first_fit finds the first gap that holds the whole duration; reserve_at takes it.
TEST(time_ordered_resource, first_fit_skips_gaps_too_short) {
    time_ordered_resource r;
    r.reserve(ns_(10), ns_(10));  // [10, 20)
    r.reserve(ns_(25), ns_(10));  // [25, 35)
    r.reserve(ns_(50), ns_(10));  // [50, 60)
    EXPECT_EQ(r.first_fit(ns_(0), ns_(10)), ns_(0));
    EXPECT_EQ(r.first_fit(ns_(5), ns_(10)), ns_(35));  // [5, 10) and [20, 25) are too short
    EXPECT_EQ(r.first_fit(ns_(12), ns_(20)), ns_(60));
    auto s = r.reserve_at(ns_(5), ns_(35), ns_(10));
    EXPECT_EQ(s.end, ns_(45));
    EXPECT_EQ(r.intervals(), 3u);  // [10, 20), [25, 45) (joined [25, 35)), [50, 60)
}

}  // namespace
}  // namespace trainvp
