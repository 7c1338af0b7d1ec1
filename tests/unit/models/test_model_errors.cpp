// Mistakes in model files: each must be an input_error whose message names file:line:column,
// the full key path and what is wrong (with a did-you-mean where a typo is likely).  Messages are
// compared whole, so a change in wording or position is a deliberate test update.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"
#include "workloads/models/model_loader.h"

namespace trainvp::models {
namespace {

const std::string BAD_DIR = std::string(TRAINVP_SOURCE_DIR) + "/tests/unit/models/bad/";

model_options batch1() {
    model_options o;
    o.batch = 1;
    return o;
}

// The message of the input_error that F throws ("" and a test failure if it throws none).
std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const input_error& e) {
        return e.what();
    }
    ADD_FAILURE() << "no input_error thrown";
    return "";
}

std::string load_bad(const std::string& file) {
    return error_of([&] { load_model(BAD_DIR + file, batch1()); });
}

std::string parse(const std::string& text, const model_options& o = batch1()) {
    return error_of([&] { parse_model(text, "inline.yaml", o); });
}

// The boilerplate every inline case shares (lines 1-3), so that layer entries start on line 5.
const std::string HEAD =
    "name: t\n"
    "source: test\n"
    "input: {channels: 3, height: 32, width: 32}\n"
    "layers:\n";

// ---- the four cases the file format must catch, from files -------------------------------

TEST(ModelErrors, UnknownKeyWithDidYouMean) {
    EXPECT_EQ(load_bad("unknown_key.yaml"),
              BAD_DIR +
                  "unknown_key.yaml:9:5: error: layers[0].kernal: unknown key 'kernal' for "
                  "a layer of kind conv (did you mean 'kernel'?)");
}

TEST(ModelErrors, MissingRequiredKey) {
    EXPECT_EQ(load_bad("missing_key.yaml"),
              BAD_DIR +
                  "missing_key.yaml:6:5: error: layers[0].out_channels: missing required "
                  "key 'out_channels' for a layer of kind conv");
}

TEST(ModelErrors, WrongType) {
    EXPECT_EQ(load_bad("wrong_type.yaml"),
              BAD_DIR +
                  "wrong_type.yaml:8:19: error: layers[0].out_channels: expected an "
                  "integer, got a list");
}

TEST(ModelErrors, NegativeSize) {
    EXPECT_EQ(load_bad("negative_size.yaml"),
              BAD_DIR + "negative_size.yaml:8:10: error: layers[0].out: must be positive, got -10");
}

TEST(ModelErrors, StatedShapeDisagreesWithGraph) {
    EXPECT_EQ(load_bad("shape_mismatch.yaml"),
              BAD_DIR +
                  "shape_mismatch.yaml:7:44: error: layers[1].in_channels: says 32 input "
                  "channels, but its input 'conv1' (16x32x32) has 16");
}

// The position is the block definition; the message says which use of the block broke it.
TEST(ModelErrors, ErrorInsideBlockNamesTheUse) {
    EXPECT_EQ(load_bad("block_error.yaml"),
              BAD_DIR +
                  "block_error.yaml:9:71: error: blocks.down.layers[0].stride: must be "
                  "positive, got 0 (while expanding broken)");
}

TEST(ModelErrors, MissingFile) {
    EXPECT_EQ(load_bad("no_such_file.yaml"),
              BAD_DIR + "no_such_file.yaml: error: cannot open model file");
}

// ---- more cases, inline ----------------------------------------------------------------

// Booleans follow the rule of every config value (param_decl's): yes/no and on/off are
// spellings of true/false there, so they are here too (ModelFormat.BooleansAreSpeltAsInConfigs).
TEST(ModelErrors, BoolMustBeTrueOrFalse) {
    EXPECT_EQ(parse(HEAD + "  - {kind: conv, out_channels: 8, kernel: 3, bias: maybe}\n"),
              "inline.yaml:5:52: error: layers[0].bias: 'maybe' is not a bool; expected true or "
              "false");
    EXPECT_EQ(parse(HEAD + "  - {kind: conv, out_channels: 8, kernel: 3, bias: [true]}\n"),
              "inline.yaml:5:52: error: layers[0].bias: expected bool (true or false), got a list");
    // Inside a block, the message names the use being expanded, as every model error does.
    EXPECT_EQ(parse(HEAD + "  - {name: x, block: b}\nblocks:\n  b:\n"
                           "    layers: [{kind: fc, out: 4, bias: maybe}]\n"),
              "inline.yaml:8:39: error: blocks.b.layers[0].bias: 'maybe' is not a bool; expected "
              "true or false (while expanding x)");
}

// Choices too: the wording of a config's choice param.
TEST(ModelErrors, ChoiceIsOneOfItsSpellings) {
    EXPECT_EQ(parse(HEAD + "  - {kind: pool, op: maxx, kernel: 2, stride: 2}\n"),
              "inline.yaml:5:22: error: layers[0].op: 'maxx' is not one of max, avg (did you mean "
              "'max'?)");
}

TEST(ModelErrors, KernelOfWrongShape) {
    EXPECT_EQ(parse(HEAD + "  - {kind: conv, out_channels: 8, kernel: {h: 3}, bias: true}\n"),
              "inline.yaml:5:43: error: layers[0].kernel: expected an integer or a list of two "
              "integers [height, width], got a map");
    EXPECT_EQ(parse(HEAD + "  - {kind: conv, out_channels: 8, kernel: [3, 3, 3], bias: true}\n"),
              "inline.yaml:5:43: error: layers[0].kernel: expected an integer or a list of two "
              "integers [height, width], got a list of 3");
}

TEST(ModelErrors, NotAnInteger) {
    EXPECT_EQ(parse(HEAD + "  - {kind: conv, out_channels: 2.5, kernel: 3, bias: true}\n"),
              "inline.yaml:5:32: error: layers[0].out_channels: expected an integer, got '2.5'");
}

TEST(ModelErrors, UnknownKindWithDidYouMean) {
    EXPECT_EQ(parse(HEAD + "  - {kind: convv, out_channels: 8, kernel: 3, bias: true}\n"),
              "inline.yaml:5:12: error: layers[0].kind: unknown layer kind 'convv' "
              "(did you mean 'conv'?)");
}

TEST(ModelErrors, UnknownKeyWithoutCloseMatchListsAllowedKeys) {
    EXPECT_EQ(parse(HEAD + "  - {kind: relu, colour: red}\n"),
              "inline.yaml:5:18: error: layers[0].colour: unknown key 'colour' for a layer of kind "
              "relu (allowed: name, kind, inputs)");
}

TEST(ModelErrors, UnknownTopLevelKey) {
    EXPECT_EQ(parse("name: t\nsource: test\ninput: {features: 4}\nlyers: []\n"),
              "inline.yaml:4:1: error: lyers: unknown key 'lyers' in a model file "
              "(did you mean 'layers'?)");
}

TEST(ModelErrors, DuplicateKey) {
    EXPECT_EQ(parse(HEAD + "  - {kind: conv, out_channels: 8, kernel: 3, kernel: 5, bias: true}\n"),
              "inline.yaml:5:46: error: layers[0].kernel: duplicate key (first given at "
              "inline.yaml:5:35)");
    EXPECT_EQ(parse("name: t\nsource: test\nparameters: {width: 8, width: 9}\n"
                    "input: {features: width}\nlayers: [{kind: relu}]\n"),
              "inline.yaml:3:24: error: parameters.width: duplicate key (first given at "
              "inline.yaml:3:14)");
}

TEST(ModelErrors, UnknownInputReference) {
    EXPECT_EQ(parse(HEAD + "  - {name: conv1, kind: conv, out_channels: 8, kernel: 3, bias: true}\n"
                           "  - {kind: add, inputs: [conv, input]}\n"),
              "inline.yaml:6:26: error: layers[1].inputs[0]: no earlier layer named 'conv' in this "
              "model (did you mean 'conv1'?)");
}

TEST(ModelErrors, AddOfDifferentShapes) {
    EXPECT_EQ(parse(HEAD + "  - {name: conv1, kind: conv, out_channels: 8, kernel: 3, bias: true}\n"
                           "  - {kind: add, inputs: [conv1, input]}\n"),
              "inline.yaml:6:25: error: layers[1].inputs: cannot add 'conv1' (8x30x30) and "
              "'input' (3x32x32): shapes differ");
}

TEST(ModelErrors, FcOnFeatureMapNeedsFlatten) {
    EXPECT_EQ(parse(HEAD + "  - {name: fc, kind: fc, out: 10, bias: true}\n"),
              "inline.yaml:5:5: error: layers[0]: an fc layer acts on feature vectors, its input "
              "'input' (3x32x32) is a feature map; insert a flatten layer");
}

TEST(ModelErrors, KernelLargerThanInput) {
    EXPECT_EQ(parse(HEAD + "  - {kind: conv, out_channels: 8, kernel: 33, bias: true}\n"),
              "inline.yaml:5:43: error: layers[0].kernel: kernel 33x33 is larger than the padded "
              "input 'input' (3x32x32)");
}

TEST(ModelErrors, HeadsMustDivideDModel) {
    EXPECT_EQ(parse("name: t\nsource: test\ninput: {tokens: 16, features: 512}\nlayers:\n"
                    "  - {kind: attention, heads: 7, bias: true}\n"),
              "inline.yaml:5:30: error: layers[0].heads: 7 heads do not divide d_model 512");
}

TEST(ModelErrors, IndicesOnlyFeedEmbeddings) {
    EXPECT_EQ(parse("name: t\nsource: test\ninput: {indices: 16}\nlayers:\n"
                    "  - {kind: fc, out: 8, bias: true}\n"),
              "inline.yaml:5:5: error: layers[0]: an fc layer cannot read the index tensor 'input' "
              "(16 indices); only embedding layers consume indices");
}

TEST(ModelErrors, DropoutRateOutOfRange) {
    EXPECT_EQ(parse("name: t\nsource: test\ninput: {features: 4}\nlayers:\n"
                    "  - {kind: dropout, rate: 1.5}\n"),
              "inline.yaml:5:27: error: layers[0].rate: expected a probability in [0, 1), got "
              "'1.5'");
}

TEST(ModelErrors, UnknownParameterInExpression) {
    EXPECT_EQ(parse("name: t\nsource: test\nparameters: {width: 8}\ninput: {features: width}\n"
                    "layers:\n"
                    "  - {kind: fc, out: 2 * widht, bias: true}\n"),
              "inline.yaml:6:21: error: layers[0].out: unknown parameter 'widht' in '2 * widht' "
              "(did you mean 'width'?)");
}

TEST(ModelErrors, InexactDivisionInExpression) {
    EXPECT_EQ(parse("name: t\nsource: test\nparameters: {width: 10}\ninput: {features: width}\n"
                    "layers:\n"
                    "  - {kind: fc, out: width / 4, bias: true}\n"),
              "inline.yaml:6:21: error: layers[0].out: 'width / 4' is not a whole number (10 / 4)");
}

TEST(ModelErrors, UnknownParameterOverride) {
    model_options o = batch1();
    o.parameters = {{"widht", 16}};
    o.origin = source_loc{"--set"};
    EXPECT_EQ(parse("name: t\nsource: test\nparameters: {width: 8}\ninput: {features: width}\n"
                    "layers:\n  - {kind: relu}\n",
                    o),
              "--set: error: parameters.widht: the model file inline.yaml declares no parameter "
              "'widht' (did you mean 'width'?)");
}

TEST(ModelErrors, BatchIsRequired) {
    model_options o;  // batch left at 0
    EXPECT_EQ(parse(HEAD + "  - {kind: relu}\n", o),
              "<input>: error: batch: must be a positive number of samples, got 0");
}

TEST(ModelErrors, NegativeRepeat) {
    EXPECT_EQ(parse(HEAD + "  - {name: r, block: b, repeat: -1}\n"
                           "blocks:\n  b:\n    layers: [{kind: relu}]\n"),
              "inline.yaml:5:33: error: layers[0].repeat: must not be negative, got -1");
}

TEST(ModelErrors, BlockArguments) {
    const std::string blocks =
        "blocks:\n"
        "  b:\n"
        "    parameters: [out]\n"
        "    layers: [{kind: conv, out_channels: out, kernel: 1, bias: false}]\n";
    EXPECT_EQ(parse(HEAD + "  - {name: x, block: b}\n" + blocks),
              "inline.yaml:5:5: error: layers[0].args.out: missing argument 'out' for block b");
    EXPECT_EQ(parse(HEAD + "  - {name: x, block: b, args: {outt: 4}}\n" + blocks),
              "inline.yaml:5:32: error: layers[0].args.outt: unknown key 'outt' for block b "
              "(did you mean 'out'?)");
    EXPECT_EQ(parse(HEAD + "  - {name: x, block: c, args: {out: 4}}\n" + blocks),
              "inline.yaml:5:22: error: layers[0].block: no block named 'c' (defined: b)");
}

TEST(ModelErrors, UnusedBlock) {
    EXPECT_EQ(parse(HEAD + "  - {kind: relu}\nblocks:\n  spare:\n    layers: [{kind: relu}]\n"),
              "inline.yaml:7:3: error: blocks.spare: block 'spare' is never used");
}

TEST(ModelErrors, RecursiveBlock) {
    EXPECT_EQ(
        parse(HEAD + "  - {name: x, block: b}\nblocks:\n  b:\n    layers: [{name: y, block: b}]\n"),
        "inline.yaml:8:31: error: blocks.b.layers[0].block: block 'b' uses itself (while "
        "expanding x)");
}

// A generic layer needs what it computes and its output; its counts are non-negative.
TEST(ModelErrors, GenericLayerMistakes) {
    const std::string head = "name: t\nsource: test\ninput: {features: 4}\nlayers:\n";
    EXPECT_EQ(parse(head + "  - {kind: generic, op: gelu}\n"),
              "inline.yaml:5:5: error: layers[0].output: missing required key 'output' for a "
              "layer of kind generic");
    EXPECT_EQ(parse(head + "  - {kind: generic, op: gelu, output: {features: 4}, "
                           "forward_flops: -1}\n"),
              "inline.yaml:5:69: error: layers[0].forward_flops: must not be negative, got -1");
    EXPECT_EQ(parse(head + "  - {kind: generic, op: gelu, output: {indices: 4}}\n"),
              "inline.yaml:5:39: error: layers[0].output: a generic layer outputs values: "
              "{channels, height, width}, {features} or {tokens, features}");
    EXPECT_EQ(parse(head + "  - {kind: generic, op: gelu, output: {features: 4}, flops: 1}\n"),
              "inline.yaml:5:54: error: layers[0].flops: unknown key 'flops' for a layer of "
              "kind generic (allowed: name, kind, inputs, op, output, params, forward_flops, "
              "backward_input_flops, backward_weight_flops, note)");
}

TEST(ModelErrors, YamlSyntaxErrorHasPosition) {
    const std::string msg = parse(HEAD + "  - {kind: relu\n");
    EXPECT_EQ(msg.rfind("inline.yaml:6:1: error: YAML syntax: ", 0), 0u) << msg;
}

// One message for every way of naming a zoo model: it names the zoo, not its folder (which
// depends on the installation), and lists what the zoo has.
TEST(ModelErrors, UnknownZooModel) {
    const std::string why =
        "no model 'alexnt' in the zoo (did you mean 'alexnet'?); the zoo has alexnet, "
        "alexnet_1tower, alexnet_v2, alexnet_v2_1gpu, dcgan_discriminator, dcgan_generator, "
        "dlrm, hdc, inception_v3, mlp, nin, resnet50, transformer, vgg16, vgg16_slim";
    EXPECT_EQ(error_of([] { find_zoo_model("alexnt"); }), "<input>: error: model: " + why);
    EXPECT_EQ(error_of([] {
                  load_zoo_model("alexnt", batch1(), source_loc{"run.yaml", 7, 12},
                                 "workload.training.model");
              }),
              "run.yaml:7:12: error: workload.training.model: " + why);
    EXPECT_EQ(error_of([] { find_zoo_model("alexnt", BAD_DIR); }),
              "<input>: error: model: no model 'alexnt' in the zoo at " + BAD_DIR +
                  "; the zoo has block_error, missing_key, negative_size, shape_mismatch, "
                  "unknown_key, wrong_type");
}

TEST(ModelErrors, ModelFileThatCannotBeOpened) {
    EXPECT_EQ(error_of([] {
                  load_zoo_model("models/none.yaml", batch1(), source_loc{"run.yaml", 3, 10},
                                 "noc.workload_model");
              }),
              "run.yaml:3:10: error: noc.workload_model: cannot open model file "
              "'models/none.yaml'");
}

// The exception carries its parts separately too, for callers that format their own report.
TEST(ModelErrors, ErrorFieldsAreStructured) {
    try {
        load_model(BAD_DIR + "negative_size.yaml", batch1());
        FAIL() << "no input_error";
    } catch (const input_error& e) {
        EXPECT_EQ(e.where().file, BAD_DIR + "negative_size.yaml");
        EXPECT_EQ(e.where().line, 8);
        EXPECT_EQ(e.where().column, 10);
        EXPECT_EQ(e.key(), "layers[0].out");
        EXPECT_EQ(e.reason(), "must be positive, got -10");
    }
}

}  // namespace
}  // namespace trainvp::models
