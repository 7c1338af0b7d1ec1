// The `after` of an op (ops::op): the indices of the earlier ops it waits for.  A vector with
// room for k_inline indices in place, so that the common op needs no heap block of its own: a
// generated collective's ops wait for at most three (its round's barrier), and a 1024-rank
// ring makes 5 M of them at set-up (workloads/iteration/README.md, "Scale").  More spill to
// the heap.  Pure C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace trainvp::ops {

class dep_list {
public:
    using value_type = std::size_t;
    using size_type = std::size_t;
    using reference = std::size_t&;
    using const_reference = const std::size_t&;
    using iterator = std::size_t*;
    using const_iterator = const std::size_t*;
    static constexpr std::uint32_t k_inline = 3;

    dep_list() noexcept {}
    dep_list(std::initializer_list<std::size_t> l) { assign(l.begin(), l.end()); }
    // Implicit, as a std::vector's `after` was: `o.after = deps` keeps working.
    dep_list(const std::vector<std::size_t>& v) { assign(v.data(), v.data() + v.size()); }
    dep_list(const dep_list& o) { assign(o.begin(), o.end()); }
    dep_list(dep_list&& o) noexcept { steal(o); }
    ~dep_list() { release(); }

    dep_list& operator=(const dep_list& o) {
        if (this != &o) assign(o.begin(), o.end());
        return *this;
    }
    dep_list& operator=(dep_list&& o) noexcept {
        if (this != &o) {
            release();
            steal(o);
        }
        return *this;
    }
    dep_list& operator=(std::initializer_list<std::size_t> l) {
        assign(l.begin(), l.end());
        return *this;
    }
    dep_list& operator=(const std::vector<std::size_t>& v) {
        assign(v.data(), v.data() + v.size());
        return *this;
    }

    // Replaces the contents with [first, last) (which must not point into this list).
    void assign(const std::size_t* first, const std::size_t* last) {
        const auto n = static_cast<std::size_t>(last - first);
        m_size = 0;
        if (n > m_capacity) grow(n);
        std::size_t* d = data();
        for (std::size_t k = 0; k < n; ++k) d[k] = first[k];
        m_size = static_cast<std::uint32_t>(n);
    }
    void push_back(std::size_t v) {
        if (m_size == m_capacity) grow(static_cast<std::size_t>(m_size) + 1);
        data()[m_size++] = v;
    }
    void reserve(std::size_t n) {
        if (n > m_capacity) grow(n);
    }
    // Shrinks to n (n <= size()): the erase of std::unique's tail.
    void truncate(std::size_t n) {
        if (n < m_size) m_size = static_cast<std::uint32_t>(n);
    }
    void clear() { m_size = 0; }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    std::size_t* data() { return on_heap() ? m_heap : m_inline; }
    const std::size_t* data() const { return on_heap() ? m_heap : m_inline; }
    iterator begin() { return data(); }
    iterator end() { return data() + m_size; }
    const_iterator begin() const { return data(); }
    const_iterator end() const { return data() + m_size; }
    std::size_t& operator[](std::size_t k) { return data()[k]; }
    std::size_t operator[](std::size_t k) const { return data()[k]; }
    std::size_t front() const { return data()[0]; }
    std::size_t back() const { return data()[m_size - 1]; }

    std::vector<std::size_t> to_vector() const { return {begin(), end()}; }

private:
    bool on_heap() const { return m_capacity > k_inline; }
    // Room for at least n, contents kept.
    void grow(std::size_t n);
    void release() {
        if (on_heap()) delete[] m_heap;
        m_capacity = k_inline;
        m_size = 0;
    }
    void steal(dep_list& o) noexcept {
        m_size = o.m_size;
        m_capacity = o.m_capacity;
        if (o.on_heap()) {
            m_heap = o.m_heap;
        } else {
            for (std::uint32_t k = 0; k < m_size; ++k) m_inline[k] = o.m_inline[k];
        }
        o.m_size = 0;
        o.m_capacity = k_inline;
    }

    union {
        std::size_t m_inline[k_inline];
        std::size_t* m_heap;
    };
    std::uint32_t m_size = 0;
    std::uint32_t m_capacity = k_inline;
};

bool operator==(const dep_list& a, const dep_list& b);
bool operator==(const dep_list& a, const std::vector<std::size_t>& b);
inline bool operator==(const std::vector<std::size_t>& a, const dep_list& b) { return b == a; }
inline bool operator!=(const dep_list& a, const dep_list& b) { return !(a == b); }
inline bool operator!=(const dep_list& a, const std::vector<std::size_t>& b) { return !(a == b); }
inline bool operator!=(const std::vector<std::size_t>& a, const dep_list& b) { return !(b == a); }

}  // namespace trainvp::ops
