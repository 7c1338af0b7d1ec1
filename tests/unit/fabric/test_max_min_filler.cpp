// fabric/flow/max_min_filler: max-min fair rates by progressive filling against hand-worked
// allocations (the one allocator of flow_engine and the NoC's message_timing).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "fabric/flow/max_min_filler.h"

namespace trainvp::fabric {
namespace {

// Equal shares of one resource.
TEST(max_min_filler, flows_on_one_resource_share_it_equally) {
    max_min_filler m({9.0});
    m.clear();
    for (int i = 0; i < 3; ++i) {
        m.add_flow(0.0);
        m.use(0);
    }
    const auto& r = m.solve();
    ASSERT_EQ(r.size(), 3u);
    for (double x : r) EXPECT_DOUBLE_EQ(x, 3.0);
}

// The textbook case (Bertsekas & Gallager, Data Networks, §6.5.2): links A (cap 1) and B
// (cap 2); flow 0 uses A and B, flow 1 only A, flow 2 only B.  A saturates first at 1/2 for
// flows 0 and 1; flow 2 then rises to B's remaining 2 - 1/2 = 3/2.
TEST(max_min_filler, a_bottleneck_frees_capacity_elsewhere) {
    max_min_filler m({1.0, 2.0});
    m.clear();
    m.add_flow(0.0);
    m.use(0);
    m.use(1);
    m.add_flow(0.0);
    m.use(0);
    m.add_flow(0.0);
    m.use(1);
    const auto& r = m.solve();
    EXPECT_DOUBLE_EQ(r[0], 0.5);
    EXPECT_DOUBLE_EQ(r[1], 0.5);
    EXPECT_DOUBLE_EQ(r[2], 1.5);
}

// A flow's own cap (a NoC flow's one flit per cycle, a slow link) freezes it below the fair
// share; the others split what it leaves: cap 1 on a 10-wide resource with two more flows
// gives 1, 4.5, 4.5.  A flow with no resources runs at its cap.
TEST(max_min_filler, caps_freeze_flows_early) {
    max_min_filler m({10.0});
    m.clear();
    m.add_flow(1.0);
    m.use(0);
    m.add_flow(0.0);
    m.use(0);
    m.add_flow(0.0);
    m.use(0);
    m.add_flow(2.5);
    const auto& r = m.solve();
    EXPECT_DOUBLE_EQ(r[0], 1.0);
    EXPECT_DOUBLE_EQ(r[1], 4.5);
    EXPECT_DOUBLE_EQ(r[2], 4.5);
    EXPECT_DOUBLE_EQ(r[3], 2.5);
}

// Problems are independent: a second solve does not see the first's flows or left capacity,
// and resources no flow uses are ignored.
TEST(max_min_filler, each_solve_is_a_new_problem) {
    max_min_filler m({4.0, 6.0, 1.0});
    m.clear();
    m.add_flow(0.0);
    m.use(0);
    EXPECT_DOUBLE_EQ(m.solve()[0], 4.0);
    m.clear();
    m.add_flow(0.0);
    m.use(1);
    m.add_flow(0.0);
    m.use(1);
    m.use(0);
    const auto& r = m.solve();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_DOUBLE_EQ(r[0], 3.0);
    EXPECT_DOUBLE_EQ(r[1], 3.0);
    m.clear();
    EXPECT_TRUE(m.solve().empty());
}

TEST(max_min_filler, a_flow_with_neither_resources_nor_cap_is_refused) {
    max_min_filler m({1.0});
    m.clear();
    m.add_flow(0.0);
    EXPECT_THROW(m.solve(), std::logic_error);
}

// Progressive filling written the plain way (every round passes over every flow: the filler
// before session 17): the reference the filler's rounds must reproduce bit for bit.
std::vector<double> plain_filling(const std::vector<double>& capacity,
                                  const std::vector<std::vector<int>>& res,
                                  const std::vector<double>& cap) {
    const double rel = 1e-12;  // max_min_filler's k_rel
    const std::size_t n = res.size();
    std::vector<double> rate(n, 0.0), left(capacity);
    std::vector<int> rising_on(capacity.size(), 0);
    std::vector<bool> frozen(n, false), used(capacity.size(), false);
    for (const auto& r : res) {
        for (int x : r) {
            ++rising_on[static_cast<std::size_t>(x)];
            used[static_cast<std::size_t>(x)] = true;
        }
    }
    std::size_t rising = n;
    double level = 0.0;
    while (rising > 0) {
        double step = std::numeric_limits<double>::infinity();
        for (std::size_t x = 0; x < capacity.size(); ++x) {
            if (used[x] && rising_on[x] > 0) step = std::min(step, left[x] / rising_on[x]);
        }
        for (std::size_t f = 0; f < n; ++f) {
            if (!frozen[f] && cap[f] > 0.0) step = std::min(step, cap[f] - level);
        }
        step = std::max(step, 0.0);
        level += step;
        for (std::size_t x = 0; x < capacity.size(); ++x) {
            if (used[x] && rising_on[x] > 0) left[x] -= step * rising_on[x];
        }
        for (std::size_t f = 0; f < n; ++f) {
            if (frozen[f]) continue;
            bool freeze = cap[f] > 0.0 && level >= cap[f] * (1.0 - rel);
            for (int x : res[f]) {
                const auto ux = static_cast<std::size_t>(x);
                if (left[ux] <= capacity[ux] * rel) freeze = true;
            }
            if (!freeze) continue;
            frozen[f] = true;
            rate[f] = level;
            --rising;
            for (int x : res[f]) --rising_on[static_cast<std::size_t>(x)];
        }
    }
    return rate;
}

// The filler's rounds (only the resources still rising, only the flows they freeze) do the
// plain filling's arithmetic: the same rates bit for bit (EXPECT_EQ on doubles, no tolerance)
// on seeded random problems with shared bottlenecks, equal and distinct caps and repeats.
TEST(max_min_filler, rounds_equal_the_plain_filling_bit_for_bit) {
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> cap_dist(0.25, 4.0);
    std::uniform_int_distribution<int> nres(2, 30), nflows(1, 80), len(1, 5), coin(0, 2);
    for (int problem = 0; problem < 300; ++problem) {
        std::vector<double> capacity(static_cast<std::size_t>(nres(rng)));
        for (auto& c : capacity) c = coin(rng) == 0 ? 1.0 : cap_dist(rng);
        std::uniform_int_distribution<int> pick(0, static_cast<int>(capacity.size()) - 1);
        std::vector<std::vector<int>> res(static_cast<std::size_t>(nflows(rng)));
        std::vector<double> cap;
        max_min_filler m(capacity);
        m.clear();
        for (auto& r : res) {
            for (int k = len(rng); k > 0; --k) {
                const int x = pick(rng);
                if (std::find(r.begin(), r.end(), x) == r.end()) r.push_back(x);
            }
            const int c = coin(rng);
            cap.push_back(c == 0 ? 0.0 : c == 1 ? 1.0 : cap_dist(rng) / 2.0);
            m.add_flow(cap.back());
            for (int x : r) m.use(x);
        }
        const std::vector<double> want = plain_filling(capacity, res, cap);
        const std::vector<double>& got = m.solve();
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t f = 0; f < want.size(); ++f) {
            ASSERT_EQ(got[f], want[f]) << "problem " << problem << " flow " << f;
        }
    }
}

}  // namespace
}  // namespace trainvp::fabric
