// traces/busy_histogram.h: busy time per bucket, the grid doubling to fit, coarsened exactly.
#include <gtest/gtest.h>

#include <numeric>

#include "traces/busy_histogram.h"

namespace trainvp {
namespace {

TEST(busy_histogram, splits_intervals_over_buckets_and_doubles_its_width_to_fit) {
    busy_histogram h;
    const std::uint64_t us = 1000000;
    h.add(0, us / 2);       // half of bucket 0
    h.add(us / 2, 3 * us);  // the rest of bucket 0, buckets 1 and 2
    EXPECT_EQ(h.width_ps(), us);
    auto b = h.at_width(us);
    EXPECT_DOUBLE_EQ(b[0], 1.0 * us);
    EXPECT_DOUBLE_EQ(b[1], 1.0 * us);
    EXPECT_DOUBLE_EQ(b[2], 1.0 * us);
    EXPECT_DOUBLE_EQ(b[3], 0.0);
    // Past 1024 us the width doubles (then 4 us, ...): nothing is lost.
    h.add(3000 * us, 3001 * us);
    EXPECT_EQ(h.width_ps(), 4 * us);
    b = h.at_width(4 * us);
    EXPECT_DOUBLE_EQ(b[0], 3.0 * us);
    EXPECT_DOUBLE_EQ(b[750], 1.0 * us);
    EXPECT_DOUBLE_EQ(std::accumulate(b.begin(), b.end(), 0.0), 4.0 * us);
    // Coarser still, as another histogram's grid may be.
    b = h.at_width(16 * us);
    EXPECT_DOUBLE_EQ(b[0], 3.0 * us);
    EXPECT_DOUBLE_EQ(b[187], 1.0 * us);
    h.add(5, 5);  // empty
    EXPECT_DOUBLE_EQ(std::accumulate(b.begin(), b.end(), 0.0), 4.0 * us);
}

}  // namespace
}  // namespace trainvp
