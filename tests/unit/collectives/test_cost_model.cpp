// The lockstep alpha-beta-gamma evaluator against the exchange-time formulas of
// inceptionn.md §VIII-D, the communication schemes of paleo.md §2 and the ring term of
// smartnic.md §IV-C.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/unit/collectives/collectives_test_support.h"

namespace trainvp::collectives {
namespace {

using testing::ceil_log2;
using testing::is_power_of_two;

// Powers of two, so most sums below are exact in double; compared with a relative margin.
constexpr double alpha = 1.0 / 1024;      // s per round
constexpr double beta = 1.0 / (1 << 30);  // s per byte
constexpr double gamma_ = 1.0 / (1 << 28);
constexpr uint32_t element_bytes = 4;
// Divisible by every p in 2..16, so n/p is whole as the paper's formulas assume.
constexpr uint64_t elements = 720720;
constexpr double n_bytes = static_cast<double>(elements * element_bytes);

void expect_close(double got, double want) {
    EXPECT_NEAR(got, want, 1e-12 * want) << "got " << got << ", want " << want;
}

// inceptionn.md §VIII-D, INCEPTIONN (ring, Algorithm 1):
//   2(p-1)*alpha + 2((p-1)/p)*n*beta + ((p-1)/p)*n*gamma
double inceptionn_ring_formula(double p, double n) {
    return 2 * (p - 1) * alpha + 2 * ((p - 1) / p) * n * beta + ((p - 1) / p) * n * gamma_;
}

// inceptionn.md §VIII-D, worker-aggregator:
//   (1 + log(p))*alpha + (p + log(p))*n*beta + (p - 1)*n*gamma
double inceptionn_wa_formula(double p, double n, double log_p) {
    return (1 + log_p) * alpha + (p + log_p) * n * beta + (p - 1) * n * gamma_;
}

TEST(collectives_alpha_beta_gamma, ring_matches_inceptionn_formula_for_p_2_to_16) {
    for (int p = 2; p <= 16; ++p) {
        SCOPED_TRACE("p=" + std::to_string(p));
        const double t = alpha_beta_gamma_time(ring_allreduce(p, elements),
                                               {alpha, beta, gamma_, element_bytes});
        expect_close(t, inceptionn_ring_formula(p, n_bytes));
    }
}

TEST(collectives_alpha_beta_gamma, worker_aggregator_matches_inceptionn_formula_for_p_2_to_16) {
    // The formula's shape is gather (one round: the aggregator takes in p*n bytes and adds
    // p-1 vectors) then a broadcast of log(p) rounds of n bytes.  The schedule broadcasts
    // along a binomial tree over the aggregator and the p workers, which takes
    // ceil(log2(p+1)) rounds: equal to ceil(log2 p) unless p is a power of two, where it is
    // log2(p) + 1, because a single-port broadcast needs log2(p) + 1 rounds to reach p + 1
    // ranks.  So the formula holds exactly with log(p) = ceil(log2(p+1)).
    for (int p = 2; p <= 16; ++p) {
        SCOPED_TRACE("p=" + std::to_string(p));
        const schedule s = worker_aggregator(p, elements, {0, aggregator_return::BINOMIAL});
        const double t = alpha_beta_gamma_time(s, {alpha, beta, gamma_, element_bytes});
        expect_close(t, inceptionn_wa_formula(p, n_bytes, ceil_log2(p + 1)));
        if (!is_power_of_two(p)) {
            expect_close(t, inceptionn_wa_formula(p, n_bytes, ceil_log2(p)));
        } else {
            // With the paper's log2(p) taken literally: short by one broadcast round.
            expect_close(t - inceptionn_wa_formula(p, n_bytes, std::log2(p)),
                         alpha + n_bytes * beta);
        }
    }
}

TEST(collectives_alpha_beta_gamma, ring_beats_worker_aggregator_from_three_workers) {
    // The §VIII-D argument: WA grows linearly in p, the ring stays flat.
    for (int p = 3; p <= 16; ++p) {
        const abg_params m{alpha, beta, gamma_, element_bytes};
        EXPECT_LT(alpha_beta_gamma_time(ring_allreduce(p, elements), m),
                  alpha_beta_gamma_time(worker_aggregator(p, elements), m));
    }
}

TEST(collectives_alpha_beta_gamma, paleo_communication_schemes) {
    // paleo.md §2 with T the time to move the model over one link (alpha = gamma = 0):
    // OneToAll 2KT, Tree AllReduce 2 log2(K) T, Butterfly AllReduce log2(K) T.
    const abg_params m{0.0, beta, 0.0, element_bytes};
    const double t_link = n_bytes * beta;
    for (int k = 2; k <= 16; ++k) {
        SCOPED_TRACE("K=" + std::to_string(k));
        expect_close(alpha_beta_gamma_time(worker_aggregator(k, elements), m), 2.0 * k * t_link);
        expect_close(alpha_beta_gamma_time(binomial_tree_allreduce(k, elements), m),
                     2.0 * ceil_log2(k) * t_link);
        if (is_power_of_two(k)) {
            expect_close(alpha_beta_gamma_time(recursive_doubling_allreduce(k, elements), m),
                         std::log2(k) * t_link);
        }
    }
}

TEST(collectives_alpha_beta_gamma, smartnic_ring_term_with_padding) {
    // smartnic.md §IV-C: R = b * N * ceil(M/N) (gradients padded to N equal chunks) and
    // T_ring = R * 2(N-1) / (N * BW) (alpha = 1, beta = 1, no compression).  The lockstep
    // model charges each round its largest chunk, ceil(M/N), so an unpadded even split
    // costs exactly the padded time.
    const double bw = 40e9 / 8;  // bytes per second
    const abg_params m{0.0, 1.0 / bw, 0.0, element_bytes};
    for (int n = 2; n <= 32; ++n) {
        for (uint64_t weights : {uint64_t{2048} * 2048, uint64_t{1000003}}) {
            const double r_bits = 32.0 * n * std::ceil(static_cast<double>(weights) / n);
            const double t_ring = r_bits / 8 * 2 * (n - 1) / (n * bw);
            expect_close(alpha_beta_gamma_time(ring_allreduce(n, weights), m), t_ring);
        }
    }
}

TEST(collectives_alpha_beta_gamma, pipelined_ring_pays_alpha_per_segment) {
    const abg_params m{alpha, beta, 0.0, element_bytes};
    for (int p : {2, 5, 16}) {
        for (uint32_t seg : {1u, 4u}) {
            const double t = alpha_beta_gamma_time(ring_allreduce(p, elements, seg), m);
            expect_close(t, 2 * (p - 1) * seg * alpha + 2.0 * (p - 1) / p * n_bytes * beta);
        }
    }
}

}  // namespace
}  // namespace trainvp::collectives
