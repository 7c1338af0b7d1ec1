// A cluster network as data, for the flow-level fabric (fabric.flow): its links as flow-engine
// resources with capacities, the route of a flow between two endpoints, and each route's fixed
// latency.  Pure C++ (tests/unit/fabric/test_fabric_topology.cpp).
//
//   single_switch  N endpoints on one non-blocking switch: resource up[i] (endpoint i's NIC
//                  serialiser and its link to the switch) and down[i] (the switch's port to i)
//   leaf_spine     N endpoints, `hosts_per_leaf` under each leaf switch, every leaf linked to
//                  each of `spines` spine switches by one link per direction at `uplink_rate`;
//                  a flow between leaves crosses up[src], leaf->spine, spine->leaf, down[dst],
//                  the spine chosen by ECMP: a deterministic hash of (src, dst, flow id), or
//                  spine = flow id mod spines (`fixed`).  Oversubscription =
//                  hosts_per_leaf x host rate / (spines x uplink_rate).
// Latency of a route: propagation on each of its links plus each switch's port-to-port
// latency (the store-and-forward wait for a frame is the block's: it knows the frames).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainvp::fabric {

enum class topology_kind { SINGLE_SWITCH, LEAF_SPINE };
enum class ecmp_rule { HASH, FIXED };

struct topology_spec {
    topology_kind kind = topology_kind::SINGLE_SWITCH;
    std::uint32_t endpoints = 0;
    double host_rate = 0;    // B/s, each endpoint's link (both directions)
    double uplink_rate = 0;  // B/s, each leaf-spine link (leaf_spine)
    std::uint32_t hosts_per_leaf = 0;
    std::uint32_t spines = 0;
    std::uint64_t propagation_ps = 0;  // per link
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
    // Switches on that route.
    std::uint32_t switches(std::uint32_t src, std::uint32_t dst) const;
    // Resource r's name ("up[3]", "leaf[1]>spine[0]"), for statistics.
    std::string name(int r) const;
    std::uint32_t leaf_of(std::uint32_t endpoint) const;
    std::uint32_t leaves() const { return m_leaves; }
    // Up- and downlink resource of endpoint i.
    int up(std::uint32_t i) const { return static_cast<int>(i); }
    int down(std::uint32_t i) const { return static_cast<int>(m_s.endpoints + i); }

private:
    int leaf_to_spine(std::uint32_t leaf, std::uint32_t spine) const;
    int spine_to_leaf(std::uint32_t spine, std::uint32_t leaf) const;

    topology_spec m_s;
    std::uint32_t m_leaves = 1;
    std::vector<double> m_capacity;
};

}  // namespace trainvp::fabric
