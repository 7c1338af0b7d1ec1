// smartnic.md §IV-C's model against values worked by hand from the printed formulas.
#include <gtest/gtest.h>

#include <stdexcept>

#include "ip/fpga_allreduce/analytical_model.h"

using trainvp::fpga::smartnic_model;
using trainvp::fpga::smartnic_model_inputs;

namespace {

// Small numbers so that every term can be checked by hand: M = 2, 3, 4 (M^2 = 4, 9, 16),
// B = 1, P_worker = 1 FLOP/s, N = 3, b = 32, BW_eth = 64 b/s, beta = 2, P_FPGA = 8 FLOP/s,
// BW_pcie = 128 b/s, T_U = 1, 2, 3 s.
smartnic_model_inputs hand_case() {
    smartnic_model_inputs in;
    in.layer_dims = {2, 3, 4};
    in.batch = 1;
    in.nodes = 3;
    in.worker_flops = 1;
    in.add_bits = 32;
    in.alpha = 1;
    in.eth_bits_per_s = 64;
    in.beta = 2;
    in.pcie_bits_per_s = 128;
    in.fpga_flops = 8;
    in.update_s = {1, 2, 3};
    return in;
}

}  // namespace

TEST(smartnic_model, per_layer_terms_by_hand) {
    const auto r = smartnic_model(hand_case());
    ASSERT_EQ(r.layers.size(), 3u);
    // T_F = 2 M^2 B / P = 8, 18, 32; T_B = 4 M^2 B / P = 16, 36, 64.
    EXPECT_DOUBLE_EQ(r.layers[0].forward, 8);
    EXPECT_DOUBLE_EQ(r.layers[1].forward, 18);
    EXPECT_DOUBLE_EQ(r.layers[2].forward, 32);
    EXPECT_DOUBLE_EQ(r.layers[0].backward, 16);
    EXPECT_DOUBLE_EQ(r.layers[2].backward, 64);
    // R = b N ceil(M^2 / N): ceil(4/3) = 2 -> 192; ceil(9/3) = 3 -> 288; ceil(16/3) = 6 -> 576.
    EXPECT_DOUBLE_EQ(r.layers[0].bits, 192);
    EXPECT_DOUBLE_EQ(r.layers[1].bits, 288);
    EXPECT_DOUBLE_EQ(r.layers[2].bits, 576);
    // T_ring = R 2(N-1) / (N alpha BW beta) = R * 4 / 384 = R / 96: 2, 3, 6.
    EXPECT_DOUBLE_EQ(r.layers[0].ring, 2);
    EXPECT_DOUBLE_EQ(r.layers[1].ring, 3);
    EXPECT_DOUBLE_EQ(r.layers[2].ring, 6);
    // T_add = R 2(N-1) / (N P_FPGA b) = R * 4 / 768 = R / 192: 1, 1.5, 3.
    EXPECT_DOUBLE_EQ(r.layers[0].add, 1);
    EXPECT_DOUBLE_EQ(r.layers[1].add, 1.5);
    EXPECT_DOUBLE_EQ(r.layers[2].add, 3);
    // T_mem = 2 R / BW_pcie = R / 64: 3, 4.5, 9; the largest of the three.
    EXPECT_DOUBLE_EQ(r.layers[0].mem, 3);
    EXPECT_DOUBLE_EQ(r.layers[2].mem, 9);
    EXPECT_DOUBLE_EQ(r.layers[0].allreduce, 3);
    EXPECT_DOUBLE_EQ(r.layers[1].allreduce, 4.5);
    EXPECT_DOUBLE_EQ(r.layers[2].allreduce, 9);
    EXPECT_DOUBLE_EQ(r.forward, 58);
}

TEST(smartnic_model, total_compute_bound_by_hand) {
    // 58 + T_B3 64 + max(T_B2 36, T_AR3 9) + max(T_U3 + T_B1 = 19, T_AR2 4.5)
    //    + max(T_U2 2, T_AR1 3) + T_U1 1 = 58 + 64 + 36 + 19 + 3 + 1 = 181.
    EXPECT_DOUBLE_EQ(smartnic_model(hand_case()).total, 181);
}

TEST(smartnic_model, total_allreduce_bound_by_hand) {
    auto in = hand_case();
    in.worker_flops = 1000;  // T_F = .008, .018, .032; T_B = .016, .036, .064
    // .058 + .064 + max(.036, 9) + max(3 + .016, 4.5) + max(2, 3) + 1 = 17.622.
    EXPECT_NEAR(smartnic_model(in).total, 17.622, 1e-12);
}

TEST(smartnic_model, ring_bound_when_pcie_is_fast) {
    auto in = hand_case();
    in.pcie_bits_per_s = 1e12;
    const auto r = smartnic_model(in);
    EXPECT_DOUBLE_EQ(r.layers[0].allreduce, 2);  // T_ring 2 > T_add 1 > T_mem ~0
    EXPECT_DOUBLE_EQ(r.layers[2].allreduce, 6);
    in.fpga_flops = 1;  // T_add = R / 24 = 8, 12, 24: now the adders bound it
    EXPECT_DOUBLE_EQ(smartnic_model(in).layers[1].allreduce, 12);
}

TEST(smartnic_model, two_layers_and_one_layer) {
    auto in = hand_case();
    in.layer_dims = {2, 3};
    in.update_s = {1, 2};
    // 26 + T_B2 36 + max(T_B1 16, T_AR2 4.5) + max(T_U2 2, T_AR1 3) + T_U1 1 = 82.
    EXPECT_DOUBLE_EQ(smartnic_model(in).total, 82);
    in.layer_dims = {2};
    in.update_s = {1};
    // 8 + 16 + 3 + 1.
    EXPECT_DOUBLE_EQ(smartnic_model(in).total, 28);
}

TEST(smartnic_model, rejects_bad_inputs) {
    auto in = hand_case();
    in.nodes = 1;
    EXPECT_THROW(smartnic_model(in), std::invalid_argument);
    in = hand_case();
    in.update_s = {1};
    EXPECT_THROW(smartnic_model(in), std::invalid_argument);
    in = hand_case();
    in.beta = 0;
    EXPECT_THROW(smartnic_model(in), std::invalid_argument);
}
