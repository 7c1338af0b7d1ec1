// The router pipeline and links against the zero-load closed form, and the network under
// load: every flit delivered, runs deterministic.
//
// Zero-load latency of one packet of F flits over H router-to-router links, from creation to
// the tail leaving the destination router, in cycles (s pipeline stages, links of L cycles
// carrying a flit every c cycles):
//
//     T0 = H (s + L) + s + (F - 1) c
//
// The head is written into the source router's local buffer at creation (cycle 0), may win
// the switch s - 1 cycles later, crosses the crossbar in the next cycle and reaches the next
// router's buffer L cycles after that: s + L per hop.  At the destination it wins the
// ejection port after s - 1 cycles and leaves one cycle later: + s.  The tail follows the head
// at the slowest link's rate: + (F - 1) c.
#include <gtest/gtest.h>

#include "noc/network/noc_network.h"
#include "noc/traffic/uniform_traffic.h"

namespace trainvp::noc {
namespace {

struct single_packet {
    std::uint64_t latency = 0;
    int hops = 0;
};

single_packet send_one(const noc_topology& t, const route_table& rt, const network_config& cfg,
                       int src, int dst, int flits) {
    noc_network net(t, rt, cfg);
    single_packet out;
    net.on_delivered = [&](const noc_packet& p, std::uint64_t at) {
        out.latency = at - p.created;
        out.hops = p.hops;
    };
    net.add_packet(src, dst, flits, 0, true);
    net.run_until(100000);
    EXPECT_TRUE(net.idle());
    return out;
}

std::uint64_t closed_form(int hops, int s, int link, int flits, int c = 1) {
    return static_cast<std::uint64_t>(hops * (s + link) + s + (flits - 1) * c);
}

TEST(noc_network, zero_load_latency_on_a_mesh_is_the_closed_form) {
    auto t = noc_topology::mesh(8);
    auto rt = route_table::dimension_order(t);
    for (int s : {1, 2, 3}) {
        for (int link : {1, 10}) {
            network_config cfg;
            cfg.pipeline_stages = s;
            cfg.pitch_latency_cycles = link;
            for (auto [src, dst] : {std::pair{0, 63}, {0, 1}, {9, 54}, {63, 0}, {7, 56}}) {
                const auto r = send_one(t, rt, cfg, src, dst, 8);
                const int h = std::abs(t.x(src) - t.x(dst)) + std::abs(t.y(src) - t.y(dst));
                EXPECT_EQ(r.hops, h);
                EXPECT_EQ(r.latency, closed_form(h, s, link, 8))
                    << "s=" << s << " L=" << link << " " << src << "->" << dst;
            }
        }
    }
}

TEST(noc_network, serialisation_of_a_slow_link_adds_c_cycles_per_flit) {
    auto t = noc_topology::mesh(4);
    auto rt = route_table::dimension_order(t);
    network_config cfg;  // 136 B flits on a 68 B/cycle link: 2 cycles per flit
    cfg.flit_bytes = 136;
    cfg.bytes_per_cycle = 68;
    cfg.pitch_latency_cycles = 10;
    EXPECT_EQ(send_one(t, rt, cfg, 0, 15, 8).latency, closed_form(6, 2, 10, 8, 2));
    EXPECT_EQ(send_one(t, rt, cfg, 0, 15, 1).latency, closed_form(6, 2, 10, 1, 2));
}

TEST(noc_network, long_links_take_their_length_times_the_pitch_latency) {
    // Torus wrap link (k - 1 = 3 pitches) and flattened-butterfly express links.
    network_config cfg;
    cfg.pitch_latency_cycles = 10;
    auto torus = noc_topology::torus(4, true);
    auto rt = route_table::dimension_order(torus);
    EXPECT_EQ(send_one(torus, rt, cfg, 0, 3, 8).latency, std::uint64_t(1 * (2 + 30) + 2 + 7));
    auto fb = noc_topology::flattened_butterfly(4);
    auto rf = route_table::dimension_order(fb);
    // 0 -> 15: x by 3 pitches, then y by 3 pitches.
    EXPECT_EQ(send_one(fb, rf, cfg, 0, 15, 8).latency, std::uint64_t(2 * (2 + 30) + 2 + 7));
}

TEST(noc_network, a_bypass_segment_carries_a_packet_in_one_hop) {
    bypass_segment g;
    g.dim = 0;
    g.line = 0;
    g.from = 0;
    g.to = 3;
    g.fwd_out = PORT_XP;
    g.fwd_in = PORT_XP;
    auto t = noc_topology::aries(4, {g});
    route_table rt(t.routers());
    rt.set(0, 3, PORT_XP);
    rt.set(3, 3, PORT_LOCAL);
    network_config cfg;
    cfg.pitch_latency_cycles = 10;
    const auto r = send_one(t, rt, cfg, 0, 3, 8);
    EXPECT_EQ(r.hops, 1);
    EXPECT_EQ(r.latency, std::uint64_t(1 * (2 + 30) + 2 + 7));
}

struct load_result {
    std::uint64_t created = 0, delivered = 0, flits = 0, hops = 0;
    double mean_latency = 0;
};

load_result run_uniform(const noc_topology& t, double rate, std::uint64_t seed) {
    auto rt = route_table::dimension_order(t);
    network_config cfg;
    cfg.pitch_latency_cycles = 1;
    noc_network net(t, rt, cfg);
    uniform_traffic traffic(t.routers(), rate, 8, 500, 3000, 3500, seed);
    net.set_source(&traffic);
    net.run_until(3500);
    net.set_source(nullptr);
    net.run_until(1000000);  // drain
    EXPECT_TRUE(net.idle());
    load_result r;
    r.created = net.counts().packets_created;
    r.delivered = net.counts().packets_delivered;
    r.flits = net.counts().flits_delivered;
    r.hops = net.counts().flit_hops;
    r.mean_latency = net.latency().mean();
    EXPECT_EQ(net.measured_outstanding(), 0u);
    EXPECT_EQ(net.counts().buffer_writes, net.counts().buffer_reads);
    return r;
}

TEST(noc_network, under_load_every_packet_arrives_and_runs_repeat_exactly) {
    for (auto t : {noc_topology::mesh(4), noc_topology::torus(4, true),
                   noc_topology::flattened_butterfly(4), noc_topology::mesh(8)}) {
        const auto a = run_uniform(t, 0.3, 7);
        EXPECT_GT(a.created, 100u);
        EXPECT_EQ(a.delivered, a.created);
        EXPECT_EQ(a.flits, 8 * a.created);
        const auto b = run_uniform(t, 0.3, 7);
        EXPECT_EQ(a.hops, b.hops);
        EXPECT_EQ(a.mean_latency, b.mean_latency);
        const auto c = run_uniform(t, 0.3, 8);
        EXPECT_NE(a.mean_latency, c.mean_latency);  // the seed matters
    }
}

TEST(uniform_traffic, offered_load_matches_the_rate) {
    // 64 nodes x 20000 cycles x 0.1 flits: 128000 flits expected, 16000 packets; the count is
    // binomial, sd ~ 126 packets (0.8 %), so 3 % is > 3 sd.
    auto t = noc_topology::mesh(8);
    auto rt = route_table::dimension_order(t);
    noc_network net(t, rt, network_config{});
    uniform_traffic traffic(64, 0.1, 8, 0, 20000, 20000, 3);
    net.set_source(&traffic);
    net.run_until(20000);
    EXPECT_NEAR(static_cast<double>(traffic.created_in_window()), 128000.0, 0.03 * 128000);
}

}  // namespace
}  // namespace trainvp::noc

namespace trainvp::noc {
namespace {

// ARIES's circuit-switched local path (router.circuit_local): two children's packets reaching
// their parent through two input ports in the same cycles eject side by side, each at the
// zero-load closed form (1 hop: s + L + s + F - 1 = 21 cycles for F = 8); through a
// conventional one-flit ejection port the second waits for the first's flits (F more cycles
// for the later tail, here 8).  The same at message level (the ejection port's capacity).
std::uint64_t slower_child(bool circuit, bool message) {
    const auto t = noc_topology::mesh(4);
    const auto rt = route_table::dimension_order(t);
    network_config cfg;
    cfg.circuit_local = circuit;
    cfg.message_level = message;
    noc_network net(t, rt, cfg);
    std::uint64_t worst = 0;
    net.on_delivered = [&](const noc_packet& p, std::uint64_t at) {
        worst = std::max(worst, at - p.created);
    };
    net.add_packet(1, 0, 8, 0, true);  // arrives on -x
    net.add_packet(4, 0, 8, 0, true);  // arrives on -y
    net.run_until(100000);
    EXPECT_TRUE(net.idle());
    return worst;
}

TEST(noc_network, circuit_switched_local_path_ejects_children_side_by_side) {
    for (bool message : {false, true}) {
        EXPECT_EQ(slower_child(true, message), closed_form(1, 2, 10, 8)) << message;
        EXPECT_EQ(slower_child(false, message), closed_form(1, 2, 10, 8) + 8) << message;
    }
}

}  // namespace
}  // namespace trainvp::noc
