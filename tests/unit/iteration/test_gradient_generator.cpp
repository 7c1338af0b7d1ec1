// The functional-mode gradient generator: moments of each distribution, determinism per seed,
// independent ranks, raw float32 files.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>

#include <fstream>

#include "workloads/iteration/gradient_generator.h"

namespace trainvp::workloads {
namespace {

constexpr std::size_t k_n = 200000;

struct moments {
    double mean = 0, sd = 0, mad = 0, lo = 1e300, hi = -1e300;
};

moments of(const std::vector<float>& v) {
    moments m;
    for (float x : v) {
        m.mean += x;
        m.lo = std::min<double>(m.lo, x);
        m.hi = std::max<double>(m.hi, x);
    }
    m.mean /= static_cast<double>(v.size());
    for (float x : v) {
        m.sd += (x - m.mean) * (x - m.mean);
        m.mad += std::fabs(x - m.mean);
    }
    m.sd = std::sqrt(m.sd / static_cast<double>(v.size()));
    m.mad /= static_cast<double>(v.size());
    return m;
}

// Tolerances: 5 standard errors of the estimate over 2e5 samples (sd/sqrt(n) for a mean,
// about sd/sqrt(2n) for a standard deviation).
TEST(gradient_generator, normal_has_its_mean_and_standard_deviation) {
    gradient_spec s{gradient_distribution::NORMAL, 0.001, 0.02, 7, ""};
    const moments m = of(generate_gradient(s, 0, 4, k_n));
    EXPECT_NEAR(m.mean, 0.001, 5 * 0.02 / std::sqrt(k_n));
    EXPECT_NEAR(m.sd, 0.02, 5 * 0.02 / std::sqrt(2.0 * k_n));
}

TEST(gradient_generator, uniform_stays_in_its_range) {
    gradient_spec s{gradient_distribution::UNIFORM, -0.5, 0.25, 7, ""};
    const moments m = of(generate_gradient(s, 1, 4, k_n));
    EXPECT_GE(m.lo, -0.5);
    EXPECT_LT(m.hi, 0.25);
    EXPECT_NEAR(m.mean, -0.125, 5 * 0.75 / std::sqrt(12.0 * k_n));
}

// Laplace(mu, b): mean mu, mean absolute deviation b.
TEST(gradient_generator, laplace_has_its_scale) {
    gradient_spec s{gradient_distribution::LAPLACE, 0.0, 0.01, 7, ""};
    const moments m = of(generate_gradient(s, 2, 4, k_n));
    EXPECT_NEAR(m.mean, 0.0, 5 * 0.01 * std::sqrt(2.0 / k_n));
    EXPECT_NEAR(m.mad, 0.01, 5 * 0.01 / std::sqrt(k_n));
}

TEST(gradient_generator, seeded_and_independent_per_rank) {
    gradient_spec s{gradient_distribution::NORMAL, 0.0, 1.0, 3, ""};
    EXPECT_EQ(generate_gradient(s, 0, 4, 1000), generate_gradient(s, 0, 4, 1000));
    EXPECT_NE(generate_gradient(s, 0, 4, 1000), generate_gradient(s, 1, 4, 1000));
    gradient_spec t = s;
    t.seed = 4;
    EXPECT_NE(generate_gradient(s, 0, 4, 1000), generate_gradient(t, 0, 4, 1000));
}

TEST(gradient_generator, reads_a_raw_float32_file) {
    const std::string path = ::testing::TempDir() + "grad_" + std::to_string(::getpid()) + ".f32";
    std::vector<float> all = {1.0f, -2.5f, 0.125f, 3.0f, 4.0f, -0.0f};
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(all.data()), 24);  // x86: little-endian
    gradient_spec s{gradient_distribution::FILE, 0, 0, 0, path};
    // 6 values = 3 per rank for 2 ranks, or 6 for every rank.
    EXPECT_EQ(generate_gradient(s, 1, 2, 3), std::vector<float>({3.0f, 4.0f, -0.0f}));
    EXPECT_EQ(generate_gradient(s, 3, 4, 6), all);
    EXPECT_THROW(generate_gradient(s, 0, 4, 5), std::runtime_error);
    s.file = path + ".missing";
    EXPECT_THROW(generate_gradient(s, 0, 4, 5), std::runtime_error);
    std::remove(path.c_str());
}

TEST(gradient_generator, rejects_bad_parameters) {
    EXPECT_THROW(generate_gradient({gradient_distribution::NORMAL, 0, 0, 1, ""}, 0, 1, 1),
                 std::invalid_argument);
    EXPECT_THROW(generate_gradient({gradient_distribution::UNIFORM, 1, 1, 1, ""}, 0, 1, 1),
                 std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::workloads
