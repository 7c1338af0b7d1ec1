// Topologies as data, dimension-order route tables and the channel-dependency check.
#include <gtest/gtest.h>

#include <stdexcept>

#include "noc/router/round_robin_arbiter.h"
#include "noc/topology/dependency_check.h"
#include "noc/topology/noc_topology.h"
#include "noc/topology/route_table.h"

namespace trainvp::noc {
namespace {

TEST(noc_topology, channel_counts) {
    for (int k : {2, 4, 8}) {
        // Mesh: 2 directions x 2 dimensions x k rows x (k - 1) links.
        EXPECT_EQ(noc_topology::mesh(k).channels().size(), std::size_t(4 * k * (k - 1)));
        // Torus: 4 output ports per router, all connected.
        EXPECT_EQ(noc_topology::torus(k, true).channels().size(), std::size_t(4 * k * k));
        // Flattened butterfly: every router reaches the k - 1 others of its row and column.
        EXPECT_EQ(noc_topology::flattened_butterfly(k).channels().size(),
                  std::size_t(2 * k * k * (k - 1)));
        EXPECT_EQ(noc_topology::flattened_butterfly(k).ports(), 2 * k - 1);
    }
}

TEST(noc_topology, dimension_order_hops_are_the_closed_forms) {
    const int k = 8;
    auto mesh = noc_topology::mesh(k);
    auto torus = noc_topology::torus(k, true);
    auto fb = noc_topology::flattened_butterfly(k);
    auto rm = route_table::dimension_order(mesh), rt = route_table::dimension_order(torus),
         rf = route_table::dimension_order(fb);
    for (int s = 0; s < k * k; ++s) {
        for (int d = 0; d < k * k; ++d) {
            if (s == d) continue;
            const int dx = std::abs(mesh.x(s) - mesh.x(d)), dy = std::abs(mesh.y(s) - mesh.y(d));
            EXPECT_EQ(trace_route(mesh, rm, s, d).size(), std::size_t(dx + dy));
            EXPECT_EQ(trace_route(torus, rt, s, d).size(),
                      std::size_t(std::min(dx, k - dx) + std::min(dy, k - dy)));
            EXPECT_EQ(trace_route(fb, rf, s, d).size(), std::size_t((dx > 0) + (dy > 0)));
        }
    }
}

TEST(dependency_check, dimension_order_on_mesh_and_dateline_torus_is_acyclic) {
    for (int k : {4, 8}) {
        auto mesh = noc_topology::mesh(k);
        EXPECT_EQ(find_dependency_cycle(mesh, route_table::dimension_order(mesh, true)), "");
        EXPECT_EQ(find_dependency_cycle(mesh, route_table::dimension_order(mesh, false)), "");
        auto torus = noc_topology::torus(k, true);
        EXPECT_EQ(find_dependency_cycle(torus, route_table::dimension_order(torus)), "");
        auto fb = noc_topology::flattened_butterfly(k);
        EXPECT_EQ(find_dependency_cycle(fb, route_table::dimension_order(fb)), "");
    }
}

TEST(dependency_check, torus_without_dateline_has_the_ring_cycle) {
    auto torus = noc_topology::torus(4, false);
    const std::string cycle = find_dependency_cycle(torus, route_table::dimension_order(torus));
    // The first cycle found is a ring of one dimension: k channels, back to the first.
    EXPECT_EQ(cycle,
              "r0 +x -> r1 (class 0) => r1 +x -> r2 (class 0) => r2 +x -> r3 (class 0) => "
              "r3 +x -> r0 (class 0) => r0 +x -> r1 (class 0)");
}

TEST(dependency_check, a_cyclic_route_setup_is_reported_with_its_cycle) {
    // 2x2 mesh, routers 0 1 / 2 3 (router 2 above 0).  Each diagonal packet turns the same
    // way round the square: 0 -> 3 via 1, 1 -> 2 via 3, 3 -> 0 via 2, 2 -> 1 via 0: four
    // channels each waiting on the next, the classic deadlock.
    auto mesh = noc_topology::mesh(2);
    auto rt = route_table::dimension_order(mesh);
    rt.set(0, 3, PORT_XP);  // 0 -> 1, then 1 -> 3 (+y)
    rt.set(1, 3, PORT_YP);
    rt.set(1, 2, PORT_YP);  // 1 -> 3, then 3 -> 2 (-x)
    rt.set(3, 2, PORT_XM);
    rt.set(3, 0, PORT_XM);  // 3 -> 2, then 2 -> 0 (-y)
    rt.set(2, 0, PORT_YM);
    rt.set(2, 1, PORT_YM);  // 2 -> 0, then 0 -> 1 (+x)
    rt.set(0, 1, PORT_XP);
    EXPECT_EQ(find_dependency_cycle(mesh, rt),
              "r0 +x -> r1 (class 0) => r1 +y -> r3 (class 0) => r3 -x -> r2 (class 0) => "
              "r2 -y -> r0 (class 0) => r0 +x -> r1 (class 0)");
}

TEST(dependency_check, a_route_into_a_missing_link_or_a_loop_is_an_error) {
    auto mesh = noc_topology::mesh(2);
    auto rt = route_table::dimension_order(mesh);
    rt.set(0, 1, PORT_XM);  // no -x link at x = 0
    EXPECT_THROW(trace_route(mesh, rt, 0, 1), std::invalid_argument);
    rt = route_table::dimension_order(mesh);
    rt.set(1, 3, PORT_XM);  // 1 -> 0 -> 1 -> ...
    rt.set(0, 3, PORT_XP);
    EXPECT_THROW(trace_route(mesh, rt, 0, 3), std::invalid_argument);
}

TEST(aries_topology, a_bypass_segment_replaces_the_mesh_links_of_its_ports) {
    // Row 0 of a 4x4: a segment from x = 0 to x = 3, forward only, leaving router 0 by its +x
    // port (whose mesh link to router 1 is then unused) and arriving at router 3's -y port.
    bypass_segment g;
    g.dim = 0;
    g.line = 0;
    g.from = 0;
    g.to = 3;
    g.fwd_out = PORT_XP;
    g.fwd_in = PORT_YM;
    auto t = noc_topology::aries(4, {g});
    const int c = t.out_channel(0, PORT_XP);
    ASSERT_GE(c, 0);
    EXPECT_EQ(t.channels()[std::size_t(c)].dst, 3);
    EXPECT_EQ(t.channels()[std::size_t(c)].length, 3.0);
    EXPECT_EQ(t.mux_selection(3, PORT_YM), channel_kind::BYPASS_X);
    EXPECT_EQ(t.in_channel(1, PORT_XP), -1);  // the mesh link 0 -> 1 lost its output port
    EXPECT_EQ(t.mux_selection(3, PORT_XP), channel_kind::MESH);
    // Router 3's -y input received the mesh link from router 7 (travelling -y): it is cut too.
    EXPECT_EQ(t.out_channel(7, PORT_YM), -1);
    EXPECT_EQ(t.channels().size(), noc_topology::mesh(4).channels().size() - 2 + 1);
}

TEST(aries_topology, overlapping_segments_and_double_port_use_are_rejected) {
    bypass_segment a;
    a.from = 0;
    a.to = 2;
    a.fwd_out = PORT_XP;
    a.fwd_in = PORT_XP;
    bypass_segment b = a;
    b.from = 1;
    b.to = 3;
    b.fwd_out = PORT_YP;
    b.fwd_in = PORT_YP;
    EXPECT_THROW(noc_topology::aries(4, {a, b}), std::invalid_argument);  // same track
    b.track = 1;
    EXPECT_NO_THROW(noc_topology::aries(4, {a, b}));  // the second bypass link of the row
    b.fwd_in = PORT_XP;  // router 3's +x input: free (a arrives at router 2)
    EXPECT_NO_THROW(noc_topology::aries(4, {a, b}));
    bypass_segment c = a;  // the same ports as a on the other track
    c.track = 1;
    EXPECT_THROW(noc_topology::aries(4, {a, c}), std::invalid_argument);
    bypass_segment off = a;
    off.to = 4;
    EXPECT_THROW(noc_topology::aries(4, {off}), std::invalid_argument);
}

TEST(round_robin_arbiter, serves_every_requester_in_turn) {
    round_robin_arbiter a;
    EXPECT_EQ(a.pick(0b1011), 0);
    EXPECT_EQ(a.pick(0b1011), 1);
    EXPECT_EQ(a.pick(0b1011), 3);
    EXPECT_EQ(a.pick(0b1011), 0);
    EXPECT_EQ(a.pick(0b0100), 2);
    EXPECT_EQ(a.pick(std::uint64_t{1} << 63), 63);
    EXPECT_EQ(a.pick(0b1), 0);
}

}  // namespace
}  // namespace trainvp::noc

namespace trainvp::noc {
namespace {

TEST(aries_routing, dimension_order_takes_a_bypass_that_does_not_overshoot) {
    // Row 0 of an 8x8 with the bypass 0-7 on the ports a mesh leaves idle at the row ends.
    bypass_segment g;
    g.from = 0;
    g.to = 7;
    g.fwd_out = PORT_XM;
    g.fwd_in = PORT_XM;
    g.bwd_out = PORT_XP;
    g.bwd_in = PORT_XP;
    auto t = noc_topology::aries(8, {g});
    EXPECT_EQ(t.channels().size(), noc_topology::mesh(8).channels().size() + 2);
    auto rt = route_table::dimension_order(t);
    EXPECT_EQ(trace_route(t, rt, 0, 7).size(), 1u);  // the bypass
    EXPECT_EQ(trace_route(t, rt, 7, 0).size(), 1u);
    EXPECT_EQ(trace_route(t, rt, 0, 5).size(), 5u);  // the bypass would overshoot
    EXPECT_EQ(trace_route(t, rt, 0, 63).size(), 1u + 7u);
    EXPECT_EQ(find_dependency_cycle(t, rt), "");
    // A bypass on a port whose mesh link dimension-order routing needs is an error.
    g.fwd_out = PORT_YP;
    g.bwd_out = g.bwd_in = -1;
    auto t2 = noc_topology::aries(8, {g});
    EXPECT_THROW(route_table::dimension_order(t2, false), std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::noc
