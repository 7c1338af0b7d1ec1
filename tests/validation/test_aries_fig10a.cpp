// aries.md §V-B, Fig. 10(a): the one unmasked result of Fig. 10-11, the calibration case.  On a
// 4x4 package with ring all-reduce ARIES gives a 2.10x execution-time speed-up over the mesh
// and the torus.  The set-up is configs/papers/aries (ASTRA-sim 1.0's compute rate, batches and
// layer-wise pipelining, the paper's router and link figures); nothing in it was fitted to this
// case, so the test checks a prediction.  aries.md gives one number per baseline; it is read as
// the largest speed-up over the four benchmarks (the paper's speed-ups are "up to"), the model
// batches are tools/validate_aries_training.py's MODELS.  Tolerance 10 % (issue 25's bound for
// this case; measured: see docs/validation.md `aries-training`).  The flattened-butterfly
// figure (1.52x) is a known miss (FB = mesh for a ring on a Hamiltonian cycle; see the report).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tests/support/test_util.h"

namespace trainvp::test {
namespace {

double iteration_ns(const std::string& config, const std::string& model, int batch,
                    const std::string& sets = "") {
    const auto dir = temp_dir("fig10a_" + config.substr(config.find_last_of('/') + 1) + model);
    const auto r =
        run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN + " run " +
                    config + " --quiet --force --out " + dir.string() +
                    " --set workload.chiplet_training.workload_model=" + model +
                    " --set workload.chiplet_training.batch=" + std::to_string(batch) + " " + sets);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto stats = nlohmann::json::parse(read_file(dir / "stats.json"));
    return stats["blocks"]["noc"]["stats"]["iteration_time"]["value"].get<double>();
}

// Samples per chiplet x 16 chiplets (tools/validate_aries_training.py, MODELS).
struct model_case {
    const char* name;
    int batch;
    const char* sets;
};
const model_case k_models[] = {
    {"resnet50", 16, ""},
    {"vgg16", 16, ""},
    {"dlrm", 219 * 16, "--set workload.chiplet_training.allreduce_embeddings=false"},
    {"transformer", 12 * 16, ""},
};

double largest_speedup(const std::string& baseline) {
    double best = 0;
    for (const auto& m : k_models) {
        const double base = iteration_ns(baseline, m.name, m.batch, m.sets);
        const double aries =
            iteration_ns("configs/papers/aries/fig10a_aries.yaml", m.name, m.batch, m.sets);
        best = std::max(best, base / aries);
    }
    return best;
}

TEST(aries_fig10a, ring_speedup_over_mesh_is_2_10x_within_10_percent) {
    EXPECT_NEAR(largest_speedup("configs/papers/aries/fig10a_mesh.yaml"), 2.10, 0.21);
}

TEST(aries_fig10a, ring_speedup_over_torus_is_2_10x_within_10_percent) {
    EXPECT_NEAR(largest_speedup("configs/papers/aries/fig10a_torus.yaml"), 2.10, 0.21);
}

// Fig. 11's static power: the package charges the paper's router (docs/dsent-32nm.md, "The
// paper's router"), each component's DSENT 32 nm leakage scaled by aries.md §V-D's area over
// DSENT's area for the same router at 45 nm, by hand from the raw figures (mW; um^2):
//   buffers   684.689 x 98740 / 2720380, over 640 slots;  crossbar 5.92306 x 17806 / 358095
//   allocators 0.339912 x (4589 + 9066) / 1290.08 + clock tree 0.0409142 + clock 2.10937
//   per port  1635 flip-flops x 1.40612 uW;  link driver 0.185477 per 3 mm.
// A 4x4 mesh: 16 routers of 5 ports and 48 links of one 3 mm pitch.  Tolerance 1e-3 relative:
// the config's values are these rounded to four significant digits.
TEST(aries_fig10a, package_static_power_is_the_papers_router_by_dsent) {
    const double router_mw = 684.689 * 98740.0 / 2720380.0 + 5.92306 * 17806.0 / 358095.0 +
                             0.339912 * (4589.0 + 9066.0) / 1290.08 + 0.0409142 + 2.10937 +
                             5 * 1635 * 1.40612e-3;
    const double mesh_mw = 16 * router_mw + 48 * 0.185477;  // 687.1 mW
    const auto dir = temp_dir("fig11_static_power");
    const auto r = run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN +
                               " run configs/papers/aries/fig10a_mesh.yaml --quiet --force --out " +
                               dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto stats = nlohmann::json::parse(read_file(dir / "stats.json"));
    const auto& noc = stats["blocks"]["noc"]["stats"];
    EXPECT_NEAR(noc["static_power"]["value"].get<double>(), mesh_mw, 1e-3 * mesh_mw);
    // Static energy = static power x the run's time (noc/energy).
    EXPECT_NEAR(
        noc["static_energy"]["value"].get<double>(),
        noc["static_power"]["value"].get<double>() * noc["energy_time"]["value"].get<double>(),
        1e-9 * noc["static_energy"]["value"].get<double>());
}

}  // namespace
}  // namespace trainvp::test
