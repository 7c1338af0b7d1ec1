// Functional payload mode (DESIGN.md): real float32 gradients through a 4-node ring all-reduce
// (inceptionn.md Algorithm 1) on hosts with nic.inceptionn NICs, compressed by the codec in the
// NICs.  Every node must end with the same gradient, within the codec's bound of the exact sum.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "ip/codecs/inceptionn_codec.h"
#include "ip/host/host_cpu.h"
#include "tests/support/sim_fixture.h"
#include "workloads/iteration/gradient_generator.h"

namespace trainvp {
namespace {

constexpr int k_nodes = 4;

// INCEPTIONN's cluster node (configs/examples/cluster_node.yaml) with the compression NIC in
// functional mode, four of them on a switch, HDC trained with a Laplace gradient.
std::string ring(const std::string& compression) {
    return R"(
templates:
  node:
    components:
      host: {type: host.cpu, node_id: "${index}", peak: 665.6GFLOP/s, cores: 8}
      mem: {type: memory, bandwidth: 59.7GB/s, latency: 80ns, ports: 2}
      pcie: {type: pcie.link, gen: 2, lanes: 8}
      nic: {type: nic.inceptionn, node_id: "${index}", payload: functional, error_bound: 2^-10}
      link: {type: ethernet.link, rate: 10Gb/s, propagation: 10ns}
    connections:
      - host.mem -> mem.target[0]
      - pcie.host -> mem.target[1]
      - host.nic -> nic.host
      - nic.notify -> host.nic_notify
      - nic.pcie -> pcie.dev
      - nic.eth_tx -> link.a_in
      - link.a_out -> nic.eth_rx
components:
  node: {template: node, count: 4}
  switch: {type: ethernet.switch, ports: 4, overflow: pause}
connections:
  - node[*].link.b_out -> switch.rx[*]
  - switch.tx[*] -> node[*].link.b_in
workload:
  training:
    model: hdc
    model_parameters: {fc_layers: 3}   # 2.47 MiB, the paper's HDC size; keeps the test fast
    batch: 25
    workers: node[*].host
    algorithm: ring
    compression: )" +
           compression + R"(
    gradient: {distribution: laplace, mean: 0, scale: 0.01, seed: 5}
)";
}

struct outcome {
    std::vector<std::vector<float>> grads;  // per node, after the run
    nlohmann::json stats;
};

outcome run(const std::string& yaml) {
    auto sim = test::make_sim(yaml);
    sim->elaborate();
    run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FINISHED) << r.stall_report << r.error;
    outcome o;
    for (int n = 0; n < k_nodes; ++n) {
        auto* h = dynamic_cast<ip::host_cpu*>(sim->block("node[" + std::to_string(n) + "].host"));
        const auto& d = h->data();
        std::vector<float> g(d.size() / 4);
        std::memcpy(g.data(), d.data(), g.size() * 4);
        o.grads.push_back(std::move(g));
    }
    o.stats = nlohmann::json::parse(sim->stats_json(r));
    return o;
}

// The inputs, regenerated as the training workload made them.
std::vector<std::vector<float>> inputs(std::size_t elements) {
    workloads::gradient_spec s{workloads::gradient_distribution::LAPLACE, 0.0, 0.01, 5, ""};
    std::vector<std::vector<float>> in;
    for (int r = 0; r < k_nodes; ++r)
        in.push_back(workloads::generate_gradient(s, r, k_nodes, elements));
    return in;
}

// Largest |node 0's value - exact sum| minus the allowance, over all elements (<= 0 passes).
// allowance(i) = codec_part + float_part(i), float_part = (N - 1) float32 additions, each
// rounding by at most half an ulp of a partial sum, bounded by 2^-24 x sum |g| per addition.
double worst_excess(const outcome& o, double codec_part) {
    const auto in = inputs(o.grads[0].size());
    double worst = -1e300;
    for (std::size_t i = 0; i < o.grads[0].size(); ++i) {
        double exact = 0, mag = 0;
        for (int r = 0; r < k_nodes; ++r) {
            exact += in[r][i];
            mag += std::fabs(in[r][i]);
        }
        const double allowed = codec_part + (k_nodes - 1) * std::ldexp(mag, -24);
        worst = std::max(worst, std::fabs(o.grads[0][i] - exact) - allowed);
    }
    return worst;
}

// With compression every hop of the reduce-scatter sends a partial sum through the codec: chunk
// j's sum is Q(Q(Q(g_a) + g_b) + g_c) + g_d after N - 1 = 3 hops, each Q adding an error below
// B(k) (ip/codecs: B(-10) = 2^-7, not the nominal 2^-10).  The owner then sends it compressed
// around the all-gather; the codec is idempotent on its own output (decoded values are on the
// class's grid and stay in their class), so forwarding adds nothing, and the owner keeps the
// decoded copy its NIC returns (tx_message_done), a 4th Q.  Bound: N x B(k) plus float
// rounding.  Every node holds bit-identical values.
TEST(inceptionn_functional, ring_allreduce_with_compression_is_identical_and_within_bound) {
    const outcome o = run(ring("true"));
    for (int n = 1; n < k_nodes; ++n) {
        EXPECT_TRUE(o.grads[n] == o.grads[0]) << "node " << n << " differs from node 0";
    }
    const double b = codecs::inceptionn_codec(-10).max_abs_error();
    EXPECT_LE(worst_excess(o, k_nodes * b), 0.0);
    // The compression did something: not exact, and the NICs report a ratio.
    EXPECT_GT(worst_excess(o, 0.0), 0.0);
    for (int n = 0; n < k_nodes; ++n) {
        const std::string nic = "node[" + std::to_string(n) + "].nic";
        EXPECT_GT(o.stats["blocks"][nic]["stats"]["compression_ratio"]["value"].get<double>(), 2.0);
    }
}

// Without compression (the NICs bypass) the all-reduce is exact up to float32 rounding, and
// identical on every node.
TEST(inceptionn_functional, ring_allreduce_without_compression_is_exact) {
    const outcome o = run(ring("false"));
    for (int n = 1; n < k_nodes; ++n) EXPECT_TRUE(o.grads[n] == o.grads[0]) << n;
    EXPECT_LE(worst_excess(o, 0.0), 0.0);
    EXPECT_EQ(o.stats["blocks"]["node[0].nic"]["stats"]["compressed_frames"]["value"].get<double>(),
              0.0);
}

// The run checks itself: each host's end-of-run audit compares its result with the exact sum,
// allowing float rounding plus the NICs' bound per compressed send (the runs above finish, so
// they pass it).  The same run fails, naming the host and its worst value, when node 2's
// allowance is only float rounding: the codec's error is then outside it.
TEST(inceptionn_functional, a_result_outside_its_allowance_fails_the_audit) {
    auto strict = test::make_sim(ring("true"));
    strict->elaborate();
    auto* h = dynamic_cast<ip::host_cpu*>(strict->block("node[2].host"));
    const std::size_t n = h->data().size() / 4;
    const auto in = inputs(n);
    std::vector<double> exact(n, 0.0), allowance(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (int q = 0; q < k_nodes; ++q) {
            exact[i] += in[q][i];
            allowance[i] += (k_nodes - 1) * std::ldexp(std::fabs(in[q][i]), -24);
        }
    }
    h->expect_data(h->data_address(), exact, allowance);
    const run_result bad = strict->run();
    EXPECT_EQ(bad.status, run_status::FAILED);
    ASSERT_EQ(bad.audit_violations.size(), 1u);
    EXPECT_NE(bad.audit_violations[0].find(
                  "node[2].host: functional result equals the reference within the codecs' "
                  "bound ("),
              std::string::npos)
        << bad.audit_violations[0];
    EXPECT_NE(bad.audit_violations[0].find("values outside their bound; the worst, value "),
              std::string::npos);
}

}  // namespace
}  // namespace trainvp
