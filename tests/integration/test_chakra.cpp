// Chakra execution traces through `trainvp run` (workload.chakra, workloads/chakra/): each test
// workload of tools/chakra_writer.py runs to the same iteration time as the same workload
// written as op lists (configs/examples/chakra_*_ops.yaml), and the 8-rank tensor x data
// parallel trace runs on INCEPTIONN's cluster grown to 8 nodes with the bytes and ops its
// schedules give in closed form.  The same on chiplet packages (noc.interposer, rank r on
// noc.chiplet[r]): the 4-rank traces on a 2x2 mesh and the 8-rank one on a 4x4 mesh and a 4x4
// ARIES give the iteration time of the same workloads as op lists.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_util.h"

namespace trainvp {
namespace {

namespace fs = std::filesystem;

test::command_result trainvp(const std::string& args) {
    return test::run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN + " " +
                             args);
}

nlohmann::json run(const std::string& args, const fs::path& out) {
    auto r = trainvp("run " + args + " --quiet --out " + out.string());
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return nlohmann::json::parse(test::read_file(out / "stats.json"));
}

class chakra_workload : public ::testing::TestWithParam<std::string> {};

// Exact: the op lists are the ops workload.chakra makes (compute, delays, sends and receives
// one for one; each collective expanded by the writer from its algorithm with the same tags,
// addresses and dependencies), so the two runs are the same simulation.
TEST_P(chakra_workload, trace_and_op_list_give_the_same_iteration_time) {
    const std::string w = GetParam();
    auto dir = test::temp_dir("chakra_" + w);
    const auto trace = run("configs/examples/chakra_cluster4.yaml --set workload.chakra.trace=" +
                               std::string("configs/examples/chakra/") + w,
                           dir / "trace");
    const auto ops = run("configs/examples/chakra_" + w + "_ops.yaml", dir / "ops");
    EXPECT_EQ(trace["run"]["status"], "finished");
    EXPECT_EQ(ops["run"]["status"], "finished");
    EXPECT_GT(trace["run"]["sim_time_ps"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(trace["run"]["sim_time_ps"], ops["run"]["sim_time_ps"]);
    for (int r = 0; r < 4; ++r) {
        const std::string h = "node[" + std::to_string(r) + "].host";
        EXPECT_EQ(trace["blocks"][h]["stats"]["bytes_sent"],
                  ops["blocks"][h]["stats"]["bytes_sent"])
            << h;
    }
}

INSTANTIATE_TEST_SUITE_P(writer, chakra_workload, ::testing::Values("dp", "tp", "pp", "moe"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// tp = 2 x dp = 4.  Per rank: 3 forward all-gathers and 3 backward reduce-scatters of 2 MiB in
// its tp group of 2 (ring: 1 message of 1 MiB each, a reduce-scatter also 1 sum), and one
// all-reduce of 8 MiB in its dp group of 4 (ring: 2(N-1) = 6 messages of 2 MiB, N-1 = 3 sums):
// 12 sends, 12 receives, 6 sums, 3 + 3 + 12 = 18 MiB sent; 6 kernels on the GPU and the update
// (300 us) as a delay.
TEST(chakra, tensor_and_data_parallel_trace_runs_on_8_inceptionn_nodes) {
    auto dir = test::temp_dir("chakra_tp_dp");
    const auto s = run("configs/examples/chakra_inceptionn8.yaml", dir / "out");
    EXPECT_EQ(s["run"]["status"], "finished");
    EXPECT_EQ(s["run"]["audit_violations"], 0);
    for (int r = 0; r < 8; ++r) {
        const auto& h = s["blocks"]["node[" + std::to_string(r) + "].host"]["stats"];
        EXPECT_EQ(h["bytes_sent"]["value"], 18 * 1048576) << r;
        EXPECT_EQ(h["bytes_received"]["value"], 18 * 1048576) << r;
        EXPECT_EQ(h["ops_send"]["value"], 12) << r;
        EXPECT_EQ(h["ops_recv"]["value"], 12) << r;
        EXPECT_EQ(h["ops_sum"]["value"], 6) << r;
        EXPECT_EQ(h["ops_gpu_compute"]["value"], 6) << r;
        EXPECT_EQ(h["ops_delay"]["value"], 1) << r;
    }
}

double iteration_ns(const nlohmann::json& s) {
    return s["blocks"]["iteration"]["stats"]["time"]["value"].get<double>();
}

class chakra_noc_workload : public ::testing::TestWithParam<std::string> {};

// Exact, as on the cluster: the op lists are the ops workload.chakra makes, so the NoC runs the
// same packets at the same cycles and every statistic agrees.
TEST_P(chakra_noc_workload, trace_and_op_list_give_the_same_iteration_time_on_chiplets) {
    const std::string w = GetParam();
    auto dir = test::temp_dir("chakra_noc_" + w);
    const auto trace = run("configs/examples/chakra_noc4.yaml --set workload.chakra.trace=" +
                               std::string("configs/examples/chakra/") + w,
                           dir / "trace");
    const auto ops = run("configs/examples/chakra_noc_" + w + "_ops.yaml", dir / "ops");
    EXPECT_EQ(trace["run"]["status"], "finished");
    EXPECT_EQ(ops["run"]["status"], "finished");
    EXPECT_GT(iteration_ns(trace), 0.0);
    EXPECT_EQ(iteration_ns(trace), iteration_ns(ops));
    EXPECT_EQ(trace["blocks"], ops["blocks"]);
    std::printf("%s on 2x2 chiplets: iteration %.0f ns\n", w.c_str(), iteration_ns(trace));
}

INSTANTIATE_TEST_SUITE_P(writer, chakra_noc_workload, ::testing::Values("dp", "tp", "pp", "moe"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// The 8-rank tensor x data parallel trace on 8 chiplets of a 4x4 mesh, and as op lists (the
// writer expands each collective over its process group): the same iteration.  Per rank, as on
// INCEPTIONN: 12 sends of 18 MiB in all, so 8 x 12 = 96 messages; at 68 B per flit and 8-flit
// packets, a 1 MiB message is 15421 flits in 1928 packets, a 2 MiB one 30841 in 3856: 8 ranks x
// (6 x 1928 + 6 x 3856) = 277632 packets.
TEST(chakra, tensor_and_data_parallel_trace_runs_on_8_chiplets) {
    auto dir = test::temp_dir("chakra_noc8");
    const auto s = run("configs/examples/chakra_noc8.yaml", dir / "trace");
    const auto o = run("configs/examples/chakra_noc_tp_dp_ops.yaml", dir / "ops");
    EXPECT_EQ(s["run"]["status"], "finished");
    EXPECT_EQ(s["run"]["audit_violations"], 0);
    EXPECT_EQ(iteration_ns(s), iteration_ns(o));
    EXPECT_EQ(s["blocks"], o["blocks"]);
    const auto& noc = s["blocks"]["noc"]["stats"];
    EXPECT_EQ(noc["packets_delivered"]["value"], 277632);
    EXPECT_EQ(noc["packets_created"]["value"], 277632);
    // The ARIES package with row bypass segments runs it too, with fewer hops than the same
    // placement on the plain mesh.
    const auto a = run("configs/examples/chakra_noc8_aries.yaml", dir / "aries");
    const auto m =
        run("configs/examples/chakra_noc8_aries.yaml --set noc.topology=mesh "
            "--set noc.bypass.segments=[]",
            dir / "aries_mesh");
    EXPECT_EQ(a["run"]["status"], "finished");
    EXPECT_EQ(a["blocks"]["noc"]["stats"]["bypass_links"]["value"], 8);
    EXPECT_LT(a["blocks"]["noc"]["stats"]["flit_hops"]["value"].get<double>(),
              m["blocks"]["noc"]["stats"]["flit_hops"]["value"].get<double>());
    EXPECT_LE(iteration_ns(a), iteration_ns(m));
    // And at message level.
    const auto msg =
        run("configs/examples/chakra_noc8.yaml --set noc.granularity=message", dir / "message");
    EXPECT_EQ(msg["run"]["status"], "finished");
    std::printf(
        "tp x dp on 8 chiplets: mesh %.0f ns (message level %.0f), ARIES %.0f ns, same "
        "placement on the mesh %.0f ns\n",
        iteration_ns(s), iteration_ns(msg), iteration_ns(a), iteration_ns(m));
}

// Op lists through `trainvp run`: a 64 KiB send between neighbouring chiplets of an idle 2x2
// mesh is the zero-load message latency (964 flits: 1 x (2 + 10) + 2 + 963 = 977 cycles at
// 1 GHz), and a compute op of 2^30 FLOPs on the PE arrays (32768 FLOPs per cycle) 32768 ns:
// a send after the compute ends at 32768 + 977 ns, the critical path's compute and comm.
TEST(chakra, op_lists_on_chiplets_take_the_closed_form_times) {
    auto dir = test::temp_dir("noc_ops_closed_form");
    const fs::path cfg = dir / "ops.yaml";
    test::write_file(cfg, R"(components:
  noc:
    type: noc.interposer
    size: 2
workload:
  ops:
    noc.chiplet[0]:
      - {op: send, to: 1, bytes: 64KiB, tag: 1}
    noc.chiplet[1]:
      - {op: recv, from: 0, bytes: 64KiB, tag: 1}
    noc.chiplet[3]:
      - {op: compute, flops: 1073741824, bytes: 1MiB, name: c}
      - {op: send, to: 2, bytes: 64KiB, tag: 2, after: [c]}
    noc.chiplet[2]:
      - {op: recv, from: 3, bytes: 64KiB, tag: 2}
)");
    const auto s = run(cfg.string(), dir / "out");
    EXPECT_EQ(s["run"]["status"], "finished");
    EXPECT_EQ(iteration_ns(s), 32768.0 + 977.0);
    EXPECT_EQ(s["blocks"]["iteration"]["stats"]["compute"]["value"].get<double>(), 32768.0);
    EXPECT_EQ(s["blocks"]["iteration"]["stats"]["comm"]["value"].get<double>(), 977.0);
}

}  // namespace
}  // namespace trainvp
