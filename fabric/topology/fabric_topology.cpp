#include "fabric/topology/fabric_topology.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "fabric/topology/ecmp.h"

namespace trainvp::fabric {

namespace {
std::string num(std::uint64_t v) { return std::to_string(v); }
}  // namespace

fabric_topology::fabric_topology(const topology_spec& s) : m_s(s) {
    if (s.endpoints < 2) throw std::invalid_argument("needs at least 2 endpoints");
    if (!(s.host_rate > 0)) throw std::invalid_argument("the host link rate is not positive");
    const std::size_t n = s.endpoints;
    m_capacity.assign(2 * n, s.host_rate);
    if (s.kind == topology_kind::SINGLE_SWITCH) return;

    if (s.hosts_per_leaf == 0) throw std::invalid_argument("hosts_per_leaf must be >= 1");
    if (!(s.uplink_rate > 0)) throw std::invalid_argument("the uplink rate is not positive");
    switch (s.kind) {
        case topology_kind::LEAF_SPINE:
            if (s.spines == 0) throw std::invalid_argument("leaf_spine needs spines >= 1");
            if (s.endpoints % s.hosts_per_leaf != 0) {
                throw std::invalid_argument(num(s.endpoints) + " endpoints do not fill leaves of " +
                                            num(s.hosts_per_leaf));
            }
            m_leaves = s.endpoints / s.hosts_per_leaf;
            m_up = s.spines;
            break;
        case topology_kind::RAIL_OPTIMISED: {
            if (s.spines == 0) throw std::invalid_argument("rail_optimised needs spines >= 1");
            if (s.rails == 0) throw std::invalid_argument("rail_optimised needs rails >= 1");
            if (s.endpoints % s.rails != 0) {
                throw std::invalid_argument(num(s.endpoints) + " endpoints are not hosts of " +
                                            num(s.rails) + " rails each");
            }
            const std::uint32_t hosts = s.endpoints / s.rails;
            if (hosts % s.hosts_per_leaf != 0) {
                throw std::invalid_argument(num(hosts) + " hosts do not fill groups of " +
                                            num(s.hosts_per_leaf) + " (one leaf per rail each)");
            }
            m_leaves = hosts / s.hosts_per_leaf * s.rails;
            m_up = s.spines;
            break;
        }
        case topology_kind::FAT_TREE: {
            if (s.k < 2 || s.k % 2 != 0) {
                throw std::invalid_argument("fat_tree needs an even k >= 2, got " + num(s.k));
            }
            if (!(s.core_rate > 0)) throw std::invalid_argument("the core rate is not positive");
            if (s.endpoints % s.hosts_per_leaf != 0) {
                throw std::invalid_argument(num(s.endpoints) + " endpoints do not fill leaves of " +
                                            num(s.hosts_per_leaf));
            }
            m_half = s.k / 2;
            m_leaves = s.endpoints / s.hosts_per_leaf;
            m_pods = (m_leaves + m_half - 1) / m_half;
            if (m_pods > s.k) {
                throw std::invalid_argument(
                    num(m_leaves) + " leaves need " + num(m_pods) + " pods of " + num(m_half) +
                    "; a k = " + num(s.k) + " fat tree has " + num(s.k) + " (at most " +
                    num(static_cast<std::uint64_t>(s.k) * m_half * s.hosts_per_leaf) +
                    " endpoints)");
            }
            m_up = m_half;
            break;
        }
        case topology_kind::SINGLE_SWITCH:
            break;
    }
    m_base_leaf_up = static_cast<int>(2 * n);
    m_base_leaf_down = m_base_leaf_up + static_cast<int>(m_leaves * m_up);
    m_capacity.resize(2 * n + 2 * static_cast<std::size_t>(m_leaves) * m_up, s.uplink_rate);
    if (s.kind == topology_kind::FAT_TREE) {
        const std::size_t aggs = static_cast<std::size_t>(m_pods) * m_half;
        m_base_agg_up = static_cast<int>(m_capacity.size());
        m_base_agg_down = m_base_agg_up + static_cast<int>(aggs * m_half);
        m_capacity.resize(m_capacity.size() + 2 * aggs * m_half, s.core_rate);
    }
}

std::uint32_t fabric_topology::leaf_of(std::uint32_t i) const {
    switch (m_s.kind) {
        case topology_kind::SINGLE_SWITCH:
            return 0;
        case topology_kind::RAIL_OPTIMISED: {
            const std::uint32_t host = i / m_s.rails;
            return host / m_s.hosts_per_leaf * m_s.rails + i % m_s.rails;
        }
        case topology_kind::LEAF_SPINE:
        case topology_kind::FAT_TREE:
            break;
    }
    return i / m_s.hosts_per_leaf;
}

std::vector<std::uint32_t> fabric_topology::by_leaf() const {
    std::vector<std::uint32_t> order(m_s.endpoints);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [this](std::uint32_t a, std::uint32_t b) { return leaf_of(a) < leaf_of(b); });
    return order;
}

std::vector<int> fabric_topology::tiers() const {
    const auto n = static_cast<int>(m_s.endpoints);
    if (m_s.kind == topology_kind::SINGLE_SWITCH) return {n};
    const int per_leaf = n / static_cast<int>(m_leaves);
    if (m_s.kind == topology_kind::FAT_TREE && m_pods > 1 && m_leaves % m_half == 0) {
        return {per_leaf, static_cast<int>(m_half), static_cast<int>(m_pods)};
    }
    return {per_leaf, static_cast<int>(m_leaves)};
}

int fabric_topology::leaf_up(std::uint32_t leaf, std::uint32_t j) const {
    return m_base_leaf_up + static_cast<int>(leaf * m_up + j);
}

int fabric_topology::leaf_down(std::uint32_t leaf, std::uint32_t j) const {
    return m_base_leaf_down + static_cast<int>(j * m_leaves + leaf);
}

int fabric_topology::agg_up(std::uint32_t agg, std::uint32_t j) const {
    return m_base_agg_up + static_cast<int>(agg * m_half + j);
}

int fabric_topology::agg_down(std::uint32_t agg, std::uint32_t j) const {
    return m_base_agg_down + static_cast<int>(agg * m_half + j);
}

std::uint64_t fabric_topology::pick(std::uint32_t src, std::uint32_t dst, std::uint64_t flow,
                                    std::uint64_t salt) const {
    return ecmp_pick(m_s.ecmp, src, dst, flow, salt, salt == 0 ? 1 : m_up);
}

void fabric_topology::route(std::uint32_t src, std::uint32_t dst, std::uint64_t flow,
                            std::vector<int>& out) const {
    out.clear();
    out.push_back(up(src));
    const std::uint32_t ls = leaf_of(src), ld = leaf_of(dst);
    if (ls != ld) {
        const auto j = static_cast<std::uint32_t>(pick(src, dst, flow, 0) % m_up);
        out.push_back(leaf_up(ls, j));
        if (m_s.kind == topology_kind::FAT_TREE && pod_of_leaf(ls) != pod_of_leaf(ld)) {
            // Aggregation switch j of the source pod, one of its cores, the same aggregation
            // position in the destination pod (core c links to aggregation c / (k/2) of every
            // pod).
            const auto c =
                static_cast<std::uint32_t>(pick(src, dst, flow, k_ecmp_core_salt) % m_half);
            out.push_back(agg_up(pod_of_leaf(ls) * m_half + j, c));
            out.push_back(agg_down(pod_of_leaf(ld) * m_half + j, c));
        }
        out.push_back(leaf_down(ld, j));
    }
    out.push_back(down(dst));
}

std::uint32_t fabric_topology::switches(std::uint32_t src, std::uint32_t dst) const {
    const std::uint32_t ls = leaf_of(src), ld = leaf_of(dst);
    if (ls == ld) return 1;
    if (m_s.kind == topology_kind::FAT_TREE && pod_of_leaf(ls) != pod_of_leaf(ld)) return 5;
    return 3;
}

std::uint64_t fabric_topology::latency_ps(std::uint32_t src, std::uint32_t dst) const {
    const std::uint32_t sw = switches(src, dst);
    std::uint64_t t = 2 * m_s.propagation_ps + sw * m_s.switch_latency_ps;
    if (sw >= 3) t += 2 * m_s.uplink_propagation_ps;
    if (sw >= 5) t += 2 * m_s.core_propagation_ps;
    return t;
}

std::string fabric_topology::name(int r) const {
    const auto n = static_cast<int>(m_s.endpoints);
    if (r < n) return "up[" + num(r) + "]";
    if (r < 2 * n) return "down[" + num(r - n) + "]";
    const bool tree = m_s.kind == topology_kind::FAT_TREE;
    // A leaf's uplink j goes to spine j, or to aggregation switch j of the leaf's pod.
    auto upper = [&](std::uint32_t leaf, std::uint32_t j) {
        return tree ? "agg[" + num(pod_of_leaf(leaf) * m_half + j) + "]" : "spine[" + num(j) + "]";
    };
    if (r < m_base_leaf_down) {
        const auto k = static_cast<std::uint32_t>(r - m_base_leaf_up);
        return "leaf[" + num(k / m_up) + "]>" + upper(k / m_up, k % m_up);
    }
    if (!tree || r < m_base_agg_up) {
        const auto k = static_cast<std::uint32_t>(r - m_base_leaf_down);
        return upper(k % m_leaves, k / m_leaves) + ">leaf[" + num(k % m_leaves) + "]";
    }
    // Aggregation switch a (in its pod: a mod k/2) to core (a mod k/2) * k/2 + j, and back.
    const bool down_link = r >= m_base_agg_down;
    const auto k = static_cast<std::uint32_t>(r - (down_link ? m_base_agg_down : m_base_agg_up));
    const std::uint32_t agg = k / m_half, core = agg % m_half * m_half + k % m_half;
    const std::string a = "agg[" + num(agg) + "]", c = "core[" + num(core) + "]";
    return down_link ? c + ">" + a : a + ">" + c;
}

}  // namespace trainvp::fabric
