// A FIFO in one contiguous array: push at the back, drop from the front, index from the
// front.  The dropped front is reclaimed once it is at least half of the array (amortised
// O(1) per element), so a queue that streams millions of elements through stays as large as
// its live part.  Unlike std::deque, reaching an element is one load, not two: host.cpu's op
// window is read once per op of every host at scale, where each dependent load is a cache miss
// (docs/performance.md).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace trainvp {

template <typename T>
class flat_queue {
public:
    bool empty() const { return m_head == m_items.size(); }
    std::size_t size() const { return m_items.size() - m_head; }
    T& front() { return m_items[m_head]; }
    const T& front() const { return m_items[m_head]; }
    T& back() { return m_items.back(); }
    const T& back() const { return m_items.back(); }
    T& operator[](std::size_t k) { return m_items[m_head + k]; }
    const T& operator[](std::size_t k) const { return m_items[m_head + k]; }
    // Iterators from the front; push_back and drop_front invalidate them.
    typename std::vector<T>::const_iterator begin() const {
        return m_items.begin() + static_cast<std::ptrdiff_t>(m_head);
    }
    typename std::vector<T>::const_iterator end() const { return m_items.end(); }
    typename std::vector<T>::iterator begin() {
        return m_items.begin() + static_cast<std::ptrdiff_t>(m_head);
    }
    typename std::vector<T>::iterator end() { return m_items.end(); }
    // By reference: a cache-line-aligned T passed by value draws GCC's -Wpsabi note.
    void push_back(const T& v) { m_items.push_back(v); }
    void push_back(T&& v) { m_items.push_back(std::move(v)); }
    void pop_front() { drop_front(1); }
    // Drops the first n (at most size()) elements.
    void drop_front(std::size_t n) {
        m_head += n;
        if (m_head == m_items.size()) {
            m_items.clear();
            m_head = 0;
        } else if (m_head >= k_min_reclaim && 2 * m_head >= m_items.size()) {
            m_items.erase(m_items.begin(), m_items.begin() + static_cast<std::ptrdiff_t>(m_head));
            m_head = 0;
        }
    }
    void clear() {
        m_items.clear();
        m_head = 0;
    }
    void reserve_more(std::size_t n) { m_items.reserve(m_items.size() + n); }

private:
    static constexpr std::size_t k_min_reclaim = 64;
    std::vector<T> m_items;
    std::size_t m_head = 0;
};

}  // namespace trainvp
