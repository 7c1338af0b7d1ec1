// fabric/flow/flow_engine: max-min fair fluid flows against closed forms.  Capacities in B/s,
// times in ps: 1e9 B/s moves 1000 B in 1 us = 1e6 ps.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "fabric/flow/flow_engine.h"

namespace trainvp::fabric {
namespace {

// Runs the engine to the end; returns each tag's finish time (ps), indexed by tag.
std::vector<double> run_all(flow_engine& e, std::size_t tags) {
    std::vector<double> at(tags, -1.0);
    std::vector<std::uint64_t> done;
    while (e.active() > 0) {
        const double t = e.next_finish();
        done.clear();
        e.advance(t, done);
        for (std::uint64_t tag : done) at[tag] = t;
    }
    return at;
}

TEST(flow_engine, one_flow_takes_bytes_over_capacity) {
    flow_engine e({1e9});
    e.add(0, 1000.0, {0});
    EXPECT_DOUBLE_EQ(e.next_finish(), 1e6);
    const auto at = run_all(e, 1);
    EXPECT_DOUBLE_EQ(at[0], 1e6);
    EXPECT_DOUBLE_EQ(e.carried(0), 1000.0);
}

// Two flows share a link equally; when the short one ends the long one takes it all:
// 1000 B at 0.5e9 B/s = 2 us (the long one has moved 1000 B too), then its 2000 B left at
// 1e9 B/s = 2 us: 4 us.
TEST(flow_engine, sharing_and_speeding_up) {
    flow_engine e({1e9});
    e.add(0, 1000.0, {0});
    e.add(1, 3000.0, {0});
    EXPECT_DOUBLE_EQ(e.rate_of(0), 0.5e9);
    const auto at = run_all(e, 2);
    EXPECT_DOUBLE_EQ(at[0], 2e6);
    EXPECT_DOUBLE_EQ(at[1], 4e6);
    EXPECT_DOUBLE_EQ(e.carried(0), 4000.0);
}

// Max-min, two bottlenecks: flow 0 crosses A (10) and B (4), flow 1 only A.  Flow 0 is held
// to 4 by B; flow 1 gets A's remaining 6 (not 5: max-min, not equal shares).
TEST(flow_engine, max_min_with_two_bottlenecks) {
    flow_engine e({10e9, 4e9});
    e.add(0, 1e6, {0, 1});
    e.add(1, 1e6, {0});
    EXPECT_DOUBLE_EQ(e.rate_of(0), 4e9);
    EXPECT_DOUBLE_EQ(e.rate_of(1), 6e9);
}

// A flow's own cap (the host's pace) frees capacity for the others.
TEST(flow_engine, a_capped_flow_leaves_the_rest) {
    flow_engine e({10e9});
    e.add(0, 1e6, {0}, 2e9);
    e.add(1, 1e6, {0});
    EXPECT_DOUBLE_EQ(e.rate_of(0), 2e9);
    EXPECT_DOUBLE_EQ(e.rate_of(1), 8e9);
}

// A ring on a non-blocking switch: flow i uses uplink i and downlink i+1; nothing is shared,
// every flow runs at the full link rate and finishes at bytes / rate.
TEST(flow_engine, ring_flows_share_nothing) {
    const int n = 64;
    std::vector<double> cap(2 * n, 1.25e9);
    flow_engine e(cap);
    for (int i = 0; i < n; ++i) e.add(i, 1.25e6, {i, n + (i + 1) % n});
    const auto at = run_all(e, n);
    for (int i = 0; i < n; ++i) EXPECT_DOUBLE_EQ(at[i], 1e9) << i;
}

// Incast: k flows into one downlink share it; all finish together at k B / C.
TEST(flow_engine, incast_shares_the_downlink) {
    const int k = 4;
    std::vector<double> cap(k + 1, 1e9);
    flow_engine e(cap);
    for (int i = 0; i < k; ++i) e.add(i, 1000.0, {i, k});
    const auto at = run_all(e, k);
    for (int i = 0; i < k; ++i) EXPECT_NEAR(at[i], 4e6, 1e-3) << i;
}

// A flow added later starts at the engine's time and takes its share from then on: flow 0
// alone for 1 us (1000 of 3000 B), then both at half rate: flow 1 (1000 B) ends at 3 us,
// flow 0 has 1000 B left at full rate: 4 us.
TEST(flow_engine, a_late_flow_joins_at_the_engines_time) {
    flow_engine e({1e9});
    e.add(0, 3000.0, {0});
    std::vector<std::uint64_t> done;
    e.advance(1e6, done);
    EXPECT_TRUE(done.empty());
    e.add(1, 1000.0, {0});
    const auto at = run_all(e, 2);
    EXPECT_DOUBLE_EQ(at[1], 3e6);
    EXPECT_DOUBLE_EQ(at[0], 4e6);
}

TEST(flow_engine, bad_flows_are_refused) {
    flow_engine e({1e9});
    EXPECT_THROW(e.add(0, 0.0, {0}), std::invalid_argument);
    EXPECT_THROW(e.add(0, 10.0, {}), std::invalid_argument);
    EXPECT_THROW(e.add(0, 10.0, {3}), std::out_of_range);
    EXPECT_THROW(flow_engine({0.0}), std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::fabric
