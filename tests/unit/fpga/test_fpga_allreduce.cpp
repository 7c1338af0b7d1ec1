// fpga.allreduce with real data (functional mode): every card ends with the all-reduced
// vector, bit for bit the same on every card; exactly the ring's FP32 sum without
// compression, within the BFP error bound with it.  Plus the engine's bookkeeping (bytes on
// the wire, credits, back-pressure with minimal FIFOs) and its config errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ip/codecs/bfp_codec.h"
#include "tests/support/sim_fixture.h"
#include "tests/unit/pcie/dma_test_blocks.h"

namespace trainvp {
namespace {

constexpr int k_nodes = 4;
constexpr std::size_t k_values = 10007;  // not a multiple of N, of a segment or of a BFP block

std::string ops() {
    std::string y;
    for (int r = 0; r < k_nodes; ++r) {
        y += "    node[" + std::to_string(r) +
             "].host:\n"
             "      - {op: allreduce, bytes: 40028B, address: 0x100, name: ar}\n"
             "      - {op: delay, time: 1us, after: ar}\n";
    }
    return y;
}

std::string config(const std::string& fpga_extra) {
    return R"(
templates:
  n:
    components:
      host: {type: host.cpu, node_id: "${index}"}
      hmem: {type: memory}
      dmem: {type: test.data_memory, size: 64KiB, latency: 10ns}
      fpga: {type: fpga.allreduce, node_id: "${index}", ring_size: 4, functional: true,
             segment: 1KiB, input_fifo: 2KiB, rx_fifo: 2KiB, tx_fifo: 2KiB, output_fifo: 1KiB)" +
           fpga_extra + R"(}
      link: {type: ethernet.link, rate: 40Gb/s}
    connections:
      - host.mem -> hmem.target[0]
      - host.nic -> fpga.host
      - fpga.notify -> host.nic_notify
      - fpga.pcie -> dmem.target
      - fpga.eth_tx -> link.a_in
      - link.a_out -> fpga.eth_rx
components:
  node: {template: n, count: 4}
  switch: {type: ethernet.switch, ports: 4, overflow: pause}
connections:
  - node[*].link.b_out -> switch.rx[*]
  - switch.tx[*] -> node[*].link.b_in
workload:
  ops:
)" + ops();
}

// Gradients of mixed magnitudes and signs (several orders of magnitude within a BFP block).
std::vector<std::vector<float>> inputs() {
    std::mt19937 rng(7);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::uniform_int_distribution<int> e(-12, 2);
    std::vector<std::vector<float>> v(k_nodes, std::vector<float>(k_values));
    for (auto& node : v) {
        for (float& x : node) x = g(rng) * std::ldexp(1.0f, e(rng));
    }
    return v;
}

struct outcome {
    std::vector<std::vector<float>> result;
    run_result run;
};

outcome run(const std::string& extra, const std::vector<std::vector<float>>& in) {
    auto sim = test::make_sim(config(extra));
    sim->elaborate();
    for (int r = 0; r < k_nodes; ++r) {
        auto* m =
            dynamic_cast<test::data_memory*>(sim->block("node[" + std::to_string(r) + "].dmem"));
        std::memcpy(m->bytes().data() + 0x100, in[static_cast<std::size_t>(r)].data(),
                    k_values * 4);
    }
    outcome o;
    o.run = sim->run();
    for (int r = 0; r < k_nodes; ++r) {
        auto* m =
            dynamic_cast<test::data_memory*>(sim->block("node[" + std::to_string(r) + "].dmem"));
        std::vector<float> v(k_values);
        std::memcpy(v.data(), m->bytes().data() + 0x100, k_values * 4);
        o.result.push_back(v);
    }
    return o;
}

TEST(fpga_allreduce, functional_fp32_is_the_exact_ring_sum_on_every_card) {
    const auto in = inputs();
    const outcome o = run("", in);
    ASSERT_EQ(o.run.status, run_status::FINISHED) << o.run.error << o.run.stall_report;
    // Block b (of partition(n, N)) is summed in ring order: starting at card b + 1, the card
    // that sends it at step 1, then b + 2, ..., ending at card b (ring.h: after the
    // reduce-scatter card i holds block i + 1, so the block owned by i + 1 started at i + 2).
    // Reproduce that order in FP32 and compare bit for bit.
    const std::size_t base = k_values / k_nodes, extra = k_values % k_nodes;
    std::size_t off = 0;
    for (std::size_t b = 0; b < k_nodes; ++b) {
        const std::size_t len = base + (b < extra ? 1 : 0);
        for (std::size_t e = off; e < off + len; ++e) {
            // Card i sends block (i - s + 1) at step s: block b is first sent by card b (s = 1),
            // added at b + 1, b + 2, ... in that order.
            float sum = in[b][e];
            for (std::size_t k = 1; k < k_nodes; ++k) sum = in[(b + k) % k_nodes][e] + sum;
            for (int r = 0; r < k_nodes; ++r) {
                ASSERT_EQ(std::memcmp(&o.result[static_cast<std::size_t>(r)][e], &sum, 4), 0)
                    << "card " << r << " element " << e << ": " << o.result[r][e] << " vs " << sum;
            }
        }
        off += len;
    }
}

TEST(fpga_allreduce, functional_bfp_is_within_the_error_bound_and_equal_on_every_card) {
    const auto in = inputs();
    const outcome o = run(", compression: bfp", in);
    ASSERT_EQ(o.run.status, run_status::FINISHED) << o.run.error << o.run.stall_report;
    const codecs::bfp_codec c = codecs::bfp_codec::bfp16();
    // The error bound, derived: a partial sum crosses the wire N - 1 times in the
    // reduce-scatter (each time quantised on its block's grid: error <= ulp(E)/2 with E the
    // block's shared exponent, bfp_codec.h), and the final value once more in the all-gather
    // (the card that finishes a block writes back the same quantised value it sends, so all
    // cards agree).  E of any of those blocks is at most floor(log2 of the largest |partial
    // sum| in the block) + 1 (rounding may carry).  With A = the largest sum of |x| over the
    // cards within a block: every partial sum is <= A, so each quantisation errs by at most
    // 2^(floor(log2 A) + 1 - M + 1) / 2 = 2^(floor(log2 A) + 1 - M), and N of them add up
    // (plus the FP32 additions' own rounding, 2^-24 relative per add, far below).
    const int M = static_cast<int>(c.mantissa_bits());
    const std::size_t B = c.block_size();
    // Blocks are aligned to each piece's start (pieces start at block/segment boundaries of the
    // ring's partition), so bound each element by the largest A over the piece's neighbours
    // within B on both sides.
    double worst_ratio = 0;
    for (std::size_t e = 0; e < k_values; ++e) {
        double A = 0;
        const std::size_t lo = e >= B ? e - B : 0, hi = std::min(k_values, e + B);
        for (std::size_t j = lo; j < hi; ++j) {
            double s = 0;
            for (int r = 0; r < k_nodes; ++r) s += std::fabs(in[static_cast<std::size_t>(r)][j]);
            A = std::max(A, s);
        }
        double exact = 0;
        for (int r = 0; r < k_nodes; ++r) exact += in[static_cast<std::size_t>(r)][e];
        const double bound =
            k_nodes * std::ldexp(1.0, static_cast<int>(std::floor(std::log2(A))) + 1 - M) +
            4 * A * std::ldexp(1.0, -24);
        for (int r = 0; r < k_nodes; ++r) {
            const double err = std::fabs(o.result[static_cast<std::size_t>(r)][e] - exact);
            ASSERT_LE(err, bound) << "card " << r << " element " << e;
            worst_ratio = std::max(worst_ratio, err / bound);
            ASSERT_EQ(std::memcmp(&o.result[static_cast<std::size_t>(r)][e], &o.result[0][e], 4), 0)
                << "cards 0 and " << r << " differ at " << e;
        }
    }
    std::cout << "bfp16 worst error / bound = " << worst_ratio << "\n";
}

TEST(fpga_allreduce, rejects_a_node_outside_the_ring_and_too_small_fifos) {
    EXPECT_NE(test::elaboration_error(config(""), {"components.node.fpga.ring_size=3"})
                  .find("node[3].fpga.node_id: 3 is not a position in a ring of 3 cards"),
              std::string::npos);
    EXPECT_NE(test::elaboration_error(config(""), {"components.node.fpga.tx_fifo=1KiB"})
                  .find("tx_fifo: 1024 B holds fewer than 2 segment(s) of 1024 B"),
              std::string::npos);
}

}  // namespace
}  // namespace trainvp
