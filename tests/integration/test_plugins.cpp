// IP plugins through the `trainvp` command: a plugin's blocks run like built-in ones (the
// example's gradient-sparsifying NIC, built in-tree from examples/custom_ip/), `describe` lists
// them, and every load error is one clear message at the place the plugin was named, exit 2.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/support/test_util.h"

namespace trainvp {
namespace {

namespace fs = std::filesystem;

test::command_result trainvp(const std::string& args) {
    return test::run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN + " " +
                             args);
}

// Two INCEPTIONN cluster nodes (configs/examples/cluster_node.yaml) with NICs of `nic_type`,
// node 0 sending `bytes` to node 1, written into `dir` next to a copy of the sparse NIC plugin,
// which the config loads by a path relative to itself.
std::string two_node_config(const fs::path& dir, const std::string& nic_type, std::uint64_t bytes) {
    fs::copy_file(TEST_PLUGIN_SPARSE_NIC, dir / "sparse_nic.so",
                  fs::copy_options::overwrite_existing);
    const std::string b = std::to_string(bytes) + "B";
    const std::string yaml = "include: " + std::string(TRAINVP_SOURCE_DIR) +
                             "/configs/examples/cluster_node.yaml\n"
                             "plugins: [sparse_nic.so]\n"
                             "simulation: {stall_timeout: 10ms}\n"
                             "components:\n"
                             "  node:\n"
                             "    template: cluster_node\n"
                             "    count: 2\n"
                             "    nic: {type: " +
                             nic_type +
                             "}\n"
                             "  switch: {type: ethernet.switch, ports: 2}\n"
                             "connections:\n"
                             "  - node[*].link.b_out -> switch.rx[*]\n"
                             "  - switch.tx[*] -> node[*].link.b_in\n"
                             "workload:\n"
                             "  ops:\n"
                             "    node[0].host:\n"
                             "      - {op: send, to: 1, bytes: " +
                             b +
                             ", tag: 1}\n"
                             "    node[1].host:\n"
                             "      - {op: recv, from: 0, bytes: " +
                             b + ", tag: 1}\n";
    return test::write_file(dir / (nic_type + ".yaml"), yaml);
}

nlohmann::json run_stats(const std::string& config, const fs::path& out,
                         const std::string& extra = "") {
    auto r =
        trainvp("run " + config + " --quiet --force --vcd --out " + out.string() + " " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(test::read_file(out / "stats.json"));
}

std::uint64_t stat(const nlohmann::json& j, const std::string& block, const std::string& name) {
    return j["blocks"][block]["stats"][name]["value"].get<std::uint64_t>();
}

// 100 full frames of FP32 gradients: each 1460 B TCP payload (1500 B MTU - 40 B IP/TCP) holds
// 365 values; density 0.01 keeps ceil(3.65) = 4, sent as a 4 B count + 4 x (4 B value + 4 B
// index) = 36 B payload, 36 + 40 + 38 = 114 B on the wire (>= the 84 B minimum) instead of
// 1538 B.  Every count is exact: integer bytes, no tolerance.
TEST(plugins, sparse_nic_from_a_config_plugins_list_sends_the_sparse_bytes) {
    const auto dir = test::temp_dir("plugin_sparse");
    const std::uint64_t frames = 100, bytes = frames * 1460;
    const auto j = run_stats(two_node_config(dir, "nic.sparse", bytes), dir / "out");
    EXPECT_EQ(j["run"]["status"], "finished");
    EXPECT_EQ(stat(j, "node[0].nic", "frames_sparsified"), frames);
    EXPECT_EQ(stat(j, "node[0].nic", "kept_elements"), frames * 4);
    EXPECT_EQ(stat(j, "node[0].nic", "dense_bytes"), bytes);
    EXPECT_EQ(stat(j, "node[0].nic", "sparse_bytes"), frames * 36);
    EXPECT_EQ(stat(j, "node[0].nic", "tx_payload"), frames * 36);
    EXPECT_EQ(stat(j, "node[0].nic", "tx_wire"), frames * 114);
    EXPECT_EQ(stat(j, "node[1].nic", "rx_wire"), frames * 114);
    EXPECT_EQ(stat(j, "node[1].nic", "frames_densified"), frames);
    // The receiver writes the dense gradients to host memory.
    EXPECT_EQ(stat(j, "node[1].mem", "bytes_written"), bytes);
    EXPECT_DOUBLE_EQ(j["blocks"]["node[0].nic"]["stats"]["sparsity_ratio"]["value"].get<double>(),
                     1460.0 / 36.0);
    // Its engines' busy flags are in the VCD like any built-in block's signals.
    const std::string vcd = test::read_file(dir / "out" / "waves.vcd");
    EXPECT_NE(vcd.find("select_busy"), std::string::npos);
    EXPECT_NE(vcd.find("scatter_busy"), std::string::npos);
    // The resolved config names the plugin by its absolute path, so that it runs anywhere.
    const std::string resolved = test::read_file(dir / "out" / "config.resolved.yaml");
    EXPECT_NE(resolved.find((dir / "sparse_nic.so").string()), std::string::npos) << resolved;

    // The same transfer with the plain NIC (the plugin is loaded but unused) takes longer: its
    // 100 frames hold the 10 Gb/s link for 100 x 1538 B x 0.8 ns/B = 123 us, the sparse ones
    // for 100 x 114 B x 0.8 ns/B = 9.1 us plus 100 x 1460 B / 3.2 GB/s = 45.6 us of selection.
    const auto plain = run_stats(two_node_config(dir, "nic.basic", bytes), dir / "plain");
    EXPECT_EQ(stat(plain, "node[0].nic", "tx_wire"), frames * 1538);
    EXPECT_LT(j["run"]["sim_time_ps"].get<std::uint64_t>(),
              plain["run"]["sim_time_ps"].get<std::uint64_t>());
}

TEST(plugins, describe_lists_a_plugins_types_with_their_params) {
    const std::string lib = TEST_PLUGIN_SPARSE_NIC;
    auto list = trainvp("describe --plugin " + lib);
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("nic.sparse"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("(from plugin " + lib + ")"), std::string::npos) << list.out;
    auto one = trainvp("describe nic.sparse --plugin " + lib);
    EXPECT_EQ(one.exit_code, 0) << one.err;
    EXPECT_NE(one.out.find("density"), std::string::npos);
    EXPECT_NE(one.out.find("sparsity_ratio"), std::string::npos);
    EXPECT_NE(one.out.find("select_busy"), std::string::npos);
    // Without the plugin the type is unknown.
    EXPECT_EQ(trainvp("describe nic.sparse").exit_code, 2);
}

TEST(plugins, load_errors_are_one_message_each_with_exit_code_2) {
    auto err_of = [](const std::string& lib) {
        auto r = trainvp("describe --plugin " + lib);
        EXPECT_EQ(r.exit_code, 2) << lib;
        EXPECT_TRUE(r.out.empty()) << r.out;
        return r.err;
    };
    const std::string dir = TEST_PLUGIN_DIR;
    EXPECT_EQ(err_of(dir + "/test_plugin_clash.so"),
              "command line: error: --plugin: plugin '" + dir +
                  "/test_plugin_clash.so': IP type 'memory' is already registered (built in)\n");
    EXPECT_EQ(err_of(dir + "/test_plugin_none.so"),
              "command line: error: --plugin: '" + dir +
                  "/test_plugin_none.so' is not a trainvp plugin: it registers no IP type "
                  "(TRAINVP_REGISTER_IP)\n");
    const std::string old = err_of(dir + "/test_plugin_old_abi.so");
    EXPECT_EQ(old.rfind("command line: error: --plugin: plugin '" + dir +
                            "/test_plugin_old_abi.so': IP type 'test.old_abi' was built against "
                            "trainvp 0.0.1 abi 0, but this is trainvp 0.",
                        0),
              0u)
        << old;
    EXPECT_NE(old.find("; rebuild it against this trainvp\n"), std::string::npos) << old;

    // The same type from two plugin files.
    const auto tmp = test::temp_dir("plugin_twice");
    fs::copy_file(dir + "/test_plugin_block.so", tmp / "copy.so");
    auto twice = trainvp("describe --plugin " + dir + "/test_plugin_block.so --plugin " +
                         (tmp / "copy.so").string());
    EXPECT_EQ(twice.exit_code, 2);
    EXPECT_EQ(twice.err, "command line: error: --plugin: plugin '" + (tmp / "copy.so").string() +
                             "': IP type 'test.plugin_block' is already registered (from plugin " +
                             dir + "/test_plugin_block.so)\n");
    // The same file twice (a config's list and --plugin) is loaded once.
    EXPECT_EQ(trainvp("describe --plugin " + dir + "/test_plugin_block.so --plugin " + dir +
                      "/test_plugin_block.so")
                  .exit_code,
              0);
}

// An error from a config's list names the file, line and column of the entry.
TEST(plugins, an_error_in_a_configs_list_points_at_the_entry) {
    const auto tmp = test::temp_dir("plugin_config_error");
    const std::string config = test::write_file(
        tmp / "clash.yaml", "plugins:\n  - " + std::string(TEST_PLUGIN_DIR) +
                                "/test_plugin_clash.so\ncomponents:\n  mem: {type: memory}\n");
    auto r = trainvp("check " + config);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, config + ":2:5: error: plugins: plugin '" + std::string(TEST_PLUGIN_DIR) +
                         "/test_plugin_clash.so': IP type 'memory' is already registered "
                         "(built in)\n");
}

}  // namespace
}  // namespace trainvp
