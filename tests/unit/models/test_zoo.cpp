// The zoo against the papers and the original architecture papers: parameter counts (exact),
// model sizes (inceptionn.md §VII-A, within 2 %) and forward FLOPs (rounded published figures).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "workloads/models/model_loader.h"

namespace trainvp::models {
namespace {

using i64 = std::int64_t;

// What inceptionn.md's "MB" means: every CNN figure it gives (AlexNet 233 and 232, VGG-16 525,
// ResNet-50 98) is parameters x 4 B in units of 2^20 bytes -- see MegabytesMeanMebibytes.
constexpr double MIB = 1024.0 * 1024.0;

model load(const std::string& name, i64 batch = 1) {
    model_options o;
    o.batch = batch;
    return load_model(find_zoo_model(name), o);
}

double deviation(double ours, double paper) { return (ours - paper) / paper; }

// Sum of conv and fc forward FLOPs / 2: the multiply-adds that published "GMAC" / "FLOPs"
// figures of CNNs count (they leave out activations, pooling and normalisation).
double conv_fc_macs(const model& m) {
    i64 f = 0;
    for (const auto& l : m.layers()) {
        if (l.kind == layer_kind::CONV || l.kind == layer_kind::FC) f += l.forward_flops;
    }
    return static_cast<double>(f) / 2.0;
}

TEST(ModelZoo, ListsEveryModel) {
    const auto names = zoo_model_names();
    for (const char* n : {"alexnet", "alexnet_1tower", "alexnet_v2", "dlrm", "hdc", "inception_v3",
                          "mlp", "nin", "resnet50", "transformer", "vgg16", "vgg16_slim",
                          "dcgan_generator", "dcgan_discriminator", "alexnet_v2_1gpu"}) {
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
    }
}

TEST(ModelZoo, EveryModelLoadsAndScalesLinearlyWithBatch) {
    for (const auto& name : zoo_model_names()) {
        SCOPED_TRACE(name);
        const model one = load(name, 1);
        const model many = load(name, 448);
        EXPECT_FALSE(one.source().empty());
        EXPECT_EQ(one.totals().params, many.totals().params);
        EXPECT_EQ(many.totals().forward_flops, 448 * one.totals().forward_flops);
        EXPECT_EQ(many.totals().backward_flops(), 448 * one.totals().backward_flops());
        EXPECT_EQ(many.totals().activation_bytes, 448 * one.totals().activation_bytes);
        EXPECT_EQ(one.totals().weight_bytes, 4 * one.totals().params);
        i64 params = 0;
        for (const auto& l : one.layers()) params += l.params;
        EXPECT_EQ(params, one.totals().params);
    }
}

// ---- exact parameter counts of the canonical architectures --------------------------------

// Krizhevsky et al. 2012, two towers: conv1 3*96*121+96, conv2 2 groups of 48->128 5x5,
// conv3 256->384 3x3, conv4 2 groups of 192->192 3x3, conv5 2 groups of 192->128 3x3, then
// 9216->4096->4096->1000.  This is the AlexNet inceptionn.md cites.
TEST(ModelZoo, AlexNetOriginalTwoTowerParameters) {
    const i64 conv = (96 * 3 * 11 * 11 + 96) + (256 * 48 * 5 * 5 + 256) +
                     (384 * 256 * 3 * 3 + 384) + (384 * 192 * 3 * 3 + 384) +
                     (256 * 192 * 3 * 3 + 256);
    const i64 fc = (9216 * 4096 + 4096) + (4096 * 4096 + 4096) + (4096 * 1000 + 1000);
    EXPECT_EQ(conv + fc, 60965224);
    EXPECT_EQ(load("alexnet").totals().params, 60965224);
}

// Single tower (64-192-384-256-256) without groups: 61,100,840.
TEST(ModelZoo, AlexNetSingleTowerParameters) {
    EXPECT_EQ(load("alexnet_1tower").totals().params, 61100840);
}

// Simonyan & Zisserman 2015, configuration D.
TEST(ModelZoo, Vgg16Parameters) { EXPECT_EQ(load("vgg16").totals().params, 138357544); }

// The PALEO authors' networks (TalwalkarLab/paleo nets/*.json), checked against the sum over
// those files' filters and biases and against paleo.md's own counts.
TEST(ModelZoo, PaleoAuthorsNetworksParameters) {
    // alex_v2.json: conv 11x11x3x64, 5x5x64x192, 3x3x192x384, 3x3x384x384, 3x3x384x256; fc6 a
    // 5x5x256x4096 conv, fc7 4096x4096, fc8 4096x1000; biases.
    const i64 alex = (11 * 11 * 3 * 64 + 64) + (5 * 5 * 64 * 192 + 192) + (9 * 192 * 384 + 384) +
                     (9 * 384 * 384 + 384) + (9 * 384 * 256 + 256) + (25 * 256 * 4096 + 4096) +
                     (4096 * 4096 + 4096) + (4096 * 1000 + 1000);
    EXPECT_EQ(load("alexnet_v2").totals().params, alex);
    // paleo.md §4.3.1: "the one-tower variant of AlexNet has 50 million parameters", read as
    // [50, 51) million (a count written to two digits, truncated).
    EXPECT_GE(alex, 50000000);
    EXPECT_LT(alex, 51000000);
    // alex_v2_1gpu.json (cuda-convnet2, scripts/exp_case_hybrid.sh): conv4 3x3x384x256, conv5
    // 3x3x256x256, the rest as alex_v2.json; also "50 million" (49.57 M, to two digits).
    const i64 owt = (11 * 11 * 3 * 64 + 64) + (5 * 5 * 64 * 192 + 192) + (9 * 192 * 384 + 384) +
                    (9 * 384 * 256 + 256) + (9 * 256 * 256 + 256) + (25 * 256 * 4096 + 4096) +
                    (4096 * 4096 + 4096) + (4096 * 1000 + 1000);
    EXPECT_EQ(owt, 49566504);
    EXPECT_EQ(load("alexnet_v2_1gpu").totals().params, owt);
    // vgg16.json: the same weights as configuration D, fc6 as a 7x7 conv.
    EXPECT_EQ(load("vgg16_slim").totals().params, 138357544);
    // nin.json: four mlpconv stages (k x k conv + two 1x1), biases.
    const i64 nin = (11 * 11 * 3 * 96 + 96) + 2 * (96 * 96 + 96) + (25 * 96 * 256 + 256) +
                    2 * (256 * 256 + 256) + (9 * 256 * 384 + 384) + 2 * (384 * 384 + 384) +
                    (9 * 384 * 1024 + 1024) + (1024 * 1024 + 1024) + (1024 * 1000 + 1000);
    EXPECT_EQ(load("nin").totals().params, nin);
    // inception_v3.json: no biases (batch norm), logits 2048x1000 + 1000.  paleo.md §4.3.1:
    // "the Inception model with 23 million parameter", read as [23, 24) million.
    const i64 inception = load("inception_v3").totals().params;
    EXPECT_EQ(inception, 23717192);
    EXPECT_GE(inception, 23000000);
    EXPECT_LT(inception, 24000000);
}

// He et al. 2016: conv weights (no bias) + BN gamma/beta + fc 2048*1000+1000.
// DCGAN (paleo.md §4.3.2's GAN "inspired by Radford et al."): no total is published, so the
// count is the sum of the parameter tensors the DCGAN authors released with their 64x64 model
// (Newmu/dcgan_code faces/train_uncond_dcgan.py, ngf = ndf = 128), written out per tensor.
TEST(ModelZoo, DcganMatchesTheReleasedParameterTensors) {
    const i64 gen = 100 * 16384 + 2 * 16384       // gw; gg, gb
                    + 1024 * 512 * 25 + 2 * 512   // gw2; gg2, gb2
                    + 512 * 256 * 25 + 2 * 256    // gw3; gg3, gb3
                    + 256 * 128 * 25 + 2 * 128    // gw4; gg4, gb4
                    + 128 * 3 * 25;               // gwx
    const i64 dis = 128 * 3 * 25                  // dw
                    + 256 * 128 * 25 + 2 * 256    // dw2; dg2, db2
                    + 512 * 256 * 25 + 2 * 512    // dw3; dg3, db3
                    + 1024 * 512 * 25 + 2 * 1024  // dw4; dg4, db4
                    + 16384;                      // dwy
    ASSERT_EQ(gen, 18885760);
    ASSERT_EQ(dis, 17232768);
    const model g = load("dcgan_generator");
    const model d = load("dcgan_discriminator");
    EXPECT_EQ(g.totals().params, gen);
    EXPECT_EQ(d.totals().params, dis);
    // Fig. 1's shapes: 4x4x1024 -> 8x8x512 -> 16x16x256 -> 32x32x128 -> 64x64x3, and the
    // discriminator back down to 4x4x1024.
    EXPECT_EQ(g.layers().back().output_shape, tensor_shape::chw(3, 64, 64));
    EXPECT_EQ(g.layers().at(4).output_shape, tensor_shape::chw(512, 8, 8));
    EXPECT_EQ(d.layers().at(9).output_shape, tensor_shape::chw(1024, 4, 4));
    // Mirror images: the four 5x5 layers of each have the same multiply-adds (1.277 G/sample).
    i64 gm = 0, dm = 0;
    for (const auto& l : g.layers()) gm += l.kind == layer_kind::DECONV ? l.forward_flops / 2 : 0;
    for (const auto& l : d.layers()) dm += l.kind == layer_kind::CONV ? l.forward_flops / 2 : 0;
    EXPECT_EQ(gm, dm);
    EXPECT_EQ(gm, 3 * i64{1024 * 512 * 25 * 16} + 128 * 3 * 25 * 1024);
}

TEST(ModelZoo, ResNet50ParametersWithBatchnormGammaBeta) {
    const model m = load("resnet50");
    EXPECT_EQ(m.totals().params, 25557032);
    i64 bn = 0;
    for (const auto& l : m.layers()) {
        if (l.kind == layer_kind::BATCHNORM) bn += l.params;
    }
    // 53 BN layers (49 convs on the main path + 4 projections); gamma and beta per channel.
    EXPECT_EQ(bn, 2 * 26560);
}

// inceptionn.md §VII-A: five fc layers, hidden width 500 -> 784-500-500-500-500-10.
TEST(ModelZoo, HdcAsTheTextDescribesIt) {
    const model m = load("hdc");
    const i64 expected = (784 * 500 + 500) + 3 * (500 * 500 + 500) + (500 * 10 + 10);
    EXPECT_EQ(expected, 1149010);
    EXPECT_EQ(m.totals().params, expected);
    int fc = 0;
    for (const auto& l : m.layers()) fc += l.kind == layer_kind::FC;
    EXPECT_EQ(fc, 5);
}

// DLRM benchmark configuration (Naumov et al. 2019): bottom 512-512-64, 8 x 1M x 64 tables,
// top 100-1024-1024-1024-1.
TEST(ModelZoo, DlrmParameters) {
    const model m = load("dlrm");
    const i64 bottom = (512 * 512 + 512) + (512 * 64 + 64);
    const i64 tables = i64{8} * 1000000 * 64;
    const i64 top = (100 * 1024 + 1024) + 2 * (1024 * 1024 + 1024) + (1024 * 1 + 1);
    EXPECT_EQ(m.totals().params, bottom + tables + top);
    EXPECT_EQ(m.layer("interact").output_shape, tensor_shape::features(64 + 9 * 8 / 2));
}

// Vaswani et al. 2017 base: per layer 4 d^2 + 4 d (attention) + 2 d d_ff + d_ff + d (FFN)
// + 4 d (two layernorms); plus the 37,000 x 512 embedding.
TEST(ModelZoo, TransformerBaseEncoderParameters) {
    const model m = load("transformer");
    const i64 d = 512, ff = 2048;
    const i64 per_layer = (4 * d * d + 4 * d) + (2 * d * ff + ff + d) + 4 * d;
    EXPECT_EQ(per_layer, 3152384);
    EXPECT_EQ(m.totals().params, 6 * per_layer + 37000 * d);
}

// ---- model sizes against inceptionn.md --------------------------------------------------

// The paper's MB is 2^20 bytes: with 10^6 every CNN figure would be 4-6 % below our canonical
// counts, with 2^20 all are within 0.6 %.
TEST(ModelZoo, MegabytesMeanMebibytes) {
    const struct {
        const char* name;
        double paper_mb;
    } cases[] = {{"alexnet", 233}, {"vgg16", 525}, {"resnet50", 98}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const double bytes = static_cast<double>(load(c.name).totals().weight_bytes);
        EXPECT_LT(std::fabs(deviation(bytes / MIB, c.paper_mb)), 0.006);
        EXPECT_GT(std::fabs(deviation(bytes / 1e6, c.paper_mb)), 0.04);
    }
}

// inceptionn.md: "The model size of AlexNet is 233 MB" (§VII-A); the introduction says 232 MB.
// Two-tower 60,965,224 x 4 B = 232.56 MiB: -0.19 % from 233, +0.24 % from 232.
TEST(ModelZoo, AlexNetSizeMatchesPaper) {
    const double mib = load("alexnet").totals().weight_bytes / MIB;
    EXPECT_NEAR(mib, 233.0, 233.0 * 0.02);
    EXPECT_NEAR(mib, 232.0, 232.0 * 0.02);
    EXPECT_NEAR(mib, 232.564, 0.001);
}

// "its model size is 525 MB": 138,357,544 x 4 B = 527.79 MiB, +0.53 %.
TEST(ModelZoo, Vgg16SizeMatchesPaper) {
    const double mib = load("vgg16").totals().weight_bytes / MIB;
    EXPECT_NEAR(mib, 525.0, 525.0 * 0.02);
}

// "ResNet-50 has a model size of 98 MB": 25,557,032 x 4 B = 97.49 MiB, -0.52 %.
TEST(ModelZoo, ResNet50SizeMatchesPaper) {
    const double mib = load("resnet50").totals().weight_bytes / MIB;
    EXPECT_NEAR(mib, 98.0, 98.0 * 0.02);
}

// "five fully-connected layers ... each hidden layer is 500 and the model size is 2.5 MB".
// These disagree: five fc layers of width 500 are 1,149,010 parameters = 4.38 MiB (+75 %).  We
// model the layers the text describes (asserted exactly in HdcAsTheTextDescribesIt) and do not
// fudge the size.  The 2.5 MB figure is what three fc layers give (784-500-500-10 = 648,010
// parameters = 2.47 MiB, -1.1 %), i.e. "five layers" probably counts input and output layers;
// fc_layers: 3 selects that reading.
TEST(ModelZoo, HdcSizeDisagreesWithPaperAndWhy) {
    const double mib = load("hdc").totals().weight_bytes / MIB;
    EXPECT_NEAR(mib, 1149010 * 4 / MIB, 1e-9);
    EXPECT_GT(deviation(mib, 2.5), 0.70);

    model_options three;
    three.batch = 1;
    three.parameters = {{"fc_layers", 3}};
    const model m3 = load_model(find_zoo_model("hdc"), three);
    EXPECT_EQ(m3.totals().params, (784 * 500 + 500) + (500 * 500 + 500) + (500 * 10 + 10));
    EXPECT_NEAR(m3.totals().weight_bytes / MIB, 2.5, 2.5 * 0.02);
}

// ---- forward FLOPs at batch 1 -------------------------------------------------------------

// VGG-16 is commonly quoted at 15.5 GMAC (~31 GFLOP).  Exact conv+fc multiply-adds, from
// configuration D: sum over the 13 convs of K*C*9*P*Q plus the fc layers = 15,470,264,320.
// Tolerance 0.5 %: 15.5 is rounded to three significant figures (+-0.32 %).
TEST(ModelZoo, Vgg16ForwardFlops) {
    const model m = load("vgg16");
    const struct {
        i64 c, k, p;
    } convs[] = {{3, 64, 224},   {64, 64, 224},  {64, 128, 112}, {128, 128, 112}, {128, 256, 56},
                 {256, 256, 56}, {256, 256, 56}, {256, 512, 28}, {512, 512, 28},  {512, 512, 28},
                 {512, 512, 14}, {512, 512, 14}, {512, 512, 14}};
    i64 macs = i64{25088} * 4096 + 4096 * 4096 + 4096 * 1000;
    for (const auto& c : convs) macs += c.k * c.c * 9 * c.p * c.p;
    EXPECT_EQ(macs, 15470264320);
    EXPECT_EQ(conv_fc_macs(m), static_cast<double>(macs));
    EXPECT_NEAR(conv_fc_macs(m), 15.5e9, 15.5e9 * 0.005);
    // All layers (ReLU, pooling, softmax, dropout add 0.06 %): still ~31 GFLOP.
    EXPECT_NEAR(m.totals().forward_flops, 31e9, 31e9 * 0.005);
}

// AlexNet is commonly quoted at 0.72 GMAC.  Two-tower: 724,406,816 multiply-adds (+0.61 %);
// tolerance 0.7 %, the rounding of a two-significant-figure 0.72 (+-0.69 %).  The single tower
// has 714,188,480 (-0.81 % from 0.72), so 0.72 describes the original better; its own common
// figure is 0.71 GMAC (+0.59 %, same rounding tolerance).
TEST(ModelZoo, AlexNetForwardFlops) {
    const i64 two_tower = i64{96} * 3 * 121 * 55 * 55 + i64{256} * 48 * 25 * 27 * 27 +
                          i64{384} * 256 * 9 * 13 * 13 + i64{384} * 192 * 9 * 13 * 13 +
                          i64{256} * 192 * 9 * 13 * 13 + 9216 * 4096 + 4096 * 4096 + 4096 * 1000;
    EXPECT_EQ(two_tower, 724406816);
    EXPECT_EQ(conv_fc_macs(load("alexnet")), static_cast<double>(two_tower));
    EXPECT_NEAR(conv_fc_macs(load("alexnet")), 0.72e9, 0.72e9 * 0.007);

    const i64 one_tower = i64{64} * 3 * 121 * 55 * 55 + i64{192} * 64 * 25 * 27 * 27 +
                          i64{384} * 192 * 9 * 13 * 13 + i64{256} * 384 * 9 * 13 * 13 +
                          i64{256} * 256 * 9 * 13 * 13 + 9216 * 4096 + 4096 * 4096 + 4096 * 1000;
    EXPECT_EQ(one_tower, 714188480);
    EXPECT_EQ(conv_fc_macs(load("alexnet_1tower")), static_cast<double>(one_tower));
    EXPECT_NEAR(conv_fc_macs(load("alexnet_1tower")), 0.71e9, 0.71e9 * 0.007);
}

// He et al. 2016, Table 1: ResNet-50 "3.8 x 10^9" FLOPs (they count multiply-adds).  Ours:
// 3,857,973,248 multiply-adds (computed independently stage by stage).  Reading the paper's
// figure as truncated to two significant figures (it does not say), the test asserts
// [3.8, 3.9) x 10^9 rather than a symmetric band around 3.8 (we are +1.5 % from it).
TEST(ModelZoo, ResNet50ForwardFlops) {
    const double macs = conv_fc_macs(load("resnet50"));
    EXPECT_EQ(macs, 3857973248.0);
    EXPECT_GE(macs, 3.8e9);
    EXPECT_LT(macs, 3.9e9);
}

}  // namespace
}  // namespace trainvp::models
