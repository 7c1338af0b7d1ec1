// The modern training options on a platform (configs/examples/training_{zero,
// tensor_parallel,pipeline}.yaml: four of INCEPTIONN's cluster nodes on 10 GbE), against the
// closed forms that tests/unit/iteration/test_parallel_training_builder.cpp checks on the op
// lists:
// - ZeRO-3: each rank sends 3 (N-1)/N x P bytes (P = 4 x (1024 x 1024 + 1024) x 4 B), exact.
// - 1F1B: the iteration is (M + S - 1)(t_f + t_b) = 41.25 ms plus what the closed form leaves
//   out: the 2 (S-1) = 6 activation transfers of the fill and the drain (8 KiB each on 10 GbE
//   with the stack's costs: tens of us each) and stage 0's update (2 layers' 257 KiB of
//   weights through host memory); tests/unit/iteration/test_parallel_training_builder.cpp
//   bounds the transfers' share between 2 (S-1) c and 2 (M+S-1) c.  Tolerance: +1 %
//   (0.41 ms; the run gives +0.58 %).
// - Tensor parallel 2 x data parallel 2 on the zoo's transformer: the bytes each rank sends
//   (the group's activation all-reduces and the shard's gradient all-reduce), exact.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_util.h"
#include "workloads/models/model_loader.h"

namespace trainvp {
namespace {

namespace fs = std::filesystem;

nlohmann::json run(const std::string& args, const fs::path& out) {
    auto r = test::run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN +
                               " run " + args + " --quiet --out " + out.string());
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return nlohmann::json::parse(test::read_file(out / "stats.json"));
}

std::uint64_t bytes_sent(const nlohmann::json& s, int node) {
    return s["blocks"]["node[" + std::to_string(node) + "].host"]["stats"]["bytes_sent"]["value"]
        .get<std::uint64_t>();
}

TEST(modern_parallelism, zero3_sends_three_times_n_minus_1_over_n_of_the_parameters) {
    auto dir = test::temp_dir("zero3");
    const auto s = run("configs/examples/training_zero.yaml", dir / "out");
    EXPECT_EQ(s["run"]["status"], "finished");
    const std::uint64_t P = 4ull * (1024 * 1024 + 1024) * 4;
    for (int r = 0; r < 4; ++r) EXPECT_EQ(bytes_sent(s, r), 3 * 3 * P / 4) << r;
    // ZeRO-2 sends 2 (N-1)/N x P, as a ring all-reduce.
    const auto z2 =
        run("configs/examples/training_zero.yaml --set workload.training.sharding=gradients",
            dir / "z2");
    for (int r = 0; r < 4; ++r) EXPECT_EQ(bytes_sent(z2, r), 2 * 3 * P / 4) << r;
}

// T = 2, N = 4: a ring all-reduce of n bytes over 2 ranks sends 2 (T-1)/T n = n per rank.
// Per rank: each layer with parameters' output (forward), the previous layer's output for
// each such layer but the first (backward), and its shard of the gradients, ceil(p / T)
// parameters per layer, over the 2 ranks holding it.  Exact.
TEST(modern_parallelism, tensor_parallel_sends_the_activations_and_the_shard) {
    auto dir = test::temp_dir("tp");
    const auto s = run("configs/examples/training_tensor_parallel.yaml", dir / "out");
    EXPECT_EQ(s["run"]["status"], "finished");
    models::model_options mo;
    mo.batch = 4;
    mo.parameters = {{"layers", 2}, {"seq_len", 128}};
    const models::model m = models::load_zoo_model("transformer", mo);
    std::uint64_t want = 0;
    const auto& L = m.layers();
    for (std::size_t l = 0; l < L.size(); ++l) {
        if (L[l].weight_grad_bytes == 0) continue;
        want += static_cast<std::uint64_t>(L[l].activation_bytes);
        if (l > 0) want += static_cast<std::uint64_t>(L[l - 1].activation_bytes);
        want += static_cast<std::uint64_t>((L[l].params + 1) / 2 * 4);
    }
    for (int r = 0; r < 4; ++r) EXPECT_EQ(bytes_sent(s, r), want) << r;
}

TEST(modern_parallelism, one_f_one_b_iteration_is_the_closed_form) {
    auto dir = test::temp_dir("pp");
    const auto s = run("configs/examples/training_pipeline.yaml", dir / "out");
    EXPECT_EQ(s["run"]["status"], "finished");
    const double t = s["run"]["sim_time_ps"].get<double>();
    const double closed = (8 + 4 - 1) * (1.25e9 + 2.5e9);  // ps
    std::cout << "1F1B: simulated " << t / 1e9 << " ms, closed form " << closed / 1e9 << " ms (+"
              << (t / closed - 1) * 100 << " %)\n";
    EXPECT_GE(t, closed);
    EXPECT_LE(t, closed * 1.01);
}

}  // namespace
}  // namespace trainvp
