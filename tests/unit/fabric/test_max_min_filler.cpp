// fabric/flow/max_min_filler: max-min fair rates by progressive filling against hand-worked
// allocations (the one allocator of flow_engine and the NoC's message_timing).
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "fabric/flow/max_min_filler.h"

namespace trainvp::fabric {
namespace {

// Equal shares of one resource.
TEST(max_min_filler, flows_on_one_resource_share_it_equally) {
    max_min_filler m({9.0});
    m.clear();
    for (int i = 0; i < 3; ++i) {
        m.add_flow(0.0);
        m.use(0);
    }
    const auto& r = m.solve();
    ASSERT_EQ(r.size(), 3u);
    for (double x : r) EXPECT_DOUBLE_EQ(x, 3.0);
}

// The textbook case (Bertsekas & Gallager, Data Networks, §6.5.2): links A (cap 1) and B
// (cap 2); flow 0 uses A and B, flow 1 only A, flow 2 only B.  A saturates first at 1/2 for
// flows 0 and 1; flow 2 then rises to B's remaining 2 - 1/2 = 3/2.
TEST(max_min_filler, a_bottleneck_frees_capacity_elsewhere) {
    max_min_filler m({1.0, 2.0});
    m.clear();
    m.add_flow(0.0);
    m.use(0);
    m.use(1);
    m.add_flow(0.0);
    m.use(0);
    m.add_flow(0.0);
    m.use(1);
    const auto& r = m.solve();
    EXPECT_DOUBLE_EQ(r[0], 0.5);
    EXPECT_DOUBLE_EQ(r[1], 0.5);
    EXPECT_DOUBLE_EQ(r[2], 1.5);
}

// A flow's own cap (a NoC flow's one flit per cycle, a slow link) freezes it below the fair
// share; the others split what it leaves: cap 1 on a 10-wide resource with two more flows
// gives 1, 4.5, 4.5.  A flow with no resources runs at its cap.
TEST(max_min_filler, caps_freeze_flows_early) {
    max_min_filler m({10.0});
    m.clear();
    m.add_flow(1.0);
    m.use(0);
    m.add_flow(0.0);
    m.use(0);
    m.add_flow(0.0);
    m.use(0);
    m.add_flow(2.5);
    const auto& r = m.solve();
    EXPECT_DOUBLE_EQ(r[0], 1.0);
    EXPECT_DOUBLE_EQ(r[1], 4.5);
    EXPECT_DOUBLE_EQ(r[2], 4.5);
    EXPECT_DOUBLE_EQ(r[3], 2.5);
}

// Problems are independent: a second solve does not see the first's flows or left capacity,
// and resources no flow uses are ignored.
TEST(max_min_filler, each_solve_is_a_new_problem) {
    max_min_filler m({4.0, 6.0, 1.0});
    m.clear();
    m.add_flow(0.0);
    m.use(0);
    EXPECT_DOUBLE_EQ(m.solve()[0], 4.0);
    m.clear();
    m.add_flow(0.0);
    m.use(1);
    m.add_flow(0.0);
    m.use(1);
    m.use(0);
    const auto& r = m.solve();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_DOUBLE_EQ(r[0], 3.0);
    EXPECT_DOUBLE_EQ(r[1], 3.0);
    m.clear();
    EXPECT_TRUE(m.solve().empty());
}

TEST(max_min_filler, a_flow_with_neither_resources_nor_cap_is_refused) {
    max_min_filler m({1.0});
    m.clear();
    m.add_flow(0.0);
    EXPECT_THROW(m.solve(), std::logic_error);
}

}  // namespace
}  // namespace trainvp::fabric
