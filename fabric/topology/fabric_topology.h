// A cluster network as data, for the flow-level fabric (fabric.flow): its links as flow-engine
// resources with capacities, the route of a flow between two endpoints, and each route's fixed
// latency.  Pure C++ (tests/unit/fabric/test_fabric_topology.cpp).
//
//   single_switch   N endpoints on one non-blocking switch: resource up[i] (endpoint i's NIC
//                   serialiser and its link to the switch) and down[i] (the switch's port to i)
//   leaf_spine      `hosts_per_leaf` endpoints under each leaf switch, every leaf linked to each
//                   of `spines` spine switches by one link per direction at `uplink_rate`; a
//                   flow between leaves crosses up[src], leaf>spine, spine>leaf, down[dst].
//                   Oversubscription = hosts_per_leaf x host rate / (spines x uplink_rate).
//   fat_tree        three tiers of k-port switches (Al-Fares et al., SIGCOMM 2008): pods of k/2
//                   leaf (edge) and k/2 aggregation switches, each leaf linked to every
//                   aggregation switch of its pod (`uplink_rate`), aggregation switch a of
//                   every pod linked to core switches a*k/2 .. a*k/2 + k/2 - 1 (`core_rate`);
//                   (k/2)^2 cores, at most k pods.  `hosts_per_leaf` k/2 is the full-bisection
//                   tree; more oversubscribes the leaves.  Pods fill in order (the last pods
//                   of a tree larger than the cluster stay empty).
//   rail_optimised  hosts with `rails` NICs each (endpoint e = host * rails + rail, so a host's
//                   NICs are adjacent); `hosts_per_leaf` hosts form a group, and rail r of a
//                   group's hosts hangs off the group's leaf r; leaves linked to `spines`
//                   spines as in leaf_spine (the rail-optimised fabrics of GPU clusters).  A
//                   flow between two rails of one host crosses a spine (no NVLink is modelled).
// ECMP over equal paths (a leaf's spines or aggregation switches, an aggregation switch's
// cores): a deterministic hash of (src, dst, flow id), flow id mod the choices (`fixed`), or
// D-mod-k (`dest_mod`, the deterministic routing of InfiniBand fat trees: Zahavi, "D-Mod-K
// routing providing non-blocking traffic for shift permutations on real life fat trees",
// Technion CCIT report 776, 2010): uplink dst mod k/2 at the leaf, core (dst / (k/2)) mod k/2
// at the aggregation switch, so flows to different destinations of a shift permutation (a
// ring's step) never share an uplink.
// Latency of a route: propagation on each of its links (per tier) plus each switch's
// port-to-port latency (the store-and-forward wait for a frame is the block's: it knows the
// frames).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/topology/ecmp.h"

namespace trainvp::fabric {

enum class topology_kind { SINGLE_SWITCH, LEAF_SPINE, FAT_TREE, RAIL_OPTIMISED };

struct topology_spec {
    topology_kind kind = topology_kind::SINGLE_SWITCH;
    std::uint32_t endpoints = 0;
    double host_rate = 0;              // B/s, each endpoint's link (both directions)
    double uplink_rate = 0;            // B/s, each leaf-spine or leaf-aggregation link
    double core_rate = 0;              // B/s, each aggregation-core link (fat_tree)
    std::uint32_t hosts_per_leaf = 0;  // endpoints per leaf (rail_optimised: hosts per group)
    std::uint32_t spines = 0;          // leaf_spine, rail_optimised
    std::uint32_t k = 0;               // fat_tree: switch radix (even)
    std::uint32_t rails = 0;           // rail_optimised: NICs per host
    std::uint64_t propagation_ps = 0;  // per host link
    std::uint64_t uplink_propagation_ps = 0;  // per leaf-spine / leaf-aggregation link
    std::uint64_t core_propagation_ps = 0;    // per aggregation-core link
    std::uint64_t switch_latency_ps = 0;
    ecmp_rule ecmp = ecmp_rule::HASH;
};

class fabric_topology {
public:
    // Throws std::invalid_argument with the reason when the spec is impossible.
    explicit fabric_topology(const topology_spec& s);

    std::uint32_t endpoints() const { return m_s.endpoints; }
    const std::vector<double>& capacities() const { return m_capacity; }
    // The resources of the flow `flow` from `src` to `dst` (src != dst), in order.
    void route(std::uint32_t src, std::uint32_t dst, std::uint64_t flow,
               std::vector<int>& out) const;
    // Fixed latency of that route, ps (propagation and switch latencies).
    std::uint64_t latency_ps(std::uint32_t src, std::uint32_t dst) const;
    // Switches on that route: 1 (same leaf), 3 (through a spine or an aggregation switch) or
    // 5 (through a core).
    std::uint32_t switches(std::uint32_t src, std::uint32_t dst) const;
    // Resource r's name ("up[3]", "leaf[1]>spine[0]", "agg[5]>core[2]"), for statistics.
    std::string name(int r) const;
    std::uint32_t leaf_of(std::uint32_t endpoint) const;
    std::uint32_t leaves() const { return m_leaves; }
    // Group sizes of the tiers, lowest first, whose product is the endpoints: {endpoints}
    // (single_switch), {per leaf, leaves} (leaf_spine, rail_optimised), {per leaf, leaves per
    // pod, pods} (fat_tree; {per leaf, leaves} when a pod is partly filled or there is one).
    // Ranks in by_leaf() order fill them first digit fastest.
    std::vector<int> tiers() const;
    // The endpoints ordered leaf by leaf (by endpoint within a leaf): a ring in this order
    // crosses the uplinks once per leaf (a topology-aware ring order).
    std::vector<std::uint32_t> by_leaf() const;
    // Up- and downlink resource of endpoint i.
    int up(std::uint32_t i) const { return static_cast<int>(i); }
    int down(std::uint32_t i) const { return static_cast<int>(m_s.endpoints + i); }

private:
    std::uint32_t pod_of_leaf(std::uint32_t leaf) const { return leaf / m_half; }
    // Resource indices of the switch-to-switch links.
    int leaf_up(std::uint32_t leaf, std::uint32_t j) const;    // leaf>spine[j] / leaf>agg j
    int leaf_down(std::uint32_t leaf, std::uint32_t j) const;  // spine[j]>leaf / agg j>leaf
    int agg_up(std::uint32_t agg, std::uint32_t j) const;      // agg>core (a*k/2 + j)
    int agg_down(std::uint32_t agg, std::uint32_t j) const;    // core (a*k/2 + j)>agg
    std::uint64_t pick(std::uint32_t src, std::uint32_t dst, std::uint64_t flow,
                       std::uint64_t salt) const;

    topology_spec m_s;
    std::uint32_t m_leaves = 1;
    std::uint32_t m_up = 0;    // uplinks per leaf: spines, or k/2 aggregation switches
    std::uint32_t m_half = 1;  // fat_tree: k/2
    std::uint32_t m_pods = 0;  // fat_tree: pods in use
    int m_base_leaf_up = 0, m_base_leaf_down = 0, m_base_agg_up = 0, m_base_agg_down = 0;
    std::vector<double> m_capacity;
};

}  // namespace trainvp::fabric
