#include "workloads/ops/dep_list.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace trainvp::ops {

void dep_list::grow(std::size_t n) {
    if (n > std::numeric_limits<std::uint32_t>::max() / 2) {
        throw std::length_error("dep_list: an op waits for too many ops");
    }
    const std::size_t capacity = std::max<std::size_t>(n, 2 * static_cast<std::size_t>(m_capacity));
    auto* heap = new std::size_t[capacity];
    std::copy(begin(), end(), heap);
    if (on_heap()) delete[] m_heap;
    m_heap = heap;
    m_capacity = static_cast<std::uint32_t>(capacity);
}

bool operator==(const dep_list& a, const dep_list& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

bool operator==(const dep_list& a, const std::vector<std::size_t>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace trainvp::ops
