// Equal-cost multi-path choice by a deterministic hash of (source, destination, flow id): the
// same function picks a flow's spine in fabric.flow's topologies (fabric_topology) and a
// frame's uplink in ethernet.switch (`uplinks`), so that a leaf-spine built from switches at
// message level takes the paths the flow level takes.  Pure C++.
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

}  // namespace trainvp::fabric
