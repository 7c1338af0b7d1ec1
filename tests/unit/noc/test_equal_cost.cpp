// Equal-cost provisioning (noc/topology/equal_cost.h): bisection channels counted from the
// generated topologies equal the hand formulas (one direction across the middle cut of a
// k x k array: mesh k, torus 2k, flattened butterfly k (k/2)^2 = k^3/4, ARIES k mesh links + 2k
// bypass tracks), so that at equal bisection bandwidth a channel's width is mesh / topology.
// Exact: small integers.
#include <gtest/gtest.h>

#include "noc/topology/equal_cost.h"

namespace trainvp::noc {
namespace {

TEST(equal_cost, bisection_channels_are_the_hand_formulas) {
    for (int k : {2, 4, 8}) {
        EXPECT_EQ(equal_cost::bisection_channels(noc_topology::mesh(k)), k) << k;
        EXPECT_EQ(equal_cost::bisection_channels(noc_topology::torus(k, true)), 2 * k) << k;
        EXPECT_EQ(equal_cost::bisection_channels(noc_topology::flattened_butterfly(k)),
                  k * k * k / 4)
            << k;
        EXPECT_EQ(equal_cost::bisection_channels(noc_topology::aries(k, {})), 3 * k) << k;
    }
}

TEST(equal_cost, equal_bisection_width_of_each_topology) {
    EXPECT_DOUBLE_EQ(equal_cost::width_factor(noc_topology::mesh(4)), 1.0);
    EXPECT_DOUBLE_EQ(equal_cost::width_factor(noc_topology::torus(4, true)), 0.5);
    // 4x4 flattened butterfly: 16 channels across the cut for the mesh's 4.
    EXPECT_DOUBLE_EQ(equal_cost::width_factor(noc_topology::flattened_butterfly(4)), 0.25);
    EXPECT_DOUBLE_EQ(equal_cost::width_factor(noc_topology::flattened_butterfly(8)), 1.0 / 16);
    EXPECT_DOUBLE_EQ(equal_cost::width_factor(noc_topology::aries(8, {})), 1.0 / 3);
    // The radix is not what is equalised: a flattened butterfly keeps 2k - 1 ports.
    EXPECT_EQ(noc_topology::flattened_butterfly(8).ports(), 15);
}

}  // namespace
}  // namespace trainvp::noc
