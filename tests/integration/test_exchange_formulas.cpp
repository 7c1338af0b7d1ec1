// inceptionn.md §VIII-D on the platform: the gradient-exchange time of the worker-aggregator
// (WA) and of the ring (INC, Algorithm 1) against the paper's alpha-beta-gamma formulas, for
// p = 2..16 workers.  Each host runs the op list that workloads/iteration expands from the
// collective schedule, on configs/validation/exchange.yaml (INCEPTIONN's cluster node on one
// 10 GbE switch).  alpha, beta and gamma are derived below from the platform's params, term
// by term; nothing is fitted to the simulation.
//
//   WA:   (1 + log p) alpha + (p + log p) n beta + (p - 1) n gamma
//   ring: 2(p - 1) alpha + 2 (p - 1)/p n beta + (p - 1)/p n gamma
//
// Where the formulas' assumptions hold here (n = 8 MB, so the per-message latency is < 1 % of
// a message; the 10 GbE wire is the slowest stage; sums and transfers do not overlap):
// - The ring is lockstep: round s sends the block round s-1 produced, so every round costs
//   one message latency, one block on the wire and (reduce-scatter) one block's addition.
// - WA's gather is an incast: the aggregator's switch port carries p n bytes (802.3x pause,
//   no drops), and all p messages complete within the last few frames, so the p - 1 additions
//   start after the gather and cannot overlap it.  The return is the binomial broadcast of
//   the formula (aggregator_return::BINOMIAL).
// Where they do not, and what the test compares instead:
// - "log p" is the depth of a binomial broadcast over the aggregator and the p workers:
//   ceil(log2(p + 1)) rounds.  Taken literally (log2 p, fractional) it is short by up to
//   (1 - frac) * n beta: e.g. 9 % at p = 3 and, at powers of two, exactly alpha + n beta.
//   The assertion uses the broadcast depth; the literal formula's error is recorded next to
//   it (property `literal_error`).
// - The broadcast has no global barrier: the aggregator starts its next send when its NIC
//   has put the previous one on the wire (SEND_DONE), before the receiver has it, so some
//   rounds cost less than a full alpha.  alpha is < 0.1 % of a WA round; not corrected.
// - Each addition also pays the memory latency once (80 ns), outside the formula; negligible.
// - A message whose size is not a multiple of the MSS ends with a short frame that carries a
//   full frame's overhead (78 B, ~60 ns), outside m * beta; negligible.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "tests/support/cluster_abg.h"
#include "tests/support/sim_fixture.h"
#include "tests/support/test_util.h"
#include "workloads/collectives/collectives.h"
#include "workloads/iteration/collective_ops.h"
#include "workloads/iteration/op_yaml.h"

namespace trainvp {
namespace {

constexpr std::uint64_t k_gradient_bytes = 8000000;  // n: 8 MB of fp32 gradients

enum class exchange { WA, RING };

using test::abg;
using test::derive;

struct formula {
    double value = 0;
    double literal = 0;  // WA with log p = log2 p as printed
};

formula expected(exchange e, int p, const abg& c) {
    const double n = static_cast<double>(k_gradient_bytes), pp = p;
    formula f;
    if (e == exchange::RING) {
        f.value =
            2 * (pp - 1) * c.alpha + 2 * (pp - 1) / pp * n * c.beta + (pp - 1) / pp * n * c.gamma;
        f.literal = f.value;
        return f;
    }
    auto wa = [&](double logp) {
        return (1 + logp) * c.alpha + (pp + logp) * n * c.beta + (pp - 1) * n * c.gamma;
    };
    f.value = wa(std::ceil(std::log2(pp + 1)));  // the binomial broadcast's depth
    f.literal = wa(std::log2(pp));
    return f;
}

// The config: exchange.yaml with `ranks` nodes and each host's generated op list.
std::string config_text(exchange e, int p) {
    const std::uint64_t elements = k_gradient_bytes / 4;
    collectives::schedule s;
    if (e == exchange::RING) {
        s = collectives::ring_allreduce(p, elements);
    } else {
        collectives::worker_aggregator_options o;
        o.result_return = collectives::aggregator_return::BINOMIAL;
        s = collectives::worker_aggregator(p, elements, o);
    }
    std::vector<std::uint32_t> nodes;
    for (int r = 0; r < s.ranks; ++r) nodes.push_back(static_cast<std::uint32_t>(r));
    std::string y = "include: " + std::string(TRAINVP_SOURCE_DIR) +
                    "/configs/validation/exchange.yaml\n"
                    "components:\n  node: {count: " +
                    std::to_string(s.ranks) + "}\n  switch: {ports: " + std::to_string(s.ranks) +
                    "}\nworkload:\n  ops:\n";
    for (int r = 0; r < s.ranks; ++r) {
        y += "    node[" + std::to_string(r) + "].host:\n";
        y += workloads::ops_yaml(workloads::collective_ops(s, r, nodes), "      ");
    }
    return y;
}

using exchange_case = std::tuple<exchange, int>;

class exchange_formulas : public ::testing::TestWithParam<exchange_case> {};

TEST_P(exchange_formulas, simulated_time_matches_the_alpha_beta_gamma_formula) {
    const auto [e, p] = GetParam();
    const auto dir = test::temp_dir("exchange");
    const std::string path = test::write_file(dir / "exchange.yaml", config_text(e, p));
    platform_loader loader(registry::global());
    platform_desc d = loader.load(path);
    const abg c = derive(d);
    simulation sim(std::move(d), registry::global());
    sim.elaborate();
    const run_result r = sim.run();
    ASSERT_EQ(r.status, run_status::FINISHED) << r.stall_report;
    const double got = r.end_time.to_seconds();
    const formula f = expected(e, p, c);
    const double err = (got - f.value) / f.value;
    const double literal_err = (got - f.literal) / f.literal;
    std::cout << "exchange " << (e == exchange::WA ? "WA" : "ring") << " p=" << p
              << " simulated_us=" << got * 1e6 << " formula_us=" << f.value * 1e6
              << " error=" << err << " literal_formula_us=" << f.literal * 1e6
              << " literal_error=" << literal_err << " alpha_us=" << c.alpha * 1e6
              << " beta_ns_per_B=" << c.beta * 1e9 << " gamma_ps_per_B=" << c.gamma * 1e12 << "\n";
    RecordProperty("relative_error", std::to_string(err));
    RecordProperty("literal_error", std::to_string(literal_err));
    // The bound for first-order analytical models: 5 %.  What remains between the two
    // is listed in the file's header (partial last frames, the broadcast's missing barrier,
    // per-sum memory latency), each well under 1 % at this n.
    EXPECT_NEAR(got, f.value, 0.05 * f.value) << "p=" << p;
}

INSTANTIATE_TEST_SUITE_P(p2_to_16, exchange_formulas,
                         ::testing::Combine(::testing::Values(exchange::WA, exchange::RING),
                                            ::testing::Range(2, 17)),
                         [](const ::testing::TestParamInfo<exchange_case>& i) {
                             return std::string(std::get<0>(i.param) == exchange::WA ? "wa"
                                                                                     : "ring") +
                                    "_p" + std::to_string(std::get<1>(i.param));
                         });

}  // namespace
}  // namespace trainvp
