// A collective and a codec registered from a plugin (tests/plugins/one_to_all.cpp,
// zero_skip_codec.cpp; docs/adding-a-collective-or-codec.md), loaded the way `plugins:` and
// `--plugin` load it: the collective's schedule runs through the functional executor with exact
// sums, the codec round-trips bit for bit, `trainvp describe` lists both, and a second copy of
// the plugin is refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "ip/codecs/codec_registry.h"
#include "kit/registry.h"
#include "platform/plugin_loader.h"
#include "tests/support/test_util.h"
#include "workloads/collectives/collective_registry.h"
#include "workloads/collectives/executor.h"
#include "workloads/collectives/validate.h"

namespace trainvp {
namespace {

namespace fs = std::filesystem;

void load_plugin(plugin_loader& loader, const std::string& path) {
    loader.load(path, source_loc{"command line", 0, 0}, "--plugin");
}

TEST(registry_plugin, its_collective_runs_through_the_functional_executor_exactly) {
    plugin_loader loader(registry::global());
    load_plugin(loader, TEST_PLUGIN_REGISTRIES);
    const auto& reg = collectives::collective_registry::global();
    const collectives::collective_info* c = reg.find("example.one_to_all");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(reg.origin("example.one_to_all"),
              std::string("from plugin ") + TEST_PLUGIN_REGISTRIES);
    EXPECT_TRUE(c->runs_on(collectives::fabric::HOST));
    const auto host = reg.names_for(collectives::fabric::HOST);
    EXPECT_EQ(host.back(), "example.one_to_all");  // after the built-ins
    for (int n : {2, 3, 5, 8, 17}) {
        for (std::uint64_t elements : {1u, 7u, 1000u}) {
            collectives::collective_args a;
            a.ranks = n;
            a.elements = elements;
            const collectives::schedule s = reg.make("example.one_to_all", a);
            collectives::validate(s);
            EXPECT_EQ(collectives::round_count(s), 2u);
            // Integer-valued floats: every sum is exact.
            std::vector<std::vector<float>> buffers(static_cast<std::size_t>(n));
            std::vector<float> want(elements, 0.0f);
            for (int r = 0; r < n; ++r) {
                for (std::uint64_t e = 0; e < elements; ++e) {
                    const float v = static_cast<float>((e % 101) + 1000 * (r + 1));
                    buffers[static_cast<std::size_t>(r)].push_back(v);
                    want[e] += v;
                }
            }
            collectives::execute(s, buffers);
            for (int r = 0; r < n; ++r) {
                EXPECT_EQ(buffers[static_cast<std::size_t>(r)], want)
                    << "N=" << n << " elements=" << elements << " rank " << r;
            }
        }
    }
    collectives::collective_args one;
    one.ranks = 1;
    one.elements = 4;
    EXPECT_THROW(reg.make("example.one_to_all", one), std::invalid_argument);
}

TEST(registry_plugin, its_codec_round_trips_bit_for_bit) {
    plugin_loader loader(registry::global());
    load_plugin(loader, TEST_PLUGIN_REGISTRIES);
    EXPECT_EQ(codecs::codec_registry::global().origin("example.zero_skip"),
              std::string("from plugin ") + TEST_PLUGIN_REGISTRIES);
    const auto c = codecs::make_codec("example.zero_skip");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->name(), "example.zero_skip");
    std::vector<float> in = {0.0f,  1.5f,
                             0.0f,  -0.0f,
                             0.0f,  0.0f,
                             0.0f,  0.0f,
                             0.0f,  3e-39f /* denormal */,
                             -2.0f, std::numeric_limits<float>::quiet_NaN(),
                             0.0f};
    std::vector<std::uint8_t> bytes = {0xAB};  // encode appends
    c->encode(in.data(), in.size(), bytes);
    // 2 bitmap bytes and 5 kept values (-0, the denormal and NaN included).
    EXPECT_EQ(bytes.size(), 1u + 2u + 5u * 4u);
    std::vector<float> out(in.size(), 7.0f);
    EXPECT_EQ(c->decode(bytes.data() + 1, bytes.size() - 1, out.data(), out.size()),
              bytes.size() - 1);
    for (std::size_t i = 0; i < in.size(); ++i) {
        std::uint32_t a, b;
        std::memcpy(&a, &in[i], 4);
        std::memcpy(&b, &out[i], 4);
        EXPECT_EQ(a, b) << "value " << i;
    }
    EXPECT_THROW(c->decode(bytes.data() + 1, bytes.size() - 2, out.data(), out.size()),
                 codecs::codec_error);
    EXPECT_THROW(c->decode(bytes.data() + 1, 1, out.data(), out.size()), codecs::codec_error);
}

TEST(registry_plugin, describe_lists_its_collective_and_codec) {
    const std::string cmd = std::string(TRAINVP_BIN) + " describe ";
    const std::string plugin = std::string(" --plugin ") + TEST_PLUGIN_REGISTRIES;
    auto collectives = test::run_command(cmd + "collectives" + plugin);
    ASSERT_EQ(collectives.exit_code, 0) << collectives.err;
    EXPECT_NE(collectives.out.find("example.one_to_all (from plugin"), std::string::npos)
        << collectives.out;
    EXPECT_NE(collectives.out.find("fabrics: host"), std::string::npos) << collectives.out;
    auto codecs = test::run_command(cmd + "codecs" + plugin);
    ASSERT_EQ(codecs.exit_code, 0) << codecs.err;
    EXPECT_NE(codecs.out.find("example.zero_skip (from plugin"), std::string::npos) << codecs.out;
    EXPECT_NE(codecs.out.find("error_bound_exponent"), std::string::npos) << codecs.out;
    auto overview = test::run_command(cmd + plugin);
    ASSERT_EQ(overview.exit_code, 0) << overview.err;
    for (const char* name : {"example.one_to_all", "example.zero_skip", "ring_2d", "bfp"}) {
        EXPECT_NE(overview.out.find(name), std::string::npos) << name << "\n" << overview.out;
    }
    // Without the plugin they are not there.
    auto plain = test::run_command(cmd + "collectives");
    EXPECT_EQ(plain.out.find("example.one_to_all"), std::string::npos);
}

// The plugin's collective is selectable by name in a config once the plugin is loaded: the
// training section's choice list is the registry's when the config is read, not when the
// section was declared (at library load, before any plugin).
TEST(registry_plugin, its_collective_trains_when_a_config_names_it) {
    const fs::path out = test::temp_dir("registry_plugin_training");
    const std::string run = std::string(TRAINVP_BIN) + " run " + TRAINVP_SOURCE_DIR +
                            "/configs/papers/inceptionn/inc_hdc.yaml --quiet --force --out " +
                            out.string() + " --set workload.training.algorithm=example.one_to_all";
    auto with = test::run_command(run + " --plugin " + TEST_PLUGIN_REGISTRIES);
    ASSERT_EQ(with.exit_code, 0) << with.err;
    EXPECT_TRUE(fs::exists(out / "stats.json"));
    // Without the plugin the name is an input error that lists what there is.
    auto without = test::run_command(run);
    EXPECT_EQ(without.exit_code, 2);
    EXPECT_NE(without.err.find("workload.training.algorithm: 'example.one_to_all' is not one of "
                               "ring, worker_aggregator"),
              std::string::npos)
        << without.err;
}

TEST(registry_plugin, a_second_copy_is_refused_by_name) {
    plugin_loader loader(registry::global());
    load_plugin(loader, TEST_PLUGIN_REGISTRIES);
    const fs::path copy = test::temp_dir("registry_plugin") / "copy.so";
    fs::copy_file(TEST_PLUGIN_REGISTRIES, copy, fs::copy_options::overwrite_existing);
    try {
        load_plugin(loader, copy.string());
        FAIL() << "a second copy loaded";
    } catch (const input_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("collective 'example.one_to_all' is already registered (from plugin"),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("(and 1 more)"), std::string::npos) << what;  // the codec
    }
    // The first copy's entries stay.
    EXPECT_NE(collectives::collective_registry::global().find("example.one_to_all"), nullptr);
    EXPECT_NE(codecs::codec_registry::global().find("example.zero_skip"), nullptr);
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

TEST(registry_plugin, the_guide_shows_the_plugins_code_word_for_word) {
    // docs/adding-a-collective-or-codec.md walks through these two files: every C++ block it
    // shows must be in them as written (up to an elided "// ..." tail).
    const fs::path root = TRAINVP_SOURCE_DIR;
    const std::string guide = read_text(root / "docs" / "adding-a-collective-or-codec.md");
    const std::string code = read_text(root / "tests" / "plugins" / "one_to_all.cpp") +
                             read_text(root / "tests" / "plugins" / "zero_skip_codec.cpp");
    int blocks = 0;
    for (std::size_t at = guide.find("```cpp\n"); at != std::string::npos;
         at = guide.find("```cpp\n", at + 1)) {
        const std::size_t begin = at + 7;
        std::string block = guide.substr(begin, guide.find("```", begin) - begin);
        const std::size_t elided = block.find("        // ...");
        if (elided != std::string::npos) block = block.substr(0, elided);
        EXPECT_NE(code.find(block), std::string::npos) << "not in the plugin's files:\n" << block;
        ++blocks;
    }
    EXPECT_EQ(blocks, 6);
}

}  // namespace
}  // namespace trainvp
