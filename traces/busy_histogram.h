// Busy time of one resource over simulated time, in a fixed number of buckets whose width
// doubles (merging pairs) whenever a reservation ends past the last one, so it costs the same
// for a microsecond run and an hour.  What the run summary's bottlenecks need: how busy a
// resource was during the iteration's compute and communication phases, which a run-long
// utilisation hides (a link 1 % busy over the run may be 98 % busy while gradients move).
#pragma once

#include <cstdint>
#include <vector>

namespace trainvp {

class busy_histogram {
public:
    static constexpr std::size_t k_buckets = 1024;
    static constexpr std::uint64_t k_first_width_ps = 1000000;  // 1 us

    busy_histogram() : m_busy(k_buckets, 0.0) {}

    // Counts [start, end) as busy.
    void add(std::uint64_t start_ps, std::uint64_t end_ps);
    std::uint64_t width_ps() const { return m_width; }
    // Busy ps per bucket, the grid coarsened to `width` (a multiple of width_ps() by a power
    // of two, e.g. the widest of several histograms).
    std::vector<double> at_width(std::uint64_t width) const;

private:
    void grow(std::uint64_t end_ps);
    std::uint64_t m_width = k_first_width_ps;
    std::vector<double> m_busy;
};

}  // namespace trainvp
