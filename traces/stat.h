// Statistic value types.  Modules hold them as members and declare them (name, unit,
// description) in their type declaration; the writers find them through those declarations.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace trainvp {

// A count of events or bytes.
class counter {
public:
    counter& operator++() {
        ++m_value;
        return *this;
    }
    counter& operator+=(std::uint64_t n) {
        m_value += n;
        return *this;
    }
    std::uint64_t value() const { return m_value; }
    void reset() { m_value = 0; }

private:
    std::uint64_t m_value = 0;
};

// A real-valued quantity that is set or accumulated (busy time, an end time, a ratio).
class scalar {
public:
    void set(double v) { m_value = v; }
    void add(double v) { m_value += v; }
    double value() const { return m_value; }
    void reset() { m_value = 0.0; }

private:
    double m_value = 0.0;
};

// Samples summarised as count, mean, min and max (latencies, queue depths).
class distribution {
public:
    void sample(double v) {
        ++m_count;
        m_sum += v;
        m_min = std::min(m_min, v);
        m_max = std::max(m_max, v);
    }
    std::uint64_t count() const { return m_count; }
    double sum() const { return m_sum; }
    double mean() const { return m_count ? m_sum / static_cast<double>(m_count) : 0.0; }
    double min() const { return m_count ? m_min : 0.0; }
    double max() const { return m_count ? m_max : 0.0; }
    void reset() { *this = distribution(); }

private:
    std::uint64_t m_count = 0;
    double m_sum = 0.0;
    double m_min = std::numeric_limits<double>::infinity();
    double m_max = -std::numeric_limits<double>::infinity();
};

}  // namespace trainvp
