#include "fabric/topology/fabric_topology.h"

#include <stdexcept>

namespace trainvp::fabric {

namespace {
// SplitMix64's finaliser: a fixed, well-mixed hash (ECMP must be deterministic).
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
}  // namespace

fabric_topology::fabric_topology(const topology_spec& s) : m_s(s) {
    if (s.endpoints < 2) throw std::invalid_argument("needs at least 2 endpoints");
    if (!(s.host_rate > 0)) throw std::invalid_argument("the host link rate is not positive");
    const std::size_t n = s.endpoints;
    m_capacity.assign(2 * n, s.host_rate);
    if (s.kind == topology_kind::LEAF_SPINE) {
        if (s.hosts_per_leaf == 0 || s.spines == 0) {
            throw std::invalid_argument("leaf_spine needs hosts_per_leaf and spines >= 1");
        }
        if (s.endpoints % s.hosts_per_leaf != 0) {
            throw std::invalid_argument(std::to_string(s.endpoints) +
                                        " endpoints do not fill leaves of " +
                                        std::to_string(s.hosts_per_leaf));
        }
        if (!(s.uplink_rate > 0)) throw std::invalid_argument("the uplink rate is not positive");
        m_leaves = s.endpoints / s.hosts_per_leaf;
        m_capacity.resize(2 * n + 2 * static_cast<std::size_t>(m_leaves) * s.spines, s.uplink_rate);
    }
}

std::uint32_t fabric_topology::leaf_of(std::uint32_t i) const {
    return m_s.kind == topology_kind::LEAF_SPINE ? i / m_s.hosts_per_leaf : 0;
}

int fabric_topology::leaf_to_spine(std::uint32_t leaf, std::uint32_t spine) const {
    return static_cast<int>(2 * m_s.endpoints + leaf * m_s.spines + spine);
}

int fabric_topology::spine_to_leaf(std::uint32_t spine, std::uint32_t leaf) const {
    return static_cast<int>(2 * m_s.endpoints + m_leaves * m_s.spines + spine * m_leaves + leaf);
}

void fabric_topology::route(std::uint32_t src, std::uint32_t dst, std::uint64_t flow,
                            std::vector<int>& out) const {
    out.clear();
    out.push_back(up(src));
    if (leaf_of(src) != leaf_of(dst)) {
        const std::uint64_t h =
            m_s.ecmp == ecmp_rule::HASH ? mix(mix(mix(src) ^ dst) ^ flow) : flow;
        const auto spine = static_cast<std::uint32_t>(h % m_s.spines);
        out.push_back(leaf_to_spine(leaf_of(src), spine));
        out.push_back(spine_to_leaf(spine, leaf_of(dst)));
    }
    out.push_back(down(dst));
}

std::uint32_t fabric_topology::switches(std::uint32_t src, std::uint32_t dst) const {
    return leaf_of(src) != leaf_of(dst) ? 3 : 1;
}

std::uint64_t fabric_topology::latency_ps(std::uint32_t src, std::uint32_t dst) const {
    const std::uint32_t sw = switches(src, dst);
    return (sw + 1) * m_s.propagation_ps + sw * m_s.switch_latency_ps;
}

std::string fabric_topology::name(int r) const {
    const auto n = static_cast<int>(m_s.endpoints);
    if (r < n) return "up[" + std::to_string(r) + "]";
    if (r < 2 * n) return "down[" + std::to_string(r - n) + "]";
    const int k = r - 2 * n;
    const int ls = static_cast<int>(m_leaves * m_s.spines);
    if (k < ls) {
        return "leaf[" + std::to_string(k / static_cast<int>(m_s.spines)) + "]>spine[" +
               std::to_string(k % static_cast<int>(m_s.spines)) + "]";
    }
    const int j = k - ls;
    return "spine[" + std::to_string(j / static_cast<int>(m_leaves)) + "]>leaf[" +
           std::to_string(j % static_cast<int>(m_leaves)) + "]";
}

}  // namespace trainvp::fabric
