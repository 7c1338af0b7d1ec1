// The memory a platform will need, estimated from its document before it is expanded or built,
// so that a config far beyond the machine (a 10^6-node array) is refused at once with the
// estimate and the knob that reduces it, instead of being killed for want of memory minutes
// later.  The estimate counts the blocks the `components:` build (each `count:` multiplied
// through the templates it instantiates) times k_bytes_per_block, the per-block state measured
// after a short run (its statistics, sockets, processes, and a run's recorded spans and op
// windows: 5.6 KiB per block once built, 14.5 KiB after a 10-message run of 40,000 traffic
// generator / memory blocks).  A `generate:` network counts as one block (not estimated).
#pragma once

#include <cstdint>
#include <string>

#include "core/config_node.h"

namespace trainvp {

class memory_estimate {
public:
    static constexpr std::uint64_t k_bytes_per_block = 16 * 1024;

    // Saturating arithmetic for estimates (this one and run_memory_estimate's): a mutated or
    // absurd count must not wrap around to a small estimate; k_most (2^46 B) stands for "more
    // than any machine".
    static constexpr std::uint64_t k_most = std::uint64_t{1} << 46;
    static std::uint64_t times(std::uint64_t a, std::uint64_t b) {
        if (a == 0 || b == 0) return 0;
        return a > k_most / b ? k_most : a * b;
    }
    static std::uint64_t plus(std::uint64_t a, std::uint64_t b) {
        return a >= k_most || b >= k_most - a ? k_most : a + b;
    }

    // COMPONENTS: the document's `components:` map; TEMPLATES: its `templates:` map (or nil).
    memory_estimate(const config_node& components, const config_node& templates);

    std::uint64_t blocks() const { return m_blocks; }
    std::uint64_t bytes() const { return m_blocks * k_bytes_per_block; }
    // The top-level component that builds the most blocks: the knob that reduces the estimate.
    const std::string& largest() const { return m_largest; }
    const source_loc& largest_loc() const { return m_largest_loc; }
    std::uint64_t largest_count() const { return m_largest_count; }  // its count: (1 if none)

    // MemAvailable of /proc/meminfo in bytes, or 0 when it cannot be read.
    static std::uint64_t available_memory();

private:
    std::uint64_t blocks_of(const config_node& body, int depth) const;

    const config_node& m_templates;
    std::uint64_t m_blocks = 0;
    std::string m_largest;
    source_loc m_largest_loc;
    std::uint64_t m_largest_count = 1;
};

}  // namespace trainvp
