// The model file format: parameters and overrides, expressions, blocks and repetition, graph
// references, defaults of optional keys and the derived totals.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/config_node.h"
#include "core/param_decl.h"
#include "workloads/models/expression.h"
#include "workloads/models/model_loader.h"

namespace trainvp::models {
namespace {

using i64 = std::int64_t;

model parse(const std::string& text, i64 batch = 1, std::map<std::string, i64> overrides = {}) {
    model_options o;
    o.batch = batch;
    o.parameters = std::move(overrides);
    return parse_model(text, "inline.yaml", o);
}

TEST(ModelExpression, ArithmeticAndParameters) {
    const std::map<std::string, i64> v = {{"d", 512}, {"h", 8}};
    EXPECT_EQ(expression::evaluate("42", v), 42);
    EXPECT_EQ(expression::evaluate("-3", v), -3);
    EXPECT_EQ(expression::evaluate("4 * d", v), 2048);
    EXPECT_EQ(expression::evaluate("d / h - 1", v), 63);
    EXPECT_EQ(expression::evaluate("(d + 2) * 2", v), 1028);
    EXPECT_EQ(expression::evaluate("2 - -2", v), 4);
    EXPECT_THROW(expression::evaluate("d / 3", v), expression_error);
    EXPECT_THROW(expression::evaluate("d / 0", v), expression_error);
    EXPECT_THROW(expression::evaluate("(d", v), expression_error);
    EXPECT_THROW(expression::evaluate("", v), expression_error);
    EXPECT_THROW(expression::evaluate("9223372036854775807 + 1", v), expression_error);
    EXPECT_THROW(expression::evaluate("99999999999999999999", v), expression_error);
}

TEST(ModelFormat, ParametersDefaultsOverridesAndDerivedDefaults) {
    const std::string text =
        "name: t\n"
        "source: test\n"
        "parameters: {width: 8, wide: 2 * width}\n"
        "input: {features: width}\n"
        "layers:\n"
        "  - {name: fc, kind: fc, in: width, out: wide, bias: false}\n";
    const model a = parse(text);
    EXPECT_EQ(a.parameters().at("width"), 8);
    EXPECT_EQ(a.parameters().at("wide"), 16);
    EXPECT_EQ(a.totals().params, 8 * 16);
    // A default written in terms of an earlier parameter follows that parameter's override.
    const model b = parse(text, 1, {{"width", 3}});
    EXPECT_EQ(b.parameters().at("wide"), 6);
    EXPECT_EQ(b.totals().params, 3 * 6);
    const model c = parse(text, 1, {{"wide", 5}});
    EXPECT_EQ(c.totals().params, 8 * 5);
}

TEST(ModelFormat, ConvOptionalKeysHaveConventionalDefaults) {
    const model m = parse(
        "name: t\nsource: test\ninput: {channels: 4, height: 9, width: 9}\nlayers:\n"
        "  - {name: c, kind: conv, out_channels: 2, kernel: 3, bias: true}\n");
    const auto& l = m.layer("c");
    EXPECT_EQ(l.spec.stride_h, 1);
    EXPECT_EQ(l.spec.pad_h, 0);
    EXPECT_EQ(l.spec.groups, 1);
    EXPECT_EQ(l.output_shape, tensor_shape::chw(2, 7, 7));
    EXPECT_EQ(l.params, 2 * 4 * 9 + 2);
}

TEST(ModelFormat, UnnamedLayersAreNamedByKindAndPosition) {
    const model m = parse(
        "name: t\nsource: test\ninput: {features: 4}\nlayers:\n"
        "  - {kind: fc, out: 4, bias: true}\n"
        "  - {kind: relu}\n");
    EXPECT_EQ(m.layers()[0].name, "fc_1");
    EXPECT_EQ(m.layers()[1].name, "relu_2");
    EXPECT_EQ(m.layers()[1].inputs, std::vector<std::string>{"fc_1"});
}

TEST(ModelFormat, BlocksRepeatAndShortcuts) {
    const model m = parse(
        "name: t\n"
        "source: test\n"
        "input: {channels: 8, height: 4, width: 4}\n"
        "blocks:\n"
        "  res:\n"
        "    parameters: [ch]\n"
        "    layers:\n"
        "      - {name: conv, kind: conv, out_channels: ch, kernel: 3, padding: 1, bias: false}\n"
        "      - {name: sum, kind: add, inputs: [conv, input]}\n"
        "layers:\n"
        "  - {name: stem, kind: relu}\n"
        "  - {name: stage, block: res, repeat: 3, args: {ch: 8}}\n"
        "  - {name: one, block: res, args: {ch: 8}}\n"
        "  - {name: none, block: res, repeat: 0, args: {ch: 8}}\n"
        "  - {name: skip, kind: add, inputs: [stage, stem]}\n");
    std::vector<std::string> names;
    for (const auto& l : m.layers()) names.push_back(l.name);
    EXPECT_EQ(names, (std::vector<std::string>{"stem", "stage.1.conv", "stage.1.sum",
                                               "stage.2.conv", "stage.2.sum", "stage.3.conv",
                                               "stage.3.sum", "one.conv", "one.sum", "skip"}));
    // Each repetition starts from the previous one's output; `input` is the block's input.
    EXPECT_EQ(m.layer("stage.1.conv").inputs, std::vector<std::string>{"stem"});
    EXPECT_EQ(m.layer("stage.1.sum").inputs, (std::vector<std::string>{"stage.1.conv", "stem"}));
    EXPECT_EQ(m.layer("stage.2.sum").inputs,
              (std::vector<std::string>{"stage.2.conv", "stage.1.sum"}));
    // A use's name is its last repetition's output; repeated 0 times it passes its input on.
    EXPECT_EQ(m.layer("skip").inputs, (std::vector<std::string>{"stage.3.sum", "stem"}));
    EXPECT_EQ(m.layer("one.conv").inputs, std::vector<std::string>{"stage.3.sum"});
}

TEST(ModelFormat, ConcatAndFlatten) {
    const model m = parse(
        "name: t\nsource: test\ninput: {channels: 3, height: 8, width: 8}\nlayers:\n"
        "  - {name: a, kind: conv, out_channels: 4, kernel: 1, bias: false}\n"
        "  - {name: b, kind: conv, inputs: [input], out_channels: 6, kernel: 1, bias: false}\n"
        "  - {name: cat, kind: concat, inputs: [a, b]}\n"
        "  - {name: flat, kind: flatten}\n");
    EXPECT_EQ(m.layer("cat").output_shape, tensor_shape::chw(10, 8, 8));
    EXPECT_EQ(m.layer("flat").output_shape, tensor_shape::features(640));
}

// A feature vector reshaped to a map, then transposed convolutions (DCGAN's generator): the
// output padding defaults to 0; reshape must keep the values; output_padding < stride.
TEST(ModelFormat, ReshapeAndDeconv) {
    const std::string head =
        "name: t\nsource: test\ninput: {features: 64}\nlayers:\n"
        "  - {name: r, kind: reshape, channels: 16, height: 2, width: 2}\n";
    const model m = parse(head +
                          "  - {name: d, kind: deconv, out_channels: 8, kernel: 5, stride: 2, "
                          "padding: 2, output_padding: 1, bias: true}\n"
                          "  - {name: e, kind: deconv, in_channels: 8, out_channels: 3, kernel: 3, "
                          "bias: false}\n");
    EXPECT_EQ(m.layer("r").output_shape, tensor_shape::chw(16, 2, 2));
    EXPECT_EQ(m.layer("r").forward_flops, 0);
    EXPECT_EQ(m.layer("d").output_shape, tensor_shape::chw(8, 4, 4));  // 1x2 - 4 + 5 + 1
    EXPECT_EQ(m.layer("d").params, 16 * 8 * 25 + 8);
    EXPECT_EQ(m.layer("e").output_shape, tensor_shape::chw(3, 6, 6));  // 3 + 3
    EXPECT_THROW(parse(head + "  - {kind: deconv, out_channels: 8, kernel: 5, stride: 2, "
                              "output_padding: 2, bias: true}\n"),
                 input_error);
    EXPECT_THROW(parse(head + "  - {kind: deconv, out_channels: 8, kernel: 5, groups: 2, "
                              "bias: true}\n"),
                 input_error);
    EXPECT_THROW(parse("name: t\nsource: test\ninput: {features: 60}\nlayers:\n"
                       "  - {kind: reshape, channels: 16, height: 2, width: 2}\n"),
                 input_error);
}

// A generic layer (what tools/import_torch_model.py writes for an operation with no kind):
// its output shape, parameters and per-sample FLOPs are the file's; the batch multiplies them
// and the bytes follow from the shapes.  Several inputs are allowed; so is no count (data
// movement).
TEST(ModelFormat, GenericLayerStatesItsCosts) {
    const model m = parse(
        "name: t\nsource: test\ninput: {channels: 3, height: 4, width: 4}\nlayers:\n"
        "  - {name: p, kind: generic, op: permute, output: {tokens: 16, features: 3}}\n"
        "  - {name: g, kind: generic, op: torch.nn.GELU, output: {tokens: 16, features: 3}, "
        "forward_flops: 240, backward_input_flops: 384, note: \"gelu\"}\n"
        "  - {name: pos, kind: generic, op: add, inputs: [g, p], output: {tokens: 17, features: "
        "3}, params: 51, forward_flops: 51, backward_weight_flops: 51}\n",
        8);
    const layer_info& g = m.layer("g");
    EXPECT_EQ(g.kind, layer_kind::GENERIC);
    EXPECT_EQ(g.spec.op, "torch.nn.GELU");
    EXPECT_EQ(g.spec.note, "gelu");
    EXPECT_EQ(g.output_shape, tensor_shape::tokens(16, 3));
    EXPECT_EQ(g.forward_flops, 8 * 240);
    EXPECT_EQ(g.backward_input_flops, 8 * 384);
    EXPECT_EQ(g.backward_weight_flops, 0);
    EXPECT_EQ(g.activation_bytes, 8 * 48 * 4);
    EXPECT_EQ(m.layer("p").forward_flops, 0);
    const layer_info& pos = m.layer("pos");
    EXPECT_EQ(pos.input_shapes.size(), 2u);
    EXPECT_EQ(pos.params, 51);
    EXPECT_EQ(pos.weight_grad_bytes, 51 * 4);
    EXPECT_EQ(pos.backward_weight_flops, 8 * 51);
    EXPECT_EQ(m.totals().params, 51);
}

TEST(ModelFormat, TotalsAreLayerSums) {
    const model m = load_model(find_zoo_model("resnet50"), [] {
        model_options o;
        o.batch = 2;
        return o;
    }());
    model_totals t;
    for (const auto& l : m.layers()) {
        t.params += l.params;
        t.forward_flops += l.forward_flops;
        t.backward_input_flops += l.backward_input_flops;
        t.backward_weight_flops += l.backward_weight_flops;
        t.activation_bytes += l.activation_bytes;
        t.weight_grad_bytes += l.weight_grad_bytes;
    }
    EXPECT_EQ(m.totals().params, t.params);
    EXPECT_EQ(m.totals().forward_flops, t.forward_flops);
    EXPECT_EQ(m.totals().backward_input_flops, t.backward_input_flops);
    EXPECT_EQ(m.totals().backward_weight_flops, t.backward_weight_flops);
    EXPECT_EQ(m.totals().activation_bytes, t.activation_bytes);
    EXPECT_EQ(m.totals().weight_grad_bytes, t.weight_grad_bytes);
    EXPECT_EQ(m.batch(), 2);
    EXPECT_EQ(m.name(), "resnet50");
}

TEST(ModelFormat, LayersRecordTheirPositionInTheFile) {
    const model m = load_model(find_zoo_model("alexnet"), [] {
        model_options o;
        o.batch = 1;
        return o;
    }());
    EXPECT_EQ(m.layer("conv1").where.file, find_zoo_model("alexnet"));
    EXPECT_GT(m.layer("conv1").where.line, 0);
    EXPECT_GT(m.layer("conv2").where.line, m.layer("conv1").where.line);
}

TEST(ModelFormat, BytesPerValueOption) {
    model_options o;
    o.batch = 1;
    o.bytes_per_value = 2;
    const model m = load_model(find_zoo_model("vgg16"), o);
    EXPECT_EQ(m.totals().weight_bytes, 2 * m.totals().params);
}

TEST(ModelFormat, ZooDirOverride) {
    EXPECT_EQ(find_zoo_model("vgg16", std::string(TRAINVP_SOURCE_DIR) + "/workloads/models/zoo"),
              std::string(TRAINVP_SOURCE_DIR) + "/workloads/models/zoo/vgg16.yaml");
    EXPECT_THROW(find_zoo_model("vgg16", "/nonexistent"), input_error);
}

// Model files read booleans by the rule of every config value (param_parse::to_bool): each
// spelling a platform config accepts is accepted with the same meaning, and each one it rejects
// is rejected for the same reason.
TEST(ModelFormat, BooleansAreSpeltAsInConfigs) {
    param_decl bool_param;
    bool_param.kind = param_kind::BOOL;
    for (const std::string spelling :
         {"true", "yes", "on", "false", "no", "off", "True", "y", "1", "maybe"}) {
        SCOPED_TRACE(spelling);
        std::string config_reason;
        bool config_value = false;
        try {
            config_value =
                param_parse::to_bool(config_node::scalar_node(spelling, {}), bool_param, "bias");
        } catch (const input_error& e) {
            config_reason = e.reason();
        }
        std::string model_reason;
        try {
            const model m = parse(
                "name: t\nsource: test\ninput: {features: 4}\nlayers:\n"
                "  - {name: fc, kind: fc, out: 2, bias: " +
                spelling + "}\n");
            EXPECT_EQ(m.layer("fc").spec.bias, config_value);
            EXPECT_EQ(m.layer("fc").params, 4 * 2 + (config_value ? 2 : 0));
        } catch (const input_error& e) {
            model_reason = e.reason();
        }
        EXPECT_EQ(model_reason, config_reason);
    }
    // Those that mean true or false in both.
    EXPECT_TRUE(parse("name: t\nsource: test\ninput: {features: 4}\nlayers:\n"
                      "  - {name: fc, kind: fc, out: 2, bias: yes}\n")
                    .layer("fc")
                    .spec.bias);
    EXPECT_FALSE(parse("name: t\nsource: test\ninput: {features: 4}\nlayers:\n"
                       "  - {name: fc, kind: fc, out: 2, bias: off}\n")
                     .layer("fc")
                     .spec.bias);
}

// A dropout rate is a number as configs write them.
TEST(ModelFormat, DropoutRateIsAConfigNumber) {
    for (const auto& [text, rate] : std::vector<std::pair<std::string, double>>{
             {"0.5", 0.5}, {"50%", 0.5}, {"2^-3", 0.125}, {"0", 0.0}}) {
        SCOPED_TRACE(text);
        const model m = parse(
            "name: t\nsource: test\ninput: {features: 4}\nlayers:\n"
            "  - {name: d, kind: dropout, rate: " +
            text + "}\n");
        EXPECT_EQ(m.layer("d").spec.dropout_rate, rate);
    }
}

// load_zoo_model is the entry point for a model a config names: by zoo name, or by a path
// relative to the naming file.
TEST(ModelFormat, LoadZooModelByNameOrPath) {
    model_options o;
    o.batch = 2;
    const model by_name = load_zoo_model("mlp", o);
    const model direct = load_model(find_zoo_model("mlp"), o);
    EXPECT_EQ(by_name.file(), direct.file());
    EXPECT_EQ(by_name.totals().forward_flops, direct.totals().forward_flops);
    EXPECT_EQ(by_name.totals().weight_grad_bytes, direct.totals().weight_grad_bytes);
    const source_loc naming_file{std::string(TRAINVP_SOURCE_DIR) + "/workloads/models/README.md", 1,
                                 1};
    const model by_path = load_zoo_model("zoo/mlp.yaml", o, naming_file, "model");
    EXPECT_EQ(by_path.name(), "mlp");
    EXPECT_EQ(by_path.totals().forward_flops, direct.totals().forward_flops);
    const model absolute = load_zoo_model(find_zoo_model("mlp"), o, naming_file, "model");
    EXPECT_EQ(absolute.totals().params, direct.totals().params);
}

}  // namespace
}  // namespace trainvp::models
