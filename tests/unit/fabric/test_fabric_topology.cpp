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
    s.uplink_propagation_ps = 10000;
    s.ecmp = e;
    return s;
}

TEST(fabric_topology, leaf_spine_routes) {
    const fabric_topology t(leaf_spine(ecmp_rule::FIXED));
    EXPECT_EQ(t.tiers(), (std::vector<int>{4, 4}));
    EXPECT_EQ(fabric_topology(one_switch(4)).tiers(), (std::vector<int>{4}));
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

// A k = 4 fat tree (Al-Fares et al.): 4 pods of 2 leaves and 2 aggregation switches, 4 cores,
// 2 hosts per leaf: 16 endpoints.  Resources: 32 host links, 8 leaves x 2 up + 2 down, 8
// aggregation switches x 2 cores x 2 directions.
topology_spec fat_tree(ecmp_rule e) {
    topology_spec s = one_switch(16);
    s.kind = topology_kind::FAT_TREE;
    s.k = 4;
    s.hosts_per_leaf = 2;
    s.uplink_rate = 1.25e9;
    s.core_rate = 2.5e9;
    s.uplink_propagation_ps = 20000;
    s.core_propagation_ps = 50000;
    s.ecmp = e;
    return s;
}

TEST(fabric_topology, fat_tree_routes_through_leaf_aggregation_and_core) {
    const fabric_topology t(fat_tree(ecmp_rule::FIXED));
    ASSERT_EQ(t.capacities().size(), 32u + 32u + 32u);
    EXPECT_DOUBLE_EQ(t.capacities()[63], 1.25e9);
    EXPECT_DOUBLE_EQ(t.capacities()[64], 2.5e9);
    EXPECT_EQ(t.leaves(), 8u);
    std::vector<int> r;
    t.route(0, 1, 0, r);  // same leaf
    EXPECT_EQ(r, (std::vector<int>{0, 16 + 1}));
    EXPECT_EQ(t.switches(0, 1), 1u);
    // Endpoint 0 (leaf 0, pod 0) to 3 (leaf 1, pod 0): aggregation switch 1 (flow 1 mod 2).
    t.route(0, 3, 1, r);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(t.name(r[1]), "leaf[0]>agg[1]");
    EXPECT_EQ(t.name(r[2]), "agg[1]>leaf[1]");
    EXPECT_EQ(t.switches(0, 3), 3u);
    EXPECT_EQ(t.latency_ps(0, 3), 2 * 10000u + 2 * 20000u + 3 * 1000000u);
    // Endpoint 1 (pod 0) to 14 (leaf 7, pod 3), flow 3: aggregation position 3 mod 2 = 1,
    // core (3 / 2) mod 2 = 1 of that position's group: core 1 * 2 + 1 = 3.
    t.route(1, 14, 3, r);
    ASSERT_EQ(r.size(), 6u);
    EXPECT_EQ(t.name(r[0]), "up[1]");
    EXPECT_EQ(t.name(r[1]), "leaf[0]>agg[1]");
    EXPECT_EQ(t.name(r[2]), "agg[1]>core[3]");
    EXPECT_EQ(t.name(r[3]), "core[3]>agg[7]");
    EXPECT_EQ(t.name(r[4]), "agg[7]>leaf[7]");
    EXPECT_EQ(t.name(r[5]), "down[14]");
    EXPECT_EQ(t.switches(1, 14), 5u);
    EXPECT_EQ(t.latency_ps(1, 14), 2 * 10000u + 2 * 20000u + 2 * 50000u + 5 * 1000000u);
    // Tiers for the topology-aware hierarchical ring: 2 per leaf, 2 leaves a pod, 4 pods.
    EXPECT_EQ(t.tiers(), (std::vector<int>{2, 2, 4}));
    // Every resource index is used by some route and named once.
    std::set<std::string> names;
    for (int i = 0; i < static_cast<int>(t.capacities().size()); ++i) names.insert(t.name(i));
    EXPECT_EQ(names.size(), t.capacities().size());
}

// D-mod-k: a shift permutation (every endpoint to the one 4 further on, pod to pod) uses each
// uplink, each core link and each downlink once.
TEST(fabric_topology, fat_tree_dest_mod_spreads_a_shift_without_sharing) {
    const fabric_topology t(fat_tree(ecmp_rule::DEST_MOD));
    std::vector<int> used(t.capacities().size(), 0);
    std::vector<int> r;
    for (std::uint32_t i = 0; i < 16; ++i) {
        t.route(i, (i + 4) % 16, 99, r);
        ASSERT_EQ(r.size(), 6u);
        for (int x : r) ++used[static_cast<std::size_t>(x)];
    }
    for (std::size_t x = 0; x < used.size(); ++x)
        EXPECT_LE(used[x], 1) << t.name(static_cast<int>(x));
    t.route(0, 13, 5, r);  // leaf uplink 13 mod 2 = 1, core (13 / 2) mod 2 = 0 of agg 1's group
    EXPECT_EQ(t.name(r[1]), "leaf[0]>agg[1]");
    EXPECT_EQ(t.name(r[2]), "agg[1]>core[2]");
}

// Hashed ECMP reaches every core from a pod, and a route is the same each time.
TEST(fabric_topology, fat_tree_hash_spreads_over_aggregation_and_cores) {
    const fabric_topology t(fat_tree(ecmp_rule::HASH));
    std::set<std::string> cores;
    std::vector<int> a, b;
    for (std::uint64_t f = 0; f < 128; ++f) {
        t.route(0, 15, f, a);
        t.route(0, 15, f, b);
        EXPECT_EQ(a, b);
        cores.insert(t.name(a[2]));
    }
    EXPECT_EQ(cores.size(), 4u);  // 2 aggregation switches x 2 cores each
}

// 4 hosts of 2 rails, 2 hosts per group: leaves (group, rail) = 2 x 2.  Endpoint e = host x 2
// + rail.
TEST(fabric_topology, rail_optimised_puts_each_rail_on_its_leaf) {
    topology_spec s = one_switch(8);
    s.kind = topology_kind::RAIL_OPTIMISED;
    s.rails = 2;
    s.hosts_per_leaf = 2;
    s.spines = 2;
    s.uplink_rate = 1.25e9;
    const fabric_topology t(s);
    EXPECT_EQ(t.leaves(), 4u);
    EXPECT_EQ(t.leaf_of(0), 0u);      // host 0 rail 0
    EXPECT_EQ(t.leaf_of(1), 1u);      // host 0 rail 1
    EXPECT_EQ(t.leaf_of(2), 0u);      // host 1 rail 0
    EXPECT_EQ(t.leaf_of(5), 3u);      // host 2 rail 1: group 1
    EXPECT_EQ(t.switches(0, 2), 1u);  // same rail, same group
    EXPECT_EQ(t.switches(0, 1), 3u);  // two rails of one host cross a spine
    EXPECT_EQ(t.by_leaf(), (std::vector<std::uint32_t>{0, 2, 1, 3, 4, 6, 5, 7}));
    EXPECT_EQ(t.tiers(), (std::vector<int>{2, 4}));
    s.endpoints = 7;
    EXPECT_THROW(fabric_topology{s}, std::invalid_argument);  // 7 NICs are not hosts of 2
}

TEST(fabric_topology, impossible_specs_are_refused) {
    {
        topology_spec s = fat_tree(ecmp_rule::HASH);
        s.endpoints = 18;  // 9 leaves need 5 pods of 2; k = 4 has 4
        EXPECT_THROW(fabric_topology{s}, std::invalid_argument);
        s.endpoints = 16;
        s.k = 3;
        EXPECT_THROW(fabric_topology{s}, std::invalid_argument);
    }
    topology_spec s = leaf_spine(ecmp_rule::HASH);
    s.hosts_per_leaf = 5;  // 16 endpoints do not fill leaves of 5
    EXPECT_THROW(fabric_topology{s}, std::invalid_argument);
    s = one_switch(1);
    EXPECT_THROW(fabric_topology{s}, std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::fabric
