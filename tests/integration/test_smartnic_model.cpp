// smartnic.md §IV-C on the platform: the iteration time of MLP training with the all-reduce
// offloaded to fpga.allreduce cards (policy overlap_layers, Fig. 3b) against the paper's
// analytical model (ip/fpga_allreduce/analytical_model.h), for N = 3..32 and batch 448 and
// 1792, with and without BFP.  The model's inputs are derived below from the platform's
// params, term by term; nothing is fitted to the simulation.
//
// The platform is configured with the model's assumptions:
// - compute is FLOPs / P_worker: host memory is fast (10 TB/s, no latency), so the forward and
//   backward ops' memory traffic (paleo eq. 1) is < 0.2 % of their time; no comm cores;
// - no memory contention: the card's DMA reaches a memory of its own (`dma_mem`).  Sharing one
//   is the real system, but `memory` serves requests in call order, and DMA bursts reserved a
//   PCIe latency ahead push the host's chunks back (an update then takes 600 us, not 14 us);
// - the cards send in the schedule's round order (order: rounds, the lockstep ring of Fig. 1)
//   with a Tx FIFO that holds a step (8 MiB) and FIFOs that cover the pipeline's round trips,
//   so T_AR is the max of its three bottlenecks, not a FIFO limit; PCIe is Gen3 x16 (T_mem is
//   never the maximum).  With the default small FIFOs (order: interleaved) the ring's holes
//   do not heal (adders and link run at the same rate) and the error varies with N up to ~5 %;
// - T_U_l is host.cpu's time for the update op (5 passes over the weights at the memory's
//   bandwidth + 4 FLOPs per weight at P_worker): the paper measures it, the model takes it.
// What the model leaves out and the platform has, each small at these sizes:
// - a layer here is fc + bias + ReLU: M^2 + M weights (the model's R_l counts M^2: 0.05 %),
//   the bias and ReLU FLOPs (< 0.1 %);
// - per request, the ring pipeline's fill and drain: the last pieces cross up to 2N-3 hops
//   (64 KiB pieces, a cut-through switch with 1 us latency, as datacenter switches like the
//   paper's Dell S6100-ON forward; store-and-forward cost 3 % at N = 6 with the
//   interleaved order);
// - the adder lanes and the link run at the same rate by design (8 x 32 bit x 156.25 MHz =
//   40 Gb/s), so any gap in the received stream is lost for good: ~1 % of T_AR measured.
// - the model's T_mem = 2 R / BW_pcie counts reads and writes on one bandwidth; PCIe is full
//   duplex (reads come down, writes go up), so BW_pcie here is both directions together.
// 4 layers instead of 20 (T_total's terms are per layer; four exercise every one of them)
// keep each case well under a second.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <tuple>

#include "ip/codecs/bfp_codec.h"
#include "ip/fpga_allreduce/analytical_model.h"
#include "kit/registry.h"
#include "platform/platform_loader.h"
#include "platform/simulation.h"
#include "tests/support/test_util.h"
#include "workloads/iteration/op_yaml.h"
#include "workloads/iteration/training_builder.h"
#include "workloads/models/model_loader.h"

namespace trainvp {
namespace {

constexpr int k_layers = 4;
constexpr std::int64_t k_width = 2048;  // smartnic.md §III/§V: 2048 x 2048 layers
// Platform params (the same values go into the config and into the model's inputs).
constexpr double k_peak = 3.2256e12;        // host.cpu default: Xeon 8280, smartnic.md §III
constexpr double k_mem_bw = 10e12;          // fast memory: the model's compute-only T_F, T_B
constexpr double k_eth = 40e9;              // smartnic.md §V-A: 40 Gbps
constexpr std::uint64_t k_segment = 65536;  // card piece size
constexpr std::uint64_t k_mtu = 9000, k_overhead = 38;
constexpr double k_lanes = 8, k_clock = 156.25e6;  // fpga.allreduce defaults (smartnic.md §V-A)
// PCIe Gen3 x16 per direction after encoding, and per 4 KiB TLP with 24 B header + 4 B DLLP
// (4 KiB TLPs and DMA bursts: 16x fewer transactions to simulate than 256 B; PCIe is not
// the bottleneck either way).
constexpr double k_pcie_dir = 16 * 8e9 * 128.0 / 130.0 / 8.0 * 4096.0 / (4096.0 + 28.0);

models::model mlp(std::int64_t batch) {
    models::model_options o;
    o.batch = batch;
    o.parameters = {{"layers", k_layers}, {"width", k_width}};
    return models::load_model(models::find_zoo_model("mlp"), o);
}

std::string config_text(int n, std::int64_t batch, bool bfp) {
    std::string y = R"(
templates:
  snode:
    components:
      host: {type: host.cpu, node_id: "${index}", peak: 3.2256TFLOP/s}
      mem: {type: memory, bandwidth: 10TB/s, latency: 0ns, size: 64GiB}
      dma_mem: {type: memory, bandwidth: 10TB/s, latency: 0ns, size: 64GiB}
      pcie: {type: pcie.link, gen: 3, lanes: 16, max_payload: 4096B, max_read_request: 4096B}
      fpga: {type: fpga.allreduce, node_id: "${index}", ring_size: RING, rate: 40Gb/s,
             segment: 64KiB, order: rounds, input_fifo: 256KiB, rx_fifo: 512KiB, tx_fifo: 8MiB,
             output_fifo: 256KiB, dma_burst: 4KiB, mtu: 9000B, l2_overhead: 38B, compression: COMP}
      link: {type: ethernet.link, rate: 40Gb/s, propagation: 10ns}
    connections:
      - host.mem -> mem.target[0]
      - pcie.host -> dma_mem.target[0]
      - host.nic -> fpga.host
      - fpga.notify -> host.nic_notify
      - fpga.pcie -> pcie.dev
      - fpga.eth_tx -> link.a_in
      - link.a_out -> fpga.eth_rx
simulation: {stall_timeout: 1s}
components:
  node: {template: snode, count: RING}
  switch: {type: ethernet.switch, ports: RING, overflow: pause, forwarding: cut_through}
connections:
  - node[*].link.b_out -> switch.rx[*]
  - switch.tx[*] -> node[*].link.b_in
workload:
  ops:
)";
    auto replace_all = [&y](const std::string& from, const std::string& to) {
        for (std::size_t p = y.find(from); p != std::string::npos; p = y.find(from, p)) {
            y.replace(p, from.size(), to);
            p += to.size();
        }
    };
    replace_all("RING", std::to_string(n));
    replace_all("COMP", bfp ? "bfp" : "none");
    workloads::training_options o;
    for (int r = 0; r < n; ++r) o.workers.push_back(static_cast<std::uint32_t>(r));
    o.algorithm = workloads::k_fpga_ring;
    o.policy = workloads::exchange_policy::OVERLAP_LAYERS;
    const workloads::training_builder b(mlp(batch), o);
    for (int r = 0; r < n; ++r) {
        y += "    node[" + std::to_string(r) + "].host:\n";
        y += workloads::ops_yaml(b.worker_ops(static_cast<std::size_t>(r)), "      ");
    }
    return y;
}

fpga::smartnic_model_result predicted(int n, std::int64_t batch, bool bfp) {
    fpga::smartnic_model_inputs in;
    in.layer_dims.assign(k_layers, static_cast<std::uint64_t>(k_width));
    in.batch = static_cast<std::uint64_t>(batch);
    in.nodes = static_cast<std::uint64_t>(n);
    in.worker_flops = k_peak;
    in.add_bits = 32;
    // alpha: a full piece's payload over its wire bytes (ceil(64 KiB / MTU) frames' overhead).
    const double frames = std::ceil(static_cast<double>(k_segment) / k_mtu);
    in.alpha = k_segment / (k_segment + frames * k_overhead);
    in.eth_bits_per_s = k_eth;
    if (bfp) {
        // beta: FP32 bytes over BFP16 bytes of a full piece (bfp_codec::encoded_bytes).
        const std::size_t values = k_segment / 4;
        in.beta = static_cast<double>(k_segment) /
                  static_cast<double>(codecs::bfp_codec::bfp16().encoded_bytes(values));
        // The wire carries the compressed piece, so alpha applies to its size.
        const double cbytes = static_cast<double>(codecs::bfp_codec::bfp16().encoded_bytes(values));
        in.alpha = cbytes / (cbytes + std::ceil(cbytes / k_mtu) * k_overhead);
    }
    in.pcie_bits_per_s = 2 * k_pcie_dir * 8;  // full duplex: reads down, writes up
    in.fpga_flops = k_lanes * k_clock;
    // T_U_l: host.cpu's update of M^2 + M weights: 5 passes at the memory's bandwidth, then
    // 4 FLOPs per weight at P_worker (ops.h work_flops).
    const double weights = static_cast<double>(k_width * k_width + k_width);
    in.update_s.assign(k_layers, 5 * 4 * weights / k_mem_bw + 4 * weights / k_peak);
    return fpga::smartnic_model(in);
}

using model_case = std::tuple<std::int64_t, int, bool>;  // batch, N, bfp

class smartnic_model_on_platform : public ::testing::TestWithParam<model_case> {};

TEST_P(smartnic_model_on_platform, iteration_time_matches_within_3_percent) {
    const auto [batch, n, bfp] = GetParam();
    const auto dir = test::temp_dir("smartnic_model");
    const std::string path = test::write_file(dir / "smartnic.yaml", config_text(n, batch, bfp));
    platform_loader loader(registry::global());
    simulation sim(loader.load(path), registry::global());
    sim.elaborate();
    const run_result r = sim.run();
    ASSERT_EQ(r.status, run_status::FINISHED) << r.stall_report << r.error;
    const double got = r.end_time.to_seconds();
    const fpga::smartnic_model_result m = predicted(n, batch, bfp);
    const double err = (got - m.total) / m.total;
    std::cout << "smartnic N=" << n << " batch=" << batch << " bfp=" << bfp
              << " simulated_ms=" << got * 1e3 << " model_ms=" << m.total * 1e3
              << " T_AR_ms=" << m.layers[0].allreduce * 1e3
              << " T_B_ms=" << m.layers[0].backward * 1e3 << " error=" << err << "\n";
    RecordProperty("relative_error", std::to_string(err));
    // smartnic.md §V-B: the model is within 3 % of the prototype; the issue asks the same of
    // the platform under the model's assumptions (what remains is listed in the header).
    EXPECT_NEAR(got, m.total, 0.03 * m.total) << "N=" << n << " batch=" << batch;
}

std::string case_name(const ::testing::TestParamInfo<model_case>& i) {
    return "b" + std::to_string(std::get<0>(i.param)) + "_n" +
           std::to_string(std::get<1>(i.param)) + (std::get<2>(i.param) ? "_bfp" : "");
}

INSTANTIATE_TEST_SUITE_P(fp32, smartnic_model_on_platform,
                         ::testing::Combine(::testing::Values(448, 1792), ::testing::Range(3, 33),
                                            ::testing::Values(false)),
                         case_name);
// BFP16 (beta = 3.76): a few sizes, the ring is then no longer the bottleneck at 448.
INSTANTIATE_TEST_SUITE_P(bfp16, smartnic_model_on_platform,
                         ::testing::Combine(::testing::Values(448), ::testing::Values(3, 6, 16, 32),
                                            ::testing::Values(true)),
                         case_name);

}  // namespace
}  // namespace trainvp
