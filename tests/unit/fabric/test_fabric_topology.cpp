// fabric/topology/fabric_topology: routes, capacities and latencies by hand.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "fabric/topology/fabric_topology.h"

namespace trainvp::fabric {
namespace {

topology_spec one_switch(std::uint32_t n) {
    topology_spec s;
    s.endpoints = n;
    s.host_rate = 1.25e9;
    s.propagation_ps = 10000;
    s.switch_latency_ps = 1000000;
    return s;
}

TEST(fabric_topology, single_switch_routes_over_two_links) {
    const fabric_topology t(one_switch(4));
    EXPECT_EQ(t.capacities().size(), 8u);
    std::vector<int> r;
    t.route(1, 3, 0, r);
    EXPECT_EQ(r, (std::vector<int>{1, 4 + 3}));
    EXPECT_EQ(t.latency_ps(1, 3), 2 * 10000u + 1000000u);
    EXPECT_EQ(t.name(5), "down[1]");
}

topology_spec leaf_spine(ecmp_rule e) {
    topology_spec s = one_switch(16);
    s.kind = topology_kind::LEAF_SPINE;
    s.hosts_per_leaf = 4;  // 4 leaves
    s.spines = 2;
    s.uplink_rate = 2.5e9;  // 4 x 1.25 / (2 x 2.5): 1:1
    s.ecmp = e;
    return s;
}

TEST(fabric_topology, leaf_spine_routes) {
    const fabric_topology t(leaf_spine(ecmp_rule::FIXED));
    // 32 host links + 4 leaves x 2 spines x 2 directions.
    EXPECT_EQ(t.capacities().size(), 32u + 16u);
    EXPECT_DOUBLE_EQ(t.capacities()[40], 2.5e9);
    std::vector<int> r;
    t.route(0, 3, 7, r);  // same leaf: one switch
    EXPECT_EQ(r, (std::vector<int>{0, 16 + 3}));
    EXPECT_EQ(t.latency_ps(0, 3), 2 * 10000u + 1000000u);
    t.route(1, 9, 3, r);  // leaf 0 -> leaf 2 through spine 3 mod 2 = 1
    EXPECT_EQ(r, (std::vector<int>{1, 32 + 0 * 2 + 1, 32 + 8 + 1 * 4 + 2, 16 + 9}));
    EXPECT_EQ(t.name(r[1]), "leaf[0]>spine[1]");
    EXPECT_EQ(t.name(r[2]), "spine[1]>leaf[2]");
    EXPECT_EQ(t.latency_ps(1, 9), 4 * 10000u + 3 * 1000000u);
}

// The hash is deterministic and spreads flows over the spines.
TEST(fabric_topology, ecmp_hash_is_deterministic_and_spreads) {
    const fabric_topology t(leaf_spine(ecmp_rule::HASH));
    std::set<int> used;
    std::vector<int> a, b;
    for (std::uint64_t f = 0; f < 64; ++f) {
        t.route(0, 15, f, a);
        t.route(0, 15, f, b);
        EXPECT_EQ(a, b);
        used.insert(a[1]);
    }
    EXPECT_EQ(used.size(), 2u);
}

TEST(fabric_topology, impossible_specs_are_refused) {
    topology_spec s = leaf_spine(ecmp_rule::HASH);
    s.hosts_per_leaf = 5;  // 16 endpoints do not fill leaves of 5
    EXPECT_THROW(fabric_topology{s}, std::invalid_argument);
    s = one_switch(1);
    EXPECT_THROW(fabric_topology{s}, std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::fabric
