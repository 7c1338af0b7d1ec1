// fabric.flow (ip/fabric/flow_fabric) on hosts, against closed forms.  One simulation per
// test process (SystemC elaborates once).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/sim_fixture.h"

namespace trainvp::test {
namespace {

nlohmann::json run_stats(const std::string& yaml) {
    auto sim = make_sim(yaml);
    sim->elaborate();
    run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FINISHED) << r.stall_report << r.error;
    return nlohmann::json::parse(sim->stats_json(r));
}

double stat(const nlohmann::json& j, const std::string& block, const std::string& s) {
    return j["blocks"][block]["stats"][s]["value"].get<double>();
}

// `n` hosts on a fabric.flow single switch at 10 Gb/s (1500 B MTU: 1460 B of payload and 78 B
// of headers, FCS, preamble and gap per frame; 10 ns links, 1 us switch), and their ops.
std::string hosts(int n, const std::string& ops, const std::string& granularity = "flow",
                  const std::string& fabric_extra = "") {
    return "simulation: {granularity: " + granularity + R"(}
templates:
  node:
    components:
      host: {type: host.cpu, node_id: "${index}"}
      mem: {type: memory, bandwidth: 100GB/s, latency: 80ns}
    connections:
      - host.mem -> mem.target[0]
components:
  node: {template: node, count: )" +
           std::to_string(n) + R"(}
  fabric: {type: fabric.flow, endpoints: )" +
           std::to_string(n) + ", rate: 10Gb/s" + fabric_extra + R"(}
connections:
  - node[*].host.nic -> fabric.host[*]
  - fabric.notify[*] -> node[*].host.nic_notify
workload:
  ops:
)" + ops;
}

// Every one of `n` hosts hands the fabric one all-reduce of `bytes` (tag 7).
std::string allreduce_ops(int n, const std::string& bytes) {
    std::string ops;
    for (int i = 0; i < n; ++i) {
        ops += "    node[" + std::to_string(i) + "].host: [{op: allreduce, bytes: " + bytes +
               ", address: 0, tag: 7}]\n";
    }
    return ops;
}

// 8 MiB = 8,388,608 B in 5746 frames (5745 x 1460 + 908): 8,388,608 + 5746 x 78 =
// 8,836,796 wire bytes, 7,069,436.8 ns at 1.25 GB/s.  The receiver has it one route later:
// 2 x 10 ns + 1 us, plus the switch's store-and-forward of a full frame (1538 B: 1230.4 ns).
TEST(flow_fabric, one_message_closed_form) {
    const auto j = run_stats(hosts(2, R"(    node[0].host: [{op: send, to: 1, bytes: 8MiB, tag: 1}]
    node[1].host: [{op: recv, from: 0, bytes: 8MiB, tag: 1}]
)"));
    const double wire_ns = 8836796.0 / 1.25;
    EXPECT_NEAR(stat(j, "node[0].host", "completion_time"), wire_ns, 0.001);
    EXPECT_NEAR(stat(j, "node[1].host", "completion_time"), wire_ns + 1020.0 + 1230.4, 0.001);
    EXPECT_EQ(stat(j, "fabric", "wire_bytes"), 8836796.0);
    EXPECT_EQ(stat(j, "fabric", "messages"), 1.0);
}

// Incast: three senders share node 3's downlink; the three flows end together at 3 x 1 MiB's
// wire time (1,048,576 B in 719 frames: + 56,082 B = 1,104,658 B, 883,726.4 ns each).
TEST(flow_fabric, incast_shares_the_downlink) {
    const auto j = run_stats(hosts(4, R"(    node[0].host: [{op: send, to: 3, bytes: 1MiB, tag: 1}]
    node[1].host: [{op: send, to: 3, bytes: 1MiB, tag: 2}]
    node[2].host: [{op: send, to: 3, bytes: 1MiB, tag: 3}]
    node[3].host:
      - {op: recv, from: 0, bytes: 1MiB, tag: 1}
      - {op: recv, from: 1, bytes: 1MiB, tag: 2}
      - {op: recv, from: 2, bytes: 1MiB, tag: 3}
)"));
    const double each_ns = 1104658.0 / 1.25;
    for (const char* h : {"node[0].host", "node[1].host", "node[2].host"}) {
        EXPECT_NEAR(stat(j, h, "completion_time"), 3 * each_ns, 0.01) << h;
    }
    EXPECT_NEAR(stat(j, "node[3].host", "completion_time"), 3 * each_ns + 1020.0 + 1230.4, 0.01);
}

// An all-reduce handed over whole (allreduce ops): the fabric runs the ring itself.  4 ranks,
// 4 MiB: 2 x 3 steps of 1 MiB blocks one after another on every rank, each 883,726.4 ns of
// wire (above) + 2250.4 ns to arrive (route and one frame), and the 3 reduce-scatter steps add
// their block at 10 GB/s (104,857.6 ns): 6 x 885,976.8 + 3 x 104,857.6 = 5,630,433.6 ns.
TEST(flow_fabric, ring_allreduce_handed_over_whole) {
    const auto j = run_stats(
        hosts(4, allreduce_ops(4, "4MiB"), "flow", ", collective: ring, reduce_rate: 10GB/s"));
    for (int i = 0; i < 4; ++i) {
        const std::string h = "node[" + std::to_string(i) + "].host";
        EXPECT_NEAR(stat(j, h, "completion_time"), 5630433.6, 0.01) << h;
    }
    EXPECT_EQ(stat(j, "fabric", "collectives"), 4.0);
    EXPECT_EQ(stat(j, "fabric", "collective_flows"), 4.0 * 6);
}

// A message between pods of a k = 4 fat tree crosses 6 links and 5 switches: one route later
// than the sender's end, 6 x 10 ns + 5 x 1 us, plus 5 frames' store-and-forward (6152 ns).
TEST(flow_fabric, fat_tree_message_crosses_five_switches) {
    const auto j =
        run_stats(hosts(16, R"(    node[0].host: [{op: send, to: 15, bytes: 8MiB, tag: 1}]
    node[15].host: [{op: recv, from: 0, bytes: 8MiB, tag: 1}]
)",
                        "flow", ", topology: fat_tree, k: 4"));
    const double wire_ns = 8836796.0 / 1.25;
    EXPECT_NEAR(stat(j, "node[0].host", "completion_time"), wire_ns, 0.001);
    EXPECT_NEAR(stat(j, "node[15].host", "completion_time"), wire_ns + 5060.0 + 6152.0, 0.001);
}

// The 2D ring handed over whole, on 4 hosts of 2 rails (rail_optimised, one leaf per rail, one
// spine at 40 Gb/s: the 4 flows between leaves get 10 Gb/s each).  by_leaf makes ranks 0-3 the
// rail-0 NICs (endpoints 0, 2, 4, 6) and the rows of 4 (`group`: a leaf's 4) rings within a
// leaf.  8 MiB: 3 steps of 2 MiB in a leaf (1437 frames, 2,209,238 wire bytes, 1,767,390.4 ns,
// + 2250.4 ns to arrive), 1 step of 1 MiB between the leaves (883,726.4 ns + 3040 ns of route
// and 3 frames' store-and-forward, 3691.2 ns), then the all-gathers in reverse: 6 x
// 1,769,640.8 + 2 x 890,457.6 = 12,398,760 ns.  In endpoint order the rows mix the rails, so
// every step crosses the spine: slower.
TEST(flow_fabric, ring_2d_by_leaf_keeps_rows_on_a_leaf) {
    const std::string ops = allreduce_ops(8, "8MiB");
    const std::string fabric =
        ", topology: rail_optimised, rails: 2, hosts_per_leaf: 4, spines: 1, uplink_rate: "
        "40Gb/s, collective: ring_2d";
    const auto j = run_stats(hosts(8, ops, "flow", fabric + ", rank_order: by_leaf"));
    for (int i = 0; i < 8; ++i) {
        const std::string h = "node[" + std::to_string(i) + "].host";
        EXPECT_NEAR(stat(j, h, "completion_time"), 12398760.0, 0.01) << h;
    }
    EXPECT_EQ(stat(j, "fabric", "collective_flows"), 8.0 * 8);
}

// The topology-aware hierarchical ring (levels 0: one level per tier, {4 per leaf, 2 leaves})
// is the same schedule as that 2D ring, so the same time to the ps.
TEST(flow_fabric, hierarchical_ring_by_tiers_equals_the_2d_ring) {
    const std::string ops = allreduce_ops(8, "8MiB");
    const auto j = run_stats(hosts(8, ops, "flow",
                                   ", topology: rail_optimised, rails: 2, hosts_per_leaf: 4, "
                                   "spines: 1, uplink_rate: 40Gb/s, collective: hierarchical_ring, "
                                   "rank_order: by_leaf"));
    EXPECT_NEAR(stat(j, "node[5].host", "completion_time"), 12398760.0, 0.01);
}

// The same in endpoint order: each row's ring alternates the rails, so its 6 in-row steps cross
// the spine (the flows still get 10 Gb/s each; each arrival takes 2 more switches and their
// frames, 4480.8 ns), while the 2 steps between rows (endpoints e and e + 4, one rail) now stay
// on a leaf: 4 x 4480.8 = 17,923.2 ns later in all.
TEST(flow_fabric, ring_2d_in_endpoint_order_crosses_the_spine) {
    const std::string ops = allreduce_ops(8, "8MiB");
    const auto j = run_stats(hosts(8, ops, "flow",
                                   ", topology: rail_optimised, rails: 2, hosts_per_leaf: 4, "
                                   "spines: 1, uplink_rate: 40Gb/s, collective: ring_2d"));
    EXPECT_NEAR(stat(j, "node[0].host", "completion_time"), 12398760.0 + 17923.2, 0.01);
}

// An all-reduce that only two of four endpoints post never ends: the watchdog stops the run
// and the fabric says what it holds.
TEST(flow_fabric, a_collective_not_every_endpoint_posts_is_refused_before_the_run) {
    // The others would wait for ever (the fabric's stall report would name "allreduce 7: 2 of
    // 4 endpoints posted"); the validation phase pairs allreduce ops across the hosts first.
    const std::string ops = allreduce_ops(2, "1MiB");  // 2 of the 4
    const std::string e = elaboration_error(hosts(4, ops, "flow, stall_timeout: 1ms"));
    EXPECT_NE(e.find("posts the all-reduce with tag 7, which 2 nodes post but node 2's ops never "
                     "do"),
              std::string::npos)
        << e;
}

// 8 endpoints on one switch: the default group (the whole-number square root, 3) does not
// divide them; a ring never reads it, ring_2d needs it.  (One elaboration per test process.)
TEST(flow_fabric, a_default_group_that_does_not_divide_is_no_matter_to_a_ring) {
    auto sim = make_sim(hosts(8, allreduce_ops(8, "1MiB")));
    sim->elaborate();
    EXPECT_EQ(sim->run().status, run_status::FINISHED);
}

TEST(flow_fabric, a_default_group_that_does_not_divide_is_refused_for_a_grid_collective) {
    const std::string e =
        elaboration_error(hosts(8, allreduce_ops(8, "1MiB"), "flow", ", collective: ring_2d"));
    EXPECT_NE(e.find("a group of 3 ranks does not divide the 8 endpoints"), std::string::npos) << e;
}

TEST(flow_fabric, needs_the_flow_granularity) {
    const std::string e = elaboration_error(hosts(2, R"(    node[0].host: []
)",
                                                  "message"));
    EXPECT_NE(e.find("fabric: fabric.flow models the cluster network at flow level: set "
                     "`simulation: {granularity: flow}`"),
              std::string::npos)
        << e;
}

}  // namespace
}  // namespace trainvp::test
