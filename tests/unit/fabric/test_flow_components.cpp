// fabric/flow/flow_components: the flows a change touches (connected through shared resources),
// and rates recomputed over those alone against a recomputation over every flow (the shared
// piece of flow_engine and the NoC's message_timing).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "fabric/flow/flow_components.h"
#include "fabric/flow/max_min_filler.h"

namespace trainvp::fabric {
namespace {

// Flows with their resources and caps, rates kept up to date the incremental way.
struct world {
    std::vector<std::vector<int>> res;  // per flow slot (empty: not live)
    std::vector<double> cap;
    std::vector<bool> live;
    std::vector<double> rate;
    flow_components comp;
    max_min_filler filler;
    explicit world(const std::vector<double>& capacity) : comp(capacity.size()), filler(capacity) {}

    std::uint32_t add(std::vector<int> r, double c) {
        const auto f = static_cast<std::uint32_t>(res.size());
        res.push_back(std::move(r));
        cap.push_back(c);
        live.push_back(true);
        rate.push_back(0.0);
        for (int x : res[f]) comp.use(f, x);
        return f;
    }
    void remove(std::uint32_t f) {
        for (int x : res[f]) comp.drop(f, x);
        live[f] = false;
        rate[f] = 0.0;
    }
    // Recomputes the touched component(s); returns the flows recomputed.
    std::vector<std::uint32_t> rebalance() {
        const std::vector<std::uint32_t> c =
            comp.collect([this](std::uint32_t f) -> const std::vector<int>& { return res[f]; });
        filler.clear();
        for (std::uint32_t f : c) {
            filler.add_flow(cap[f]);
            for (int x : res[f]) filler.use(x);
        }
        if (!c.empty()) {
            const auto& r = filler.solve();
            for (std::size_t k = 0; k < c.size(); ++k) rate[c[k]] = r[k];
        }
        return c;
    }
    // Every live flow's rate from one problem of all of them.
    std::vector<double> full() {
        filler.clear();
        std::vector<std::uint32_t> order;
        for (std::uint32_t f = 0; f < res.size(); ++f) {
            if (!live[f]) continue;
            order.push_back(f);
            filler.add_flow(cap[f]);
            for (int x : res[f]) filler.use(x);
        }
        std::vector<double> out(res.size(), 0.0);
        if (order.empty()) return out;
        const auto& r = filler.solve();
        for (std::size_t k = 0; k < order.size(); ++k) out[order[k]] = r[k];
        return out;
    }
};

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

// Two groups that share no resource: group A (flows on resources 0-1) and group B (flows on
// resources 2-3).  A new flow on resource 0 touches A only: A is recomputed and B's rates are
// left as they were, which are still its max-min fair rates.
TEST(flow_components, a_change_in_one_group_leaves_a_disjoint_group_alone) {
    world w({4.0, 10.0, 6.0, 6.0});
    const auto a0 = w.add({0, 1}, 0.0), a1 = w.add({0}, 0.0);
    const auto b0 = w.add({2, 3}, 0.0), b1 = w.add({3}, 1.0);
    EXPECT_EQ(sorted(w.rebalance()), (std::vector<std::uint32_t>{a0, a1, b0, b1}));
    // A: resource 0 (4) split two ways, 2 each.  B: b1 capped at 1, b0 takes 6 - 1 = 5.
    EXPECT_DOUBLE_EQ(w.rate[a0], 2.0);
    EXPECT_DOUBLE_EQ(w.rate[a1], 2.0);
    EXPECT_DOUBLE_EQ(w.rate[b0], 5.0);
    EXPECT_DOUBLE_EQ(w.rate[b1], 1.0);
    const double b0_before = w.rate[b0], b1_before = w.rate[b1];
    const auto a2 = w.add({0}, 0.0);
    // Only A's flows are recomputed: resource 0 (4) three ways, 4/3 each.
    EXPECT_EQ(sorted(w.rebalance()), (std::vector<std::uint32_t>{a0, a1, a2}));
    for (auto f : {a0, a1, a2}) EXPECT_DOUBLE_EQ(w.rate[f], 4.0 / 3.0);
    // B untouched, bit for bit, and still what a recomputation of everything gives.
    EXPECT_EQ(w.rate[b0], b0_before);
    EXPECT_EQ(w.rate[b1], b1_before);
    const auto all = w.full();
    EXPECT_DOUBLE_EQ(all[b0], 5.0);
    EXPECT_DOUBLE_EQ(all[b1], 1.0);
    // A flow leaving B touches B only.
    w.remove(b1);
    EXPECT_EQ(w.rebalance(), (std::vector<std::uint32_t>{b0}));
    EXPECT_DOUBLE_EQ(w.rate[b0], 6.0);
    // Nothing touched: nothing recomputed.
    EXPECT_FALSE(w.comp.touched());
    EXPECT_TRUE(w.rebalance().empty());
}

// Components are transitive: a chain of flows, each sharing a resource with the next, is one
// component however far the touched resource is from its other end.
TEST(flow_components, a_chain_of_shared_resources_is_one_component) {
    world w({1.0, 1.0, 1.0, 1.0, 1.0});
    std::vector<std::uint32_t> chain;
    for (int r = 0; r < 4; ++r) chain.push_back(w.add({r, r + 1}, 0.0));
    w.rebalance();
    const auto tail = w.add({4}, 0.0);
    chain.push_back(tail);
    EXPECT_EQ(sorted(w.rebalance()), sorted(chain));
    EXPECT_EQ(w.comp.users(4), (std::vector<std::uint32_t>{chain[3], tail}));
}

// Random flows over random resources, added and removed one at a time (seeded): the rates the
// incremental recomputation keeps equal those of a recomputation of every flow.  Tolerance: a
// relative 1e-12.  Max-min fair rates are unique, but progressive filling over a component
// alone takes fewer, larger steps than over every flow, so its levels are sums of different
// doubles; each round rounds once (at most ~1 ulp of the level), and there are at most as many
// rounds as flows (<= 60 here), so the two differ by ~1e-14 relative at most.
TEST(flow_components, incremental_rates_equal_a_full_recomputation) {
    std::mt19937 rng(25);
    const int resources = 40;
    std::vector<double> capacity;
    std::uniform_real_distribution<double> cap_dist(0.5, 8.0);
    for (int r = 0; r < resources; ++r) capacity.push_back(cap_dist(rng));
    world w(capacity);
    std::uniform_int_distribution<int> pick_res(0, resources - 1), len(1, 4), coin(0, 3);
    std::vector<std::uint32_t> alive;
    std::size_t recomputed = 0, steps = 0, exact = 0, compared = 0;
    for (int step = 0; step < 600; ++step) {
        if (alive.size() < 60 && (alive.size() < 5 || coin(rng) != 0)) {
            std::vector<int> r;
            for (int k = len(rng); k > 0; --k) {
                const int x = pick_res(rng);
                if (std::find(r.begin(), r.end(), x) == r.end()) r.push_back(x);
            }
            const double cap = coin(rng) == 0 ? cap_dist(rng) / 4.0 : 0.0;
            alive.push_back(w.add(r, cap));
        } else {
            std::uniform_int_distribution<std::size_t> which(0, alive.size() - 1);
            const std::size_t k = which(rng);
            w.remove(alive[k]);
            alive.erase(alive.begin() + static_cast<std::ptrdiff_t>(k));
        }
        recomputed += w.rebalance().size();
        ++steps;
        const auto all = w.full();
        for (std::uint32_t f : alive) {
            ASSERT_NEAR(w.rate[f], all[f], 1e-12 * all[f]) << "step " << step << " flow " << f;
            exact += w.rate[f] == all[f];
            ++compared;
        }
    }
    // The point of it: fewer flows recomputed than live (40 resources split them into several
    // components), and most rates equal bit for bit anyway.
    EXPECT_LT(recomputed, compared);
    EXPECT_GT(exact, compared * 9 / 10);
    (void)steps;
}

}  // namespace
}  // namespace trainvp::fabric
