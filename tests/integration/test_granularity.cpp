// simulation.granularity: message against packet (DESIGN.md: each coarser level is validated
// against the finer one).  A message crosses each NIC, link and switch as one transaction; the
// tests check that it arrives when its frames would, keeps their counts, balances the audit,
// and that whole paper configs end within 3 % of their packet-level iteration time.
#include <gtest/gtest.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "tests/support/test_util.h"

namespace trainvp {
namespace {

test::command_result trainvp(const std::string& args) {
    return test::run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN + " " +
                             args);
}

nlohmann::json run(const std::string& name, const std::string& config, const std::string& grain,
                   const std::string& extra = "") {
    auto dir = test::temp_dir("grain_" + name + "_" + grain);
    auto r = trainvp("run " + config + " --quiet --force --out " + (dir / "out").string() +
                     " --set simulation.granularity=" + grain + " " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(test::read_file(dir / "out" / "stats.json"));
}

double stat(const nlohmann::json& j, const std::string& block, const std::string& s) {
    return j["blocks"][block]["stats"][s]["value"].get<double>();
}

double sim_time(const nlohmann::json& j) { return j["run"]["sim_time_ps"].get<double>(); }

// The INCEPTIONN hosts' communication stack switched off (tests of the hardware's mechanisms).
const std::string k_stack_off =
    "--set 'node[*].host.stack.send_rate=0Gb/s' --set 'node[*].host.stack.recv_rate=0Gb/s'";

// Two of INCEPTIONN's cluster nodes through one switch, node 0 sending `bytes` to node 1.
std::string two_nodes(const std::string& bytes, const std::string& forwarding) {
    const std::string papers = std::string(TRAINVP_SOURCE_DIR) + "/configs/papers/inceptionn/";
    return "include: " + papers + R"(node.yaml
components:
  node: {template: inceptionn_node, count: 2}
  switch: {type: ethernet.switch, ports: 2, forwarding: )" +
           forwarding + R"(}
connections:
  - node[*].link.b_out -> switch.rx[*]
  - switch.tx[*] -> node[*].link.b_in
workload:
  ops:
    node[0].host:
      - {op: send, to: 1, bytes: )" +
           bytes + R"(, tag: 1}
    node[1].host:
      - {op: recv, from: 0, bytes: )" +
           bytes + R"(, tag: 1}
)";
}

struct transfer {
    const char* name;
    const char* bytes;
    const char* forwarding;
};

class one_message : public ::testing::TestWithParam<transfer> {};

// One message over NIC -> link -> switch -> link -> NIC: the train's head is forwarded after
// one frame (store-and-forward) or its header (cut-through), its tail after the last frame, so
// it arrives when the last of its frames does.  Tolerance 0.05 % (measured: 0.012 %, 108 ns in
// 887 us for 1 MiB; 0 for one and two frames): what differs is the DMA (the
// body of a train is read as one transfer behind its head frame, and written to the receiver's
// memory as counted bytes, its last frame through PCIe).
TEST_P(one_message, arrives_when_its_frames_would_and_keeps_their_counts) {
    const transfer t = GetParam();
    auto dir = test::temp_dir(std::string("grain_one_") + t.name);
    const std::string cfg = test::write_file(dir / "c.yaml", two_nodes(t.bytes, t.forwarding));
    const auto p = run(std::string("one_") + t.name, cfg, "packet");
    const auto m = run(std::string("one_") + t.name, cfg, "message");
    EXPECT_NEAR(sim_time(m) / sim_time(p), 1.0, 0.0005);
    for (const char* s : {"tx_frames", "tx_wire", "tx_payload"}) {
        EXPECT_EQ(stat(m, "node[0].nic", s), stat(p, "node[0].nic", s)) << s;
    }
    for (const char* s : {"rx_frames", "rx_wire", "dma_bursts", "dma_bytes"}) {
        EXPECT_EQ(stat(m, "node[1].nic", s), stat(p, "node[1].nic", s)) << s;
    }
    EXPECT_EQ(stat(m, "node[0].link", "frames_ab"), stat(p, "node[0].link", "frames_ab"));
    EXPECT_EQ(stat(m, "node[1].link", "frames_ba"), stat(p, "node[1].link", "frames_ba"));
    EXPECT_EQ(stat(m, "switch", "forwarded_bytes"), stat(p, "switch", "forwarded_bytes"));
    EXPECT_EQ(m["run"]["audit_violations"], 0);
}

INSTANTIATE_TEST_SUITE_P(transfers, one_message,
                         ::testing::Values(transfer{"frame", "1000B", "store_and_forward"},
                                           transfer{"two_frames", "2000B", "store_and_forward"},
                                           transfer{"stored", "1MiB", "store_and_forward"},
                                           transfer{"cut_through", "1MiB", "cut_through"}),
                         [](const auto& i) { return std::string(i.param.name); });

struct paper_config {
    const char* name;
    const char* config;  // under configs/papers/
    const char* sets;    // --set overrides that keep the run short
};

class paper : public ::testing::TestWithParam<paper_config> {};

// Each paper config family at message level within 3 % of packet level on iteration time
// (issue 8's bound: a message-level run predicts what the packet-level one would within the
// papers' own measurement spread, a few per cent).  The frames the NICs send stay equal.
TEST_P(paper, message_level_is_within_3_percent_of_packet_level) {
    const paper_config c = GetParam();
    const std::string cfg = std::string("configs/papers/") + c.config + ".yaml";
    const auto p = run(c.name, cfg, "packet", c.sets);
    const auto m = run(c.name, cfg, "message", c.sets);
    EXPECT_NEAR(sim_time(m) / sim_time(p), 1.0, 0.03)
        << "packet " << sim_time(p) << " ps, message " << sim_time(m) << " ps";
    EXPECT_EQ(m["run"]["audit_violations"], 0);
    EXPECT_EQ(p["run"]["audit_violations"], 0);
    for (auto& [path, b] : p["blocks"].items()) {
        if (!b["stats"].contains("tx_frames")) continue;
        EXPECT_EQ(stat(m, path, "tx_frames"), stat(p, path, "tx_frames")) << path;
    }
}

// pcie.link and memory serve requests in arrival-time order (`service_order: time`, the
// default; ip/pcie/README.md, "Service order").  In call order (the old default) a ring node's
// NIC reserved each received frame's DMA write on PCIe and memory for when the frame would
// have been processed -- microseconds ahead, behind the decompression queue -- and the TX
// prefetch reads made meanwhile queued behind those reservations although the link was idle:
// packet level was then -12 % (inc_c_hdc), -19 % (inc_c_alexnet), -29 % (smart-NIC baseline)
// off message level, which makes no per-frame reservations (`call_order` below keeps that
// covered).  Tolerance 3 %, issue 8's bound (a message-level run predicts what the
// packet-level one would within the papers' own measurement spread, a few per cent); measured
// 0.002 % (inc_c_hdc), 0.001 % (alexnet, shortened), 0.05 % (baseline, 2 layers).
INSTANTIATE_TEST_SUITE_P(
    families, paper,
    ::testing::Values(
        // INCEPTIONN (inceptionn.md §VII): the ring (INC) and the worker-aggregator (WA) on
        // 10 GbE; HDC, the smallest model (a run takes < 0.1 s).
        paper_config{"inc_hdc", "inceptionn/inc_hdc", ""},
        paper_config{"wa_hdc", "inceptionn/wa_hdc", ""},
        // The compression NIC (timing mode, Table III histogram draws): WA+C and INC+C.
        paper_config{"wa_c_hdc", "inceptionn/wa_c_hdc", ""},
        paper_config{"inc_c_hdc", "inceptionn/inc_c_hdc", ""},
        // INC+C with AlexNet's Table III histogram, shortened for the ASan CI: the gradient of
        // an HDC with 1500-wide hidden layers (8.0 M values) instead of AlexNet's 61 M, so each
        // ring message is 2.7 k frames instead of 42 k.  The decompression engine is slower
        // than the compression engine on these sizes, so the RX queue (and in call order the
        // reservations made ahead) grows along each message: -5.1 % in call order here.
        paper_config{"inc_c_alexnet", "inceptionn/inc_c_alexnet",
                     "--set workload.training.model=hdc"
                     " --set workload.training.model_parameters.hidden=1500"},
        // smartnic.md: the FPGA ring moves its own pieces (fpga.allreduce's `segment` is its
        // granularity knob; the network path times them as at packet level), so message level
        // changes nothing there.  2 of the MLP's 20 layers keep the run short (ASan CI).
        paper_config{"smartnic_fpga", "smartnic/smartnic",
                     "--set workload.training.model_parameters.layers=2"},
        // smartnic.md §III's baseline: the software ring on 100 GbE NICs over PCIe Gen3 x16,
        // overlapped (2 comm cores) and naive (after backward, batch 1792); 2 of 20 layers.
        paper_config{"smartnic_baseline", "smartnic/baseline",
                     "--set workload.training.model_parameters.layers=2"},
        paper_config{"smartnic_baseline_naive", "smartnic/baseline_naive",
                     "--set workload.training.model_parameters.layers=2"},
        // paleo.md: one node, no network: trivially equal.
        paper_config{"paleo", "paleo/titanx_alexnet", ""}),
    [](const auto& i) { return std::string(i.param.name); });

// Trains of at most nic.basic's train_frames (128) frames: the worker-aggregator configs' four
// workers put their messages on the wire at the same picosecond, and at the aggregator's
// switch port their trains take turns at that grain, where at packet level their frames do.
// The last round of trains is then served one train after another, so the first messages
// complete up to three trains' time before the last and the aggregator's sums overlap more:
// optimistic by -1.5 % (wa_hdc) and -0.84 % (wa_c_hdc) measured, with same-time wakes run in
// the order asked for (kit/wake_queue.h; with SystemC's order of same-time events it was
// +0.003 % and -0.002 %, by the luck of that order).  Tolerance 3 %, issue 8's bound.  One
// train per message (train_frames at its maximum) serves whole messages one after another:
// -3.5 % and -4.9 % measured, asserted outside the bound so that the grain is seen to act.
class incast_trains : public ::testing::TestWithParam<paper_config> {};

TEST_P(incast_trains, take_turns_at_the_port_as_frames_do) {
    const paper_config c = GetParam();
    const std::string cfg = std::string("configs/papers/") + c.config + ".yaml";
    const std::string name = std::string("incast_") + c.name;  // not the `paper` test's folders
    // The NICs' and switch's mechanism, so the hosts' stack is off (with it the aggregator's
    // progress thread, not the port, binds the incast).
    const auto p = run(name, cfg, "packet", k_stack_off);
    const auto m = run(name, cfg, "message", k_stack_off);
    const auto whole = run(name + "_whole", cfg, "message",
                           k_stack_off + " --set 'node[*].nic.train_frames=4294967295'");
    EXPECT_NEAR(sim_time(m) / sim_time(p), 1.0, 0.03);
    EXPECT_LT(sim_time(whole) / sim_time(p), 0.97);
}

INSTANTIATE_TEST_SUITE_P(worker_aggregator, incast_trains,
                         ::testing::Values(paper_config{"wa_hdc", "inceptionn/wa_hdc", ""},
                                           paper_config{"wa_c_hdc", "inceptionn/wa_c_hdc", ""}),
                         [](const auto& i) { return std::string(i.param.name); });

// `service_order: call` stays an option: in call order the packet-level INC+C ring is bound by
// the reservations made ahead (above), so it is slower than in time order.  Measured 4.019 vs
// 3.589 ms (+12 %); asserted > 5 % so that the option is seen to act.
TEST(call_order, packet_level_inc_c_ring_is_bound_by_reservations_made_ahead) {
    const std::string cfg = "configs/papers/inceptionn/inc_c_hdc.yaml";
    const std::string call =
        "--set 'node[*].pcie.service_order=call' --set 'node[*].mem.service_order=call' "
        "--set 'node[*].gpu_pcie.service_order=call'";
    // PCIe's and memory's service order, so the hosts' stack is off (with it one progress
    // thread per host binds the ring, and the order of DMA requests hardly shows).
    const auto p_call = run("co_inc_c_hdc_call", cfg, "packet", call + " " + k_stack_off);
    const auto p_time = run("co_inc_c_hdc_time", cfg, "packet", k_stack_off);
    const auto m_call = run("co_inc_c_hdc_call", cfg, "message", call + " " + k_stack_off);
    EXPECT_GT(sim_time(p_call), 1.05 * sim_time(p_time));
    // Message level's trains (nic.basic train_frames) reserve their tail frames' writes ahead
    // as frames do: in call order it agrees with packet level in call order, +3.07 % measured.
    // Call order makes a result depend on the order of same-time calls (that is the option):
    // running same-time wakes in the order asked for (kit/wake_queue.h) moved packet level
    // by -1.0 % and message level by +0.06 % (+1.9 % apart before).  Tolerance 4 %: this is the
    // non-default order, outside the paper configs that issue 8's 3 % is about.
    EXPECT_NEAR(sim_time(m_call) / sim_time(p_call), 1.0, 0.04);
    EXPECT_EQ(p_call["run"]["audit_violations"], 0);
}

// The compression NIC draws each frame's compressed size from its seeded stream one by one at
// both levels, so the bytes on the wire are identical, frame for frame in total.  (The run's
// time is compared above.)
TEST(granularity, compressed_bytes_are_the_same_at_both_levels) {
    const std::string cfg = "configs/papers/inceptionn/inc_c_hdc.yaml";
    const auto p = run("inc_c_hdc", cfg, "packet");
    const auto m = run("inc_c_hdc", cfg, "message");
    for (const char* s : {"tx_frames", "tx_wire", "compress_in", "compress_out", "rx_frames",
                          "decompressed_frames", "dma_bursts"}) {
        EXPECT_EQ(stat(m, "node[2].nic", s), stat(p, "node[2].nic", s)) << s;
    }
    EXPECT_EQ(m["run"]["audit_violations"], 0);
}

}  // namespace
}  // namespace trainvp

namespace trainvp {
namespace {

// Flow level (simulation.granularity: flow, fabric.flow) against message level on benchmark
// (b)'s network, 64 MiB on one 10 GbE switch (bench/ring_allreduce.py), for the ring, the 2D
// ring (rows of sqrt N) and the double binary tree: with the hosts running every step (--flow)
// and with the all-reduce handed to the fabric whole (--offload).  Printed per case; measured
// (flow / offload against message level): ring N = 4 -0.001 % / -0.006 %, 64 -0.020 % /
// -0.029 %, 256 -0.083 % / -0.103 %; ring_2d 64 -0.004 % / -0.010 %,
// 256 -0.010 % / -0.016 %; double_binary_tree 64
// +0.092 % / +0.087 %, 256 +0.096 % / +0.090 %.  The tree matches only because the fabric's NICs
// send one message after another (nic_order fifo, as nic.basic does); sharing the NIC among a
// host's messages (nic_order fair) makes the tree's pipelined chunks 28 % slower at N = 64.
// Tolerance 0.5 %: what the fabric leaves out is the NICs' DMA and the frames' pipelining (a few us
// in 93-505 ms); the issue asks for 3 %.
struct flow_case {
    const char* algorithm;
    int n;
    const char* leaf_spine = "";  // bench/ring_allreduce.py --leaf-spine H:S:R, or one switch
    double tolerance = 0.005;
    const char* fat_tree = "";  // --fat-tree K:H
    const char* rail = "";      // --rail-optimised R:H:S
    const char* ecmp = "";      // --ecmp RULE (both levels), or the default hash
};

class flow_level : public ::testing::TestWithParam<flow_case> {};

double exchange_time(const flow_case& c, const std::string& mode) {
    const bool tiers = *c.leaf_spine != '\0', tree = *c.fat_tree != '\0', rail = *c.rail != '\0',
               ecmp = *c.ecmp != '\0';
    const std::string name = std::string("flow_") + c.algorithm + "_" + std::to_string(c.n) +
                             (tiers ? "_leaf_spine" : "") + (tree ? "_fat_tree" : "") +
                             (rail ? "_rail" : "") + (ecmp ? std::string("_") + c.ecmp : "") + mode;
    auto dir = test::temp_dir(name);
    const std::string cfg = (dir / "ring.yaml").string();
    const auto g = test::run_command(
        "python3 " + std::string(TRAINVP_SOURCE_DIR) + "/bench/ring_allreduce.py " +
        std::to_string(c.n) + " " + cfg + " " + mode + " --algorithm " + c.algorithm +
        (tiers ? std::string(" --leaf-spine ") + c.leaf_spine : std::string()) +
        (tree ? std::string(" --fat-tree ") + c.fat_tree : std::string()) +
        (rail ? std::string(" --rail-optimised ") + c.rail : std::string()) +
        (ecmp ? std::string(" --ecmp ") + c.ecmp : std::string()));
    EXPECT_EQ(g.exit_code, 0) << g.err;
    auto r = trainvp("run " + cfg + " --quiet --force --out " + (dir / "out").string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(test::read_file(dir / "out" / "stats.json"));
    return j["blocks"]["node[0].host"]["stats"]["completion_time"]["value"].get<double>();
}

TEST_P(flow_level, matches_message_level) {
    const flow_case c = GetParam();
    const double m = exchange_time(c, "");
    const double f = exchange_time(c, "--flow") / m, o = exchange_time(c, "--offload") / m;
    std::printf("%s N = %d %s%s%s %s: message %.3f ms, flow %+.3f %%, offloaded %+.3f %%\n",
                c.algorithm, c.n, c.leaf_spine, c.fat_tree, c.rail, c.ecmp, m / 1e6, (f - 1) * 100,
                (o - 1) * 100);
    EXPECT_NEAR(f, 1.0, c.tolerance);
    EXPECT_NEAR(o, 1.0, c.tolerance);
}

INSTANTIATE_TEST_SUITE_P(
    one_switch, flow_level,
    ::testing::Values(flow_case{"ring", 4}, flow_case{"ring", 16}, flow_case{"ring", 64},
                      flow_case{"ring", 256}, flow_case{"ring_2d", 16}, flow_case{"ring_2d", 64},
                      flow_case{"ring_2d", 256}, flow_case{"double_binary_tree", 16},
                      flow_case{"double_binary_tree", 64}, flow_case{"double_binary_tree", 256}),
    [](const ::testing::TestParamInfo<flow_case>& i) {
        return std::string(i.param.algorithm) + "_" + std::to_string(i.param.n);
    });

// The same on a 2:1 leaf-spine (8 nodes per leaf, 2 spines, each leaf-spine link at 8 x 10 /
// (2 x 2) = 20 Gb/s): at message level leaf and spine ethernet.switch blocks with ethernet.link
// between them, at flow level fabric.flow's leaf_spine.  Both pick a message's spine by the same
// ECMP hash of (source, destination, message id) when the hosts run the steps; the fabric
// running the collective itself hashes its own flow ids, so its spines, and so its collisions on
// the uplinks, differ.  Measured (flow / offloaded against message level): ring N = 16 -0.001 %
// / -0.006 %, 128 -0.007 % / -0.020 %; ring_2d 64 +1.279 % / +2.489 %, 128 +0.437 % / +1.455 %;
// double_binary_tree 16 -0.230 % / -0.234 %, 128 -0.079 % / -0.084 %.  Tolerance 3 %, the
// issue's: the 2D ring's columns send 8 flows from a leaf over its 2 uplinks, and where hashed
// paths collide the flows' max-min shares differ from the frames' interleaving in the switches'
// queues by a few percent.
INSTANTIATE_TEST_SUITE_P(leaf_spine, flow_level,
                         ::testing::Values(flow_case{"ring", 16, "8:2:2", 0.03},
                                           flow_case{"ring", 128, "8:2:2", 0.03},
                                           flow_case{"ring_2d", 64, "8:2:2", 0.03},
                                           flow_case{"ring_2d", 128, "8:2:2", 0.03},
                                           flow_case{"double_binary_tree", 16, "8:2:2", 0.03},
                                           flow_case{"double_binary_tree", 128, "8:2:2", 0.03}),
                         [](const ::testing::TestParamInfo<flow_case>& i) {
                             return std::string(i.param.algorithm) + "_" +
                                    std::to_string(i.param.n);
                         });

// On a three-tier fat tree of 4-port switches with 4 nodes per leaf (2:1 at the leaves; every
// link 10 Gb/s), 32 nodes in 4 pods: at message level the loader's `generate: fat_tree`
// (leaves, aggregation and core switches, ECMP with fabric.flow's hash, salted at the
// aggregation tier as fabric_topology salts its core choice), at flow level fabric.flow's
// fat_tree.  Measured (flow / offloaded): ring -0.011 % / -0.017 %; double binary tree +0.067 %
// / +0.063 %; the 2D ring (rows of a leaf's 4, columns across the pods) +3.05 % / +6.36 %: its
// column steps put 4 flows of a leaf on 2 uplinks, and where hashed paths collide on the
// oversubscribed uplinks max-min shares are not the switch queues' frame interleaving (and the
// fabric running the collective hashes its own flow ids, so it collides elsewhere).  That case
// is where flow level is a few percent pessimistic: tolerance 8 % for it, 3 % (the issue's)
// for the others.
// D-mod-k (`ecmp: dest_mod`, at message level the generated switches' `ecmp` and `ecmp_below`)
// sends a shift permutation's flows up distinct uplinks, so the 2D ring that hashed paths make
// collide meets no contention: flow / offloaded +0.21 % / +0.21 % (ring_2d) on the same
// fat tree.  Tolerance 3 %, the issue's.
INSTANTIATE_TEST_SUITE_P(fat_tree, flow_level,
                         ::testing::Values(flow_case{"ring", 32, "", 0.03, "4:4"},
                                           flow_case{"double_binary_tree", 32, "", 0.03, "4:4"},
                                           flow_case{"ring_2d", 32, "", 0.08, "4:4"},
                                           flow_case{"ring_2d", 32, "", 0.03, "4:4", "",
                                                     "dest_mod"}),
                         [](const ::testing::TestParamInfo<flow_case>& i) {
                             return std::string(i.param.algorithm) + "_" +
                                    std::to_string(i.param.n) +
                                    (*i.param.ecmp ? std::string("_") + i.param.ecmp : "");
                         });

// Rail-optimised, 16 hosts of 2 NICs (32 endpoints), groups of 4 hosts, rail r of a group on
// the group's leaf r, 2 spines at 1:1 (20 Gb/s uplinks): `generate: rail_optimised` at message
// level (a spine's port reaches every 2nd node id: ethernet.switch `node_stride`), fabric.flow's
// rail_optimised at flow level.  Measured on node 0 (flow / offloaded): with D-mod-k, ring
// -0.19 % / -0.19 % (D-mod-k is slow here, 229 ms against 168 ms hashed: a leaf's ring flows all
// go to odd node ids, so to one spine; both levels show it), 2D ring (rows = a host's two
// rails, which cross the spines) -0.11 % / -0.11 %; double binary tree, hashed, +0.14 % /
// +0.14 %.  Hashed ECMP is where the levels part: the ring +4.5 % / +5.3 % on node 0 (+0.4 % /
// +1.2 % on the last host to finish), the 2D ring -13.9 % / -7.1 %.  Where two hashed flows
// meet on one spine's downlink they share it fairly at flow level, while at message level the
// switch's PAUSE holds the ingress link of the frame that does not fit and every flow behind
// that link waits too (head-of-line blocking, which fluid flows do not have): with 1 GiB switch
// queues (no PAUSE) the 2D ring's message level drops from 178.5 to 158.7 ms and the gap to
// -3.2 %.  Tolerances: 3 % (the issue's) where the paths do not collide, 6 % and 15 % for the two
// hashed cases, shown here and in the user guide.
INSTANTIATE_TEST_SUITE_P(
    rail_optimised, flow_level,
    ::testing::Values(flow_case{"ring", 32, "", 0.03, "", "2:4:2", "dest_mod"},
                      flow_case{"ring", 32, "", 0.06, "", "2:4:2"},
                      flow_case{"double_binary_tree", 32, "", 0.03, "", "2:4:2"},
                      flow_case{"ring_2d", 32, "", 0.03, "", "2:4:2", "dest_mod"},
                      flow_case{"ring_2d", 32, "", 0.15, "", "2:4:2"}),
    [](const ::testing::TestParamInfo<flow_case>& i) {
        return std::string(i.param.algorithm) + "_" + std::to_string(i.param.n) +
               (*i.param.ecmp ? std::string("_") + i.param.ecmp : "");
    });

}  // namespace
}  // namespace trainvp
