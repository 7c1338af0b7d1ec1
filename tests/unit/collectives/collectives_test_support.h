// Shared helpers for the collective-schedule tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/collectives/collectives.h"

namespace trainvp::collectives::testing {

// Integer-valued inputs, distinct per rank and per element, so sums are exact in double and a
// misplaced, missing or doubled block changes the result.
inline double input_value(int rank, uint64_t element) {
    return static_cast<double>(element % 1009) + 1000.0 * static_cast<double>(rank + 1);
}

template <typename T>
std::vector<std::vector<T>> make_inputs(const schedule& s) {
    std::vector<std::vector<T>> buffers(static_cast<std::size_t>(s.ranks));
    for (int r = 0; r < s.ranks; ++r) {
        auto& b = buffers[static_cast<std::size_t>(r)];
        b.resize(s.elements);
        // Non-contributing ranks get garbage: execute() must zero it.
        for (uint64_t e = 0; e < s.elements; ++e) {
            b[e] = s.contributes[static_cast<std::size_t>(r)] ? static_cast<T>(input_value(r, e))
                                                              : static_cast<T>(-12345.0);
        }
    }
    return buffers;
}

template <typename T>
std::vector<T> expected_sum(const schedule& s) {
    std::vector<T> sum(s.elements, T{});
    for (int r = 0; r < s.ranks; ++r) {
        if (!s.contributes[static_cast<std::size_t>(r)]) continue;
        for (uint64_t e = 0; e < s.elements; ++e) sum[e] += static_cast<T>(input_value(r, e));
    }
    return sum;
}

// Runs `s` and checks every rank holds exactly the sum; returns the executor's counters.
template <typename T>
std::vector<rank_counters> run_and_check(const schedule& s) {
    auto buffers = make_inputs<T>(s);
    const std::vector<T> want = expected_sum<T>(s);
    const auto counters = execute(s, buffers);
    for (int r = 0; r < s.ranks; ++r) {
        const auto& got = buffers[static_cast<std::size_t>(r)];
        for (uint64_t e = 0; e < s.elements; ++e) {
            if (got[e] != want[e]) {
                ADD_FAILURE() << s.algorithm << " N=" << s.ranks << " elements=" << s.elements
                              << ": rank " << r << " element " << e << " is " << got[e] << ", want "
                              << want[e];
                return counters;
            }
        }
    }
    return counters;
}

// Runs `s` on inputs distinct per rank and element (rank * 10^6 + element + 1: exact in
// double, so any misplaced, missing or doubled element changes a checked value) and checks
// the exact result that `result` promises (result_check.h) over `members` (all ranks when
// empty).  Returns the executor's counters.
inline std::vector<rank_counters> run_and_check_result(const schedule& s, collective_result result,
                                                       int root = 0,
                                                       const std::vector<int>& members = {}) {
    std::vector<std::vector<double>> in(static_cast<std::size_t>(s.ranks),
                                        std::vector<double>(s.elements));
    for (int r = 0; r < s.ranks; ++r) {
        for (uint64_t e = 0; e < s.elements; ++e) {
            in[static_cast<std::size_t>(r)][e] = 1e6 * r + static_cast<double>(e) + 1;
        }
    }
    std::vector<std::vector<double>> out = in;
    const auto counters = execute(s, out);
    const std::string error = members.empty() ? check_result(s, result, root, in, out)
                                              : check_result(s, result, root, members, in, out);
    EXPECT_EQ(error, "") << s.algorithm << " N=" << s.ranks << " root " << root;
    return counters;
}

// Elements in block j of partition(n, parts).
inline uint64_t block_size(uint64_t n, uint64_t parts, uint64_t j) {
    return n / parts + (j < n % parts ? 1 : 0);
}

inline int ceil_log2(int n) {
    int k = 0;
    while ((1 << k) < n) ++k;
    return k;
}

inline int floor_log2(int n) {
    int k = 0;
    while ((2 << k) <= n) ++k;
    return k;
}

inline bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// Smallest h with 1 + D + ... + D^h >= n (the height of a D-ary heap of n nodes).
inline int heap_height(int n, int degree) {
    int h = 0;
    long long capacity = 1, level = 1;
    while (capacity < n) {
        level *= degree;
        capacity += level;
        ++h;
    }
    return h;
}

}  // namespace trainvp::collectives::testing
