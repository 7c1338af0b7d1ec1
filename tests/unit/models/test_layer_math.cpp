// Per-layer formulas against closed forms written out by hand (paleo.md §3.1.3 for conv,
// smartnic.md §IV-C for the MLP).  A multiply-add is 2 FLOPs throughout.
#include <gtest/gtest.h>

#include <cstdint>

#include "workloads/models/layer_math.h"
#include "workloads/models/model_loader.h"

namespace trainvp::models {
namespace {

using i64 = std::int64_t;

layer_info make(layer_kind kind, const layer_spec& spec, const tensor_shape& in) {
    layer_info l;
    l.name = "l";
    l.kind = kind;
    l.spec = spec;
    l.inputs = {"input"};
    l.input_shapes = {in};
    return l;
}

model_options batch_of(i64 n) {
    model_options o;
    o.batch = n;
    return o;
}

// AlexNet's conv2 (grouped, two towers), batch 4.
TEST(ModelLayerMath, GroupedConvMatchesPaleoFormula) {
    layer_spec s;
    s.out_channels = 256;
    s.kernel_h = s.kernel_w = 5;
    s.pad_h = s.pad_w = 2;
    s.groups = 2;
    s.bias = true;
    layer_info l = make(layer_kind::CONV, s, tensor_shape::chw(96, 27, 27));
    layer_math::derive(l, 4, 4);

    const i64 K = 256, C = 96, g = 2, R = 5, S = 5, N = 4;
    const i64 P = (27 + 2 * 2 - 5) / 1 + 1, Q = P;  // 27
    EXPECT_EQ(P, 27);
    EXPECT_EQ(l.output_shape, tensor_shape::chw(K, P, Q));
    EXPECT_EQ(l.params, K * (C / g) * R * S + K);  // 307,456
    EXPECT_EQ(l.params, 307456);
    // paleo.md §3.1.3: 2*K*C*R*S*N*P*Q, with C per group.
    EXPECT_EQ(l.forward_flops, 2 * K * (C / g) * R * S * N * P * Q);
    EXPECT_EQ(l.backward_input_flops, l.forward_flops);
    EXPECT_EQ(l.backward_weight_flops, l.forward_flops);
    EXPECT_EQ(l.backward_flops(), 2 * l.forward_flops);
    EXPECT_EQ(l.activation_bytes, N * K * P * Q * 4);
    EXPECT_EQ(l.weight_bytes, 307456 * 4);
    EXPECT_EQ(l.weight_grad_bytes, l.weight_bytes);
}

TEST(ModelLayerMath, ConvWithRectangularKernelStrideAndPadding) {
    layer_spec s;
    s.out_channels = 6;
    s.kernel_h = 3;
    s.kernel_w = 1;
    s.stride_h = 2;
    s.stride_w = 1;
    s.pad_h = 1;
    s.pad_w = 0;
    s.bias = false;
    layer_info l = make(layer_kind::CONV, s, tensor_shape::chw(8, 10, 9));
    layer_math::derive(l, 3, 4);
    const i64 P = (10 + 2 - 3) / 2 + 1;  // 5
    const i64 Q = (9 + 0 - 1) / 1 + 1;   // 9
    EXPECT_EQ(l.output_shape, tensor_shape::chw(6, P, Q));
    EXPECT_EQ(l.params, 6 * 8 * 3 * 1);
    EXPECT_EQ(l.forward_flops, 2 * 6 * 8 * 3 * 1 * 3 * P * Q);
}

TEST(ModelLayerMath, FullyConnectedIsTwoInOutBatch) {
    layer_spec s;
    s.out_features = 4096;
    s.bias = true;
    layer_info l = make(layer_kind::FC, s, tensor_shape::features(9216));
    layer_math::derive(l, 32, 4);
    EXPECT_EQ(l.output_shape, tensor_shape::features(4096));
    EXPECT_EQ(l.params, i64{9216} * 4096 + 4096);
    EXPECT_EQ(l.forward_flops, i64{2} * 9216 * 4096 * 32);
    EXPECT_EQ(l.backward_input_flops, i64{2} * 9216 * 4096 * 32);   // dX = dY * W^T
    EXPECT_EQ(l.backward_weight_flops, i64{2} * 9216 * 4096 * 32);  // dW = X^T * dY
}

TEST(ModelLayerMath, FullyConnectedActsPerToken) {
    layer_spec s;
    s.out_features = 2048;
    s.bias = false;
    layer_info l = make(layer_kind::FC, s, tensor_shape::tokens(128, 512));
    layer_math::derive(l, 2, 4);
    EXPECT_EQ(l.output_shape, tensor_shape::tokens(128, 2048));
    EXPECT_EQ(l.params, 512 * 2048);
    EXPECT_EQ(l.forward_flops, i64{2} * 512 * 2048 * 128 * 2);
}

TEST(ModelLayerMath, PoolCountsOneOpPerWindowElement) {
    layer_spec s;
    s.kernel_h = s.kernel_w = 3;
    s.stride_h = s.stride_w = 2;
    s.pool = pool_op::MAX;
    layer_info l = make(layer_kind::POOL, s, tensor_shape::chw(96, 55, 55));
    layer_math::derive(l, 2, 4);
    EXPECT_EQ(l.output_shape, tensor_shape::chw(96, 27, 27));
    EXPECT_EQ(l.params, 0);
    EXPECT_EQ(l.forward_flops, i64{2} * 96 * 27 * 27 * 3 * 3);
    EXPECT_EQ(l.backward_weight_flops, 0);
}

TEST(ModelLayerMath, BatchnormHasGammaAndBetaPerChannel) {
    layer_info l = make(layer_kind::BATCHNORM, layer_spec{}, tensor_shape::chw(64, 56, 56));
    layer_math::derive(l, 2, 4);
    EXPECT_EQ(l.params, 2 * 64);
    EXPECT_EQ(l.forward_flops, 8 * 2 * 64 * 56 * 56);
    EXPECT_EQ(l.backward_flops(), 8 * 2 * 64 * 56 * 56);
}

TEST(ModelLayerMath, EmbeddingBagAndInteractionAsInDlrm) {
    layer_spec e;
    e.rows = 1000;
    e.dim = 16;
    e.lookups = 20;
    e.tables = 3;
    e.pooling = embedding_pooling::SUM;
    layer_info emb;
    emb.name = "emb";
    emb.kind = layer_kind::EMBEDDING;
    emb.spec = e;
    layer_math::derive(emb, 5, 4);
    EXPECT_EQ(emb.output_shape, tensor_shape::tokens(3, 16));
    EXPECT_EQ(emb.params, 3 * 1000 * 16);
    EXPECT_EQ(emb.forward_flops, 5 * 3 * 20 * 16);          // accumulate every gathered value
    EXPECT_EQ(emb.backward_weight_flops, 5 * 3 * 20 * 16);  // scatter-add into the rows
    EXPECT_EQ(emb.backward_input_flops, 0);                 // indices have no gradient

    layer_info it;
    it.name = "interact";
    it.kind = layer_kind::INTERACTION;
    it.inputs = {"dense", "emb"};
    it.input_shapes = {tensor_shape::features(16), tensor_shape::tokens(3, 16)};
    layer_math::derive(it, 5, 4);
    const i64 F = 1 + 3;  // dense vector + 3 pooled embeddings
    EXPECT_EQ(it.output_shape, tensor_shape::features(16 + F * (F - 1) / 2));
    EXPECT_EQ(it.forward_flops, 2 * F * F * 16 * 5);
    EXPECT_EQ(it.backward_input_flops, 2 * it.forward_flops);
}

TEST(ModelLayerMath, AttentionIncludesProjectionsScoresAndSoftmax) {
    layer_spec s;
    s.heads = 8;
    s.bias = true;
    layer_info l = make(layer_kind::ATTENTION, s, tensor_shape::tokens(128, 512));
    layer_math::derive(l, 3, 4);
    const i64 T = 128, d = 512, h = 8, N = 3;
    EXPECT_EQ(l.params, 4 * d * d + 4 * d);
    EXPECT_EQ(l.forward_flops, N * (8 * T * d * d + 4 * T * T * d + 6 * h * T * T));
    EXPECT_EQ(l.backward_weight_flops, N * 8 * T * d * d);
    EXPECT_EQ(l.backward_input_flops, N * (8 * T * d * d + 8 * T * T * d + 5 * h * T * T));
}

// smartnic.md §IV-C: T_F = 2 M^2 B / P and T_B = 4 M^2 B / P per layer of an L-layer MLP.
TEST(ModelLayerMath, SmartNicMlpClosedForms) {
    for (i64 batch : {i64{448}, i64{1792}}) {
        const model m = load_model(find_zoo_model("mlp"), batch_of(batch));
        const i64 L = 20, w = 2048, B = batch;
        EXPECT_EQ(m.parameters().at("layers"), L);
        EXPECT_EQ(m.parameters().at("width"), w);
        EXPECT_EQ(m.totals().params, L * (w * w + w));  // 83,927,040
        EXPECT_EQ(m.totals().params, 83927040);
        i64 fc_fwd = 0, fc_bwd = 0;
        int fc_layers = 0;
        for (const auto& l : m.layers()) {
            if (l.kind != layer_kind::FC) continue;
            ++fc_layers;
            fc_fwd += l.forward_flops;
            fc_bwd += l.backward_flops();
        }
        EXPECT_EQ(fc_layers, L);
        EXPECT_EQ(fc_fwd, 2 * B * w * w * L);
        EXPECT_EQ(fc_bwd, 4 * B * w * w * L);
        // Plus one ReLU per output value of every layer.
        EXPECT_EQ(m.totals().forward_flops, 2 * B * w * w * L + B * w * L);
        EXPECT_EQ(m.totals().weight_grad_bytes, L * (w * w + w) * 4);
    }
}

TEST(ModelLayerMath, MlpIsParametric) {
    model_options o = batch_of(16);
    o.parameters = {{"layers", 3}, {"width", 64}};
    const model m = load_model(find_zoo_model("mlp"), o);
    EXPECT_EQ(m.totals().params, 3 * (64 * 64 + 64));
    EXPECT_EQ(m.totals().forward_flops, 2 * 16 * 64 * 64 * 3 + 16 * 64 * 3);
    ASSERT_EQ(m.layers().size(), 6u);
    EXPECT_EQ(m.layers()[0].name, "layer.1.fc");
    EXPECT_EQ(m.layers()[5].name, "layer.3.relu");
}

}  // namespace
}  // namespace trainvp::models
