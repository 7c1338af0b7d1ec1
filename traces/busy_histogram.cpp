#include "traces/busy_histogram.h"

#include <algorithm>

namespace trainvp {

void busy_histogram::grow(std::uint64_t end_ps) {
    while (end_ps > m_width * k_buckets) {
        for (std::size_t i = 0; i < k_buckets / 2; ++i)
            m_busy[i] = m_busy[2 * i] + m_busy[2 * i + 1];
        std::fill(m_busy.begin() + k_buckets / 2, m_busy.end(), 0.0);
        m_width *= 2;
    }
}

void busy_histogram::add(std::uint64_t start_ps, std::uint64_t end_ps) {
    if (end_ps <= start_ps) return;
    grow(end_ps);
    std::size_t b = static_cast<std::size_t>(start_ps / m_width);
    std::uint64_t t = start_ps;
    while (t < end_ps) {
        const std::uint64_t bucket_end = (static_cast<std::uint64_t>(b) + 1) * m_width;
        const std::uint64_t upto = std::min(end_ps, bucket_end);
        m_busy[b] += static_cast<double>(upto - t);
        t = upto;
        ++b;
    }
}

std::vector<double> busy_histogram::at_width(std::uint64_t width) const {
    std::vector<double> out(k_buckets, 0.0);
    const std::uint64_t merge = width / m_width;  // a power of two >= 1
    for (std::size_t i = 0; i < k_buckets; ++i) out[i / merge] += m_busy[i];
    return out;
}

}  // namespace trainvp
