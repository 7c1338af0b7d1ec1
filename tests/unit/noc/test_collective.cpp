// Collective schedules run on the NoC: aries.md Table I's synchronisation steps and links on
// 4x4 and 8x8, and a ring's time against its closed form.
//
// Table I (aries.md §II-D, all-reduce on a sqrt(N) x sqrt(N) torus):
//   ring:        N links,        synchronisation latency N - 1
//   2D ring:     2N links,       2 (sqrt(N) - 1)
//   binary tree: 2 (N - 1) links
//   multi-tree:  4 (N - 1) links (K = 4 trees)
//   ARIES:       synchronisation latency min(log_4 N/4, L (N^(1/4) - 1)): the concentrated
//                multi-tree's tree height (first term) and the hierarchical ring (second)
// "Synchronisation latency" is the reduce-scatter's round count (the rounds in which
// gradients are accumulated); a round is a step group every rank walks through on the NoC,
// so the run's rounds are 2x that (reduce-scatter + all-gather).  Links for the ring and 2D
// ring are physical channels that carried flits (ring neighbours are placed on neighbouring
// routers); for the trees Table I counts tree edges (logical links), which DOR spreads over
// multi-hop paths on the grid, so the test counts the trees' edges and checks that the
// messages on the NoC flowed on exactly those edges.  The binary- and multi-tree latency entries
// (sqrt(N) - 1) are torus hop counts, not schedule rounds (workloads/collectives/README.md), and
// are not asserted.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "noc/collective/aries_ring_plan.h"
#include "noc/collective/aries_tree_plan.h"
#include "noc/collective/collective_traffic.h"
#include "noc/network/noc_network.h"
#include "noc/topology/dependency_check.h"
#include "workloads/collectives/collectives.h"

namespace trainvp::noc {
namespace {

struct collective_result {
    std::uint64_t cycles = 0;
    std::size_t rounds = 0, channels = 0;
    std::set<std::pair<int, int>> undirected;  // router pairs that exchanged a message
};

collective_result run(const noc_topology& t, const collectives::schedule& s,
                      const std::vector<int>& mapping, const network_config& cfg = {},
                      const route_table* table = nullptr) {
    auto rt = table ? *table : route_table::dimension_order(t);
    noc_network net(t, rt, cfg);
    collective_traffic c(s, mapping, cfg.flit_bytes, 8);
    c.split_over_variants(table != nullptr);
    std::set<std::pair<int, int>> pairs;  // row-major mapping in the tree test: router = rank
    c.attach(net);
    auto deliver = net.on_delivered;
    net.on_delivered = [&](const noc_packet& p, std::uint64_t at) {
        pairs.insert({std::min(p.src, p.dst), std::max(p.src, p.dst)});
        deliver(p, at);
    };
    net.set_source(&c);
    net.run_until(100000000);
    EXPECT_TRUE(c.done()) << c.pending();
    EXPECT_TRUE(net.idle());
    return {c.finish_cycle(), c.rounds(), net.channels_used(), pairs};
}

TEST(ring_mapping, is_a_hamiltonian_cycle_of_the_mesh) {
    for (int k : {2, 4, 8}) {
        auto m = ring_mapping(k);
        ASSERT_EQ(m.size(), std::size_t(k * k));
        EXPECT_EQ(std::set<int>(m.begin(), m.end()).size(), m.size());
        for (std::size_t i = 0; i < m.size(); ++i) {
            const int a = m[i], b = m[(i + 1) % m.size()];
            EXPECT_EQ(std::abs(a % k - b % k) + std::abs(a / k - b / k), 1) << k << " " << i;
        }
    }
}

TEST(table_1, ring_uses_n_links_and_n_minus_1_synchronisation_steps) {
    for (int k : {4, 8}) {
        const int n = k * k;
        for (auto t : {noc_topology::torus(k, true), noc_topology::mesh(k)}) {
            const auto r = run(t, collectives::ring_allreduce(n, 64 * n), ring_mapping(k));
            EXPECT_EQ(r.channels, std::size_t(n));
            EXPECT_EQ(r.rounds, std::size_t(2 * (n - 1)));  // reduce-scatter: N - 1
        }
    }
}

TEST(table_1, ring_2d_uses_2n_links_and_2_sqrt_n_minus_1_steps) {
    for (int k : {4, 8}) {
        const int n = k * k;
        const auto r = run(noc_topology::torus(k, true), collectives::ring_2d(k, k, 64 * n),
                           row_major_mapping(k));
        EXPECT_EQ(r.channels, std::size_t(2 * n));
        EXPECT_EQ(r.rounds, std::size_t(2 * 2 * (k - 1)));  // reduce-scatter: 2 (sqrt N - 1)
    }
}

TEST(table_1, trees_use_2_and_4_times_n_minus_1_links) {
    // Table I counts tree edges: K trees of N - 1 edges (K = 2 for the double binary tree,
    // K = 4 for its multi-tree row).  On the NoC, messages must flow on exactly the trees'
    // edges (up in the reduce, down in the broadcast).
    auto edges_of = [](const std::vector<collectives::spanning_tree>& trees, std::size_t& count) {
        std::set<std::pair<int, int>> e;
        count = 0;
        for (const auto& t : trees) {
            for (std::size_t i = 0; i < t.parent.size(); ++i) {
                if (t.parent[i] < 0) continue;
                ++count;
                const int a = static_cast<int>(i), b = t.parent[i];
                e.insert({std::min(a, b), std::max(a, b)});
            }
        }
        return e;
    };
    for (int k : {4, 8}) {
        const int n = k * k;
        auto t = noc_topology::torus(k, true);
        for (int trees : {2, 4}) {
            const auto spanning = trees == 2 ? collectives::double_binary_trees(n)
                                             : collectives::rotated_trees(n, 4, 2);
            std::size_t count = 0;
            const auto edges = edges_of(spanning, count);
            EXPECT_EQ(count, std::size_t(trees * (n - 1)));  // Table I
            const auto s = trees == 2 ? collectives::double_binary_tree(n, 64 * n)
                                      : collectives::multi_tree(spanning, 64 * n);
            const auto r = run(t, s, row_major_mapping(k));
            EXPECT_EQ(r.undirected, edges);
        }
    }
}

TEST(table_1, hierarchical_ring_takes_l_times_root_l_of_n_minus_1_steps) {
    // aries.md §IV-A-2: L (N^(1/L) - 1) reduce-scatter steps (the ARIES row's L-level term).
    for (auto [k, levels] : {std::pair{4, 2}, {4, 4}, {8, 2}, {8, 3}, {8, 6}}) {
        const int n = k * k;
        const int g = static_cast<int>(std::lround(std::pow(n, 1.0 / levels)));
        const auto r = run(noc_topology::mesh(k), collectives::hierarchical_ring(n, levels, 64 * n),
                           row_major_mapping(k));
        EXPECT_EQ(r.rounds, std::size_t(2 * levels * (g - 1))) << k << " L=" << levels;
    }
}

TEST(table_1, aries_concentrated_multi_tree_height_is_log4_of_n_over_4) {
    // Table I's ARIES row: synchronisation latency min(log_4 N/4, L (N^(1/4) - 1)); its first
    // term is the height of the 4-ary trees over the N/4 concentrated nodes (§IV-B-2).  On the
    // NoC the concentrated multi-tree (D = 4, bypass plan `tree`) walks 1 + log_4(N/4)
    // reduce rounds (the extra one: into the concentrators) and as many back: 4 on 4x4, 6 on
    // 8x8.
    for (int k : {4, 8}) {
        const int n = k * k;
        const int height = k == 4 ? 1 : 2;  // log_4(N/4)
        const auto s = collectives::concentrated_multi_tree(k, k, 64 * n, 0, 4);
        const auto plan = plan_tree_bypass(k, message_pairs(s, row_major_mapping(k)));
        const auto t = noc_topology::aries(k, plan.segments);
        const auto r = run(t, s, row_major_mapping(k), {}, &plan.routes);
        EXPECT_EQ(r.rounds, std::size_t(2 * (1 + height)));
    }
}

TEST(collective_on_noc, ring_time_is_rounds_times_a_one_hop_message) {
    // Ring on the mesh with ring neighbours one hop apart, rounds in lockstep: each of the
    // 2(N - 1) rounds moves one block of B bytes = ceil(B / 68) flits in P packets over one
    // link, so a round lasts the zero-load time of one hop, (s + L) + s, plus the flits
    // streaming one per cycle: T_round = (s + L) + s + (F - 1) + 1 (the next round starts the
    // cycle after the last delivery), with no contention (each link carries one block per
    // round).  Exact.
    const int k = 4, n = 16;
    const std::uint64_t elements = 16 * 17 * 8;  // a block of 136 floats = 544 B = 8 flits
    network_config cfg;
    const auto r =
        run(noc_topology::mesh(k), collectives::ring_allreduce(n, elements), ring_mapping(k), cfg);
    const std::uint64_t f = 8, s = 2, l = 10;
    const std::uint64_t round = (s + l) + s + (f - 1) + 1;
    EXPECT_EQ(r.cycles, 2 * (n - 1) * round - 1);
}

}  // namespace
}  // namespace trainvp::noc

namespace trainvp::noc {
namespace {

TEST(aries_bandwidth_ring, a_bypass_segment_doubles_every_ring_edge) {
    // aries.md §IV-A-1: "2N links are used"; with the local port injecting and ejecting two
    // flits per cycle the two links of an edge stream in parallel, so a round of a block of
    // P packets of 8 flits lasts (s + L) + s + (8 P / 2 - 1) + 1 instead of
    // (s + L) + s + (8 P - 1) + 1 (the derivation of ring_time_is_rounds_times_a_one_hop_message).
    for (int k : {4, 8}) {
        const int n = k * k;
        const auto ring = ring_mapping(k);
        auto t = noc_topology::aries(k, bandwidth_ring_segments(k, ring));
        const auto rt = ring_route_table(t, ring);
        EXPECT_EQ(find_dependency_cycle(t, rt), "");
        const std::uint64_t elements = std::uint64_t(n) * 16 * 8 * 17;  // block: 16 packets
        network_config cfg;
        cfg.local_port_width = 2;
        const auto bw = run(t, collectives::ring_allreduce(n, elements), ring, cfg, &rt);
        EXPECT_EQ(bw.channels, std::size_t(2 * n));
        EXPECT_EQ(bw.cycles, std::uint64_t(2 * (n - 1) * (14 + 63 + 1) - 1));
        const auto mesh =
            run(noc_topology::mesh(k), collectives::ring_allreduce(n, elements), ring);
        EXPECT_EQ(mesh.channels, std::size_t(n));
        EXPECT_EQ(mesh.cycles, std::uint64_t(2 * (n - 1) * (14 + 127 + 1) - 1));
    }
}

}  // namespace
}  // namespace trainvp::noc
