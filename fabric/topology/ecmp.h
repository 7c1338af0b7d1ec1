// Equal-cost multi-path choice by a deterministic hash of (source, destination, flow id), the
// flow id, or the destination: the same functions pick a flow's spine in fabric.flow's
// topologies (fabric_topology) and a frame's uplink in ethernet.switch (`uplinks`, `ecmp`), so
// that a network built from switches at message level takes the paths the flow level takes.
// Pure C++.
#pragma once

#include <cstdint>

namespace trainvp::fabric {

// SplitMix64's finaliser: a fixed, well-mixed hash (ECMP must be deterministic).
inline std::uint64_t ecmp_mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

inline std::uint64_t ecmp_hash(std::uint32_t src, std::uint32_t dst, std::uint64_t flow) {
    return ecmp_mix(ecmp_mix(ecmp_mix(src) ^ dst) ^ flow);
}

// How a switch picks among equal uplinks: a hash of (src, dst, flow id), the flow id itself, or
// the destination (D-mod-k: fabric_topology.h).
enum class ecmp_rule { HASH, FIXED, DEST_MOD };

// The salt of a fat tree's second choice (an aggregation switch's core), in fabric_topology and
// in the switches the loader generates (platform/network_generator).
constexpr std::uint64_t k_ecmp_core_salt = 0x5eed;

// The number whose remainder mod the uplinks is the uplink a switch takes.  `salt` (0: none) is
// mixed into the hash, so that a second tier picks independently of the first; `below` is the
// number of choices the tiers under this one make (1 at a leaf, a leaf's uplinks at a fat
// tree's aggregation switch): fixed and dest_mod divide the flow id or the destination by it,
// so the tiers' choices are digits of one number.
inline std::uint64_t ecmp_pick(ecmp_rule rule, std::uint32_t src, std::uint32_t dst,
                               std::uint64_t flow, std::uint64_t salt, std::uint64_t below) {
    if (rule == ecmp_rule::FIXED) return flow / below;
    if (rule == ecmp_rule::DEST_MOD) return dst / below;
    const std::uint64_t h = ecmp_hash(src, dst, flow);
    return salt == 0 ? h : ecmp_mix(h ^ salt);
}

}  // namespace trainvp::fabric
