// flat_queue: a FIFO in one array that reclaims its dropped front.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <iterator>
#include <string>

#include "kit/flat_queue.h"

namespace trainvp {
namespace {

TEST(flat_queue, behaves_as_a_deque_used_as_a_fifo) {
    flat_queue<std::string> q;
    std::deque<std::string> ref;
    // Pushes and drops interleaved past the reclaim threshold many times over, with the
    // front checked and every element indexed after each step.
    std::size_t next = 0;
    for (int round = 0; round < 200; ++round) {
        const std::size_t pushes = 1 + (round * 7) % 53;
        for (std::size_t k = 0; k < pushes; ++k) {
            q.push_back(std::to_string(next));
            ref.push_back(std::to_string(next));
            ++next;
        }
        const std::size_t drops = std::min(ref.size(), static_cast<std::size_t>((round * 5) % 61));
        if (round % 3 == 0) {
            q.drop_front(drops);
            ref.erase(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(drops));
        } else {
            for (std::size_t k = 0; k < drops; ++k) {
                q.pop_front();
                ref.pop_front();
            }
        }
        ASSERT_EQ(q.size(), ref.size()) << "round " << round;
        ASSERT_EQ(q.empty(), ref.empty());
        if (!ref.empty()) {
            ASSERT_EQ(q.front(), ref.front());
        }
        for (std::size_t k = 0; k < ref.size(); ++k) {
            ASSERT_EQ(q[k], ref[k]) << round << " " << k;
        }
        if (!ref.empty()) {
            ASSERT_EQ(q.back(), ref.back());
        }
        // Iteration runs from the front, as the deque's does, const or not.
        ASSERT_TRUE(std::equal(q.begin(), q.end(), ref.begin(), ref.end())) << round;
        const flat_queue<std::string>& cq = q;
        ASSERT_EQ(static_cast<std::size_t>(std::distance(cq.begin(), cq.end())), ref.size());
    }
    ASSERT_FALSE(ref.empty());
    for (std::string& v : q) v += "!";
    EXPECT_EQ(q.front(), ref.front() + "!");
    EXPECT_EQ(q.back(), ref.back() + "!");
    q.clear();
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.size(), 0u);
    q.drop_front(q.size());
    EXPECT_TRUE(q.empty());
    q.push_back("x");
    EXPECT_EQ(q.front(), "x");
}

}  // namespace
}  // namespace trainvp
