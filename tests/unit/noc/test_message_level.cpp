// Message level (noc/network/message_timing) against the flit level it abstracts.
//
// Zero load: one message of F flits over H hops is delivered at H (s + L) + s + (F - 1) at both
// levels (the closed form of tests/unit/noc/test_network.cpp), to the cycle.
//
// Collectives: the completion time of ring, DB-T and MT all-reduces at message level against
// flit level, and the event counts energy is computed from.  Tolerances, with their reasons:
//  - ring on a mesh: exact.  Every ring step moves one message per channel; nothing is shared.
//  - ARIES bandwidth ring: 3 %.  The two halves of a message share the injection and ejection
//    ports; the flit level interleaves their 8-flit packets, the message level shares fluidly.
//  - DB-T: 7 %.  Messages share channels; the message level shares them max-min fairly, the
//    flit level by round-robin switch allocation over 8-flit packets with 4 VCs and 32-flit
//    buffers, whose head-of-line blocking it does not model (measured: -6.2 % .. +0.3 %).
//  - MT: 35 % up to 512 KiB, and the message level is the faster in large messages.  With one
//    tree per rank dozens of flows cross each router; the flit level's separable allocator and
//    VC/buffer blocking lose throughput that max-min fair sharing does not (measured: +2.2 %
//    and +5.2 % at 64 KiB on 4x4 and 8x8, -18.5 % and -38.4 % at 2 MiB; session 18, after the
//    fix of wake-ups between flow events).  The 3 % the design asks for is NOT met for MT:
//    message-level MT times are optimistic for large messages.
//  Energy: buffer writes and reads, crossbar traversals, switch allocations, flit hops and
//  link length are equal exactly (the same flits cross the same routers); VC allocations are
//  per 8-flit packet at both levels and equal unless a message is split in two halves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "noc/collective/aries_ring_plan.h"
#include "noc/collective/collective_traffic.h"
#include "noc/network/noc_network.h"
#include "workloads/collectives/collectives.h"

namespace trainvp::noc {
namespace {

struct outcome {
    std::uint64_t cycles = 0;
    network_counts counts;
};

enum class alg { RING, DBT, MT };

outcome run(int k, alg a, std::uint64_t bytes, bool message, bool aries_ring = false) {
    const int n = k * k;
    const auto topo = aries_ring
                          ? noc_topology::aries(k, bandwidth_ring_segments(k, ring_mapping(k)))
                          : noc_topology::mesh(k);
    const auto rt =
        aries_ring ? ring_route_table(topo, ring_mapping(k)) : route_table::dimension_order(topo);
    network_config cfg;
    cfg.message_level = message;
    cfg.local_port_width = aries_ring ? 2 : 1;
    noc_network net(topo, rt, cfg);
    const std::uint64_t e = bytes / 4;
    const auto s = a == alg::RING  ? collectives::ring_allreduce(n, e)
                   : a == alg::DBT ? collectives::double_binary_tree(n, e)
                                   : collectives::multi_tree(n, e);
    collective_traffic c(s, a == alg::RING ? ring_mapping(k) : row_major_mapping(k), cfg.flit_bytes,
                         8);
    c.split_over_variants(aries_ring);
    c.whole_messages(message);
    c.attach(net);
    net.set_source(&c);
    net.run_until(1000000000);
    EXPECT_TRUE(c.done()) << c.pending();
    EXPECT_TRUE(net.idle());
    return {c.finish_cycle(), net.counts()};
}

void same_energy_counts(const network_counts& f, const network_counts& m, bool va) {
    EXPECT_EQ(f.buffer_writes, m.buffer_writes);
    EXPECT_EQ(f.buffer_reads, m.buffer_reads);
    EXPECT_EQ(f.crossbar, m.crossbar);
    EXPECT_EQ(f.switch_allocations, m.switch_allocations);
    EXPECT_EQ(f.flit_hops, m.flit_hops);
    EXPECT_DOUBLE_EQ(f.link_flit_pitches, m.link_flit_pitches);
    EXPECT_EQ(f.flits_delivered, m.flits_delivered);
    if (va) {
        EXPECT_EQ(f.vc_allocations, m.vc_allocations);
    }
}

TEST(message_level, zero_load_message_matches_the_closed_form) {
    const auto topo = noc_topology::mesh(4);
    const auto rt = route_table::dimension_order(topo);
    network_config cfg;
    cfg.message_level = true;
    noc_network net(topo, rt, cfg);
    std::uint64_t at = 0;
    net.on_delivered = [&](const noc_packet&, std::uint64_t c) { at = c; };
    // Router 0 to router 15: H = 6 hops of L = 10 cycles, s = 2, F = 1000 flits.
    net.add_packet(0, 15, 1000, 0, true);
    net.run_until(100000);
    EXPECT_EQ(at, 6u * (2 + 10) + 2 + 999);
}

// A source that creates nothing but asks the network to wake it every `period` cycles, as a
// training plan does at its compute events (noc/chiplet/layer_pipeline_traffic): a wake-up in
// the middle of a flow must not change when the flow ends.
class ticker : public traffic_source {
public:
    ticker(std::uint64_t period, std::uint64_t until) : m_period(period), m_until(until) {}
    std::uint64_t next_cycle() const override {
        return m_next <= m_until ? m_next : std::numeric_limits<std::uint64_t>::max();
    }
    void generate(std::uint64_t now, noc_network&) override {
        while (m_next <= now) m_next += m_period;
    }

private:
    std::uint64_t m_period, m_until, m_next = 1;
};

TEST(message_level, wake_ups_during_a_flow_do_not_delay_it) {
    const auto topo = noc_topology::mesh(4);
    const auto rt = route_table::dimension_order(topo);
    network_config cfg;
    cfg.message_level = true;
    noc_network net(topo, rt, cfg);
    std::uint64_t at = 0;
    net.on_delivered = [&](const noc_packet&, std::uint64_t c) { at = c; };
    ticker t(7, 5000);
    net.set_source(&t);
    // The zero-load closed form above: 6 hops, s = 2, L = 10, F = 1000 flits; the source
    // wakes the network 140 times while the flits stream.  Exact: a wake-up is no event of
    // the flow (before the fix the flow lost the flits of every stretch a wake-up ended, and
    // was delivered at 5999, once the wake-ups stopped at 5000, instead of 1073).
    net.add_packet(0, 15, 1000, 0, true);
    net.run_until(100000);
    EXPECT_EQ(at, 6u * (2 + 10) + 2 + 999);
}

// A 2D-ring all-reduce (ring_2d) of a size not divisible by N = 16 (the ResNet-50 fc bucket's
// 2,049,000 elements / 16 = 128,062.5: chunks of 512,250 elements per row step, 128,063 or
// 128,062 per column step) takes the same cycles whether or not a source wakes the network in
// between (the training plan's compute events), and the message count and bytes are Table
// I's: per rank 2 (sqrt N - 1) = 6 sends per phase, 2 x (3/4 + 3/16) of the 8,196,000 bytes.
TEST(message_level, ring_2d_takes_the_same_time_with_wake_ups) {
    const int k = 4;
    const std::uint64_t elements = 2049000;
    auto run_2d = [&](std::uint64_t tick) {
        const auto topo = noc_topology::mesh(k);
        const auto rt = route_table::dimension_order(topo);
        network_config cfg;
        cfg.message_level = true;
        noc_network net(topo, rt, cfg);
        collective_traffic c(collectives::ring_2d(k, k, elements), row_major_mapping(k),
                             cfg.flit_bytes, 8);
        c.whole_messages(true);
        c.attach(net);
        // The wake-ups go to a second source in front of the collective.
        struct both : traffic_source {
            traffic_source* a;
            traffic_source* b;
            std::uint64_t next_cycle() const override {
                return std::min(a->next_cycle(), b->next_cycle());
            }
            void generate(std::uint64_t now, noc_network& n) override {
                if (a->next_cycle() <= now) a->generate(now, n);
                if (b->next_cycle() <= now) b->generate(now, n);
            }
        };
        ticker t(tick, tick > 0 ? 10000000 : 0);
        both s;
        s.a = &c;
        s.b = &t;
        net.set_source(tick > 0 ? static_cast<traffic_source*>(&s) : &c);
        net.run_until(1000000000);
        EXPECT_TRUE(c.done()) << c.pending();
        return std::make_pair(c.finish_cycle(), c.bytes());
    };
    const auto alone = run_2d(0);
    const auto woken = run_2d(997);
    EXPECT_EQ(woken.first, alone.first);
    // Bytes: every rank sends 3 row chunks and 3 column chunks per phase; over the 16 ranks
    // that is 2 x (3/4 + 3/16) x 16 x 8,196,000 B exactly (the remainders cancel: each rank
    // sends every column chunk of its row block but its own).
    EXPECT_EQ(alone.second, 2u * (12u + 3u) * 8196000u);
}

struct level_case {
    int k;
    alg a;
    std::uint64_t bytes;
    double tolerance;
    bool aries = false;
};

class message_vs_flit : public ::testing::TestWithParam<level_case> {};

TEST_P(message_vs_flit, completion_time_and_energy_counts) {
    const level_case c = GetParam();
    const outcome f = run(c.k, c.a, c.bytes, false, c.aries);
    const outcome m = run(c.k, c.a, c.bytes, true, c.aries);
    const double err = std::abs(static_cast<double>(m.cycles) - static_cast<double>(f.cycles)) /
                       static_cast<double>(f.cycles);
    EXPECT_LE(err, c.tolerance) << "flit " << f.cycles << " message " << m.cycles;
    same_energy_counts(f.counts, m.counts, !c.aries);
}

// Flit-level runs of 8x8 trees at 2 MiB take seconds: the 8x8 trees are checked at 64 KiB
// (the 2 MiB figures in the header were measured with tools/ and the CLI).
INSTANTIATE_TEST_SUITE_P(noc, message_vs_flit,
                         ::testing::Values(level_case{4, alg::RING, 64 << 10, 0.0},
                                           level_case{4, alg::RING, 2 << 20, 0.0},
                                           level_case{8, alg::RING, 64 << 10, 0.0},
                                           level_case{8, alg::RING, 2 << 20, 0.0},
                                           level_case{4, alg::RING, 64 << 10, 0.03, true},
                                           level_case{8, alg::RING, 2 << 20, 0.03, true},
                                           level_case{4, alg::DBT, 64 << 10, 0.07},
                                           level_case{4, alg::DBT, 2 << 20, 0.07},
                                           level_case{8, alg::DBT, 64 << 10, 0.07},
                                           level_case{4, alg::MT, 64 << 10, 0.35},
                                           level_case{4, alg::MT, 512 << 10, 0.35},
                                           level_case{8, alg::MT, 64 << 10, 0.35}));

}  // namespace
}  // namespace trainvp::noc
