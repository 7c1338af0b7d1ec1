// The collective registry: the built-in algorithms by name, in their listing order, with the
// same schedules as their builders; needs checked before the factory; clashes refused.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/unit/collectives/collectives_test_support.h"
#include "workloads/collectives/collective_registry.h"
#include "workloads/collectives/direct_gather.h"
#include "workloads/collectives/ring_gather.h"

namespace trainvp::collectives {
namespace {

using testing::run_and_check;
using testing::run_and_check_result;

void expect_same(const schedule& a, const schedule& b) {
    ASSERT_EQ(a.algorithm, b.algorithm);
    ASSERT_EQ(a.ranks, b.ranks);
    ASSERT_EQ(a.elements, b.elements);
    ASSERT_EQ(a.contributes, b.contributes);
    ASSERT_EQ(a.steps.size(), b.steps.size());
    for (std::size_t r = 0; r < a.steps.size(); ++r) {
        ASSERT_EQ(a.steps[r].size(), b.steps[r].size()) << a.algorithm << " rank " << r;
        for (std::size_t i = 0; i < a.steps[r].size(); ++i) {
            const step& x = a.steps[r][i];
            const step& y = b.steps[r][i];
            EXPECT_TRUE(x.kind == y.kind && x.peer == y.peer && x.range == y.range &&
                        x.round == y.round && x.tag == y.tag)
                << a.algorithm << " rank " << r << " step " << i;
        }
    }
}

TEST(collective_registry, lists_the_built_ins_in_order_with_their_fabrics) {
    const auto& reg = collective_registry::global();
    EXPECT_EQ(reg.names(), (std::vector<std::string>{"ring",
                                                     "worker_aggregator",
                                                     "binomial_tree",
                                                     "halving_doubling",
                                                     "recursive_doubling",
                                                     "ring_2d",
                                                     "hierarchical_ring",
                                                     "double_binary_tree",
                                                     "multi_tree",
                                                     "concentrated_multi_tree",
                                                     "direct_allgather",
                                                     "direct_reduce_scatter",
                                                     "ring_allgather",
                                                     "ring_reduce_scatter",
                                                     "recursive_doubling_allgather",
                                                     "recursive_halving_reduce_scatter",
                                                     "binomial_broadcast",
                                                     "chain_broadcast",
                                                     "binomial_reduce",
                                                     "direct_all_to_all",
                                                     "pairwise_all_to_all"}));
    // The choice lists of workload.training's `algorithm` (before fpga_ring and none) and of
    // noc.interposer's `collective` (after none), in the order they had as hand-written lists.
    EXPECT_EQ(reg.names_for(fabric::HOST),
              (std::vector<std::string>{"ring", "worker_aggregator", "binomial_tree",
                                        "halving_doubling", "recursive_doubling", "ring_2d",
                                        "hierarchical_ring", "double_binary_tree"}));
    EXPECT_EQ(
        reg.names_for(fabric::NOC),
        (std::vector<std::string>{"ring", "ring_2d", "hierarchical_ring", "double_binary_tree",
                                  "multi_tree", "concentrated_multi_tree"}));
    EXPECT_EQ(reg.names_for(fabric::FPGA), (std::vector<std::string>{"ring"}));
    // fabric.flow runs every all-reduce (not the aggregator's, which needs a rank of its own).
    EXPECT_EQ(
        reg.names_for(fabric::FLOW),
        (std::vector<std::string>{"ring", "binomial_tree", "halving_doubling", "recursive_doubling",
                                  "ring_2d", "hierarchical_ring", "double_binary_tree",
                                  "multi_tree", "concentrated_multi_tree"}));
    for (const auto& n : reg.names()) {
        const collective_info& c = reg.get(n);
        EXPECT_FALSE(c.description.empty()) << n;
        EXPECT_EQ(reg.origin(n), "built in");
    }
    EXPECT_TRUE(reg.get("worker_aggregator").needs.aggregator);
    // The collectives that are not all-reduces say what they leave, and run on no fabric's
    // exchange list (a consumer makes them by name).
    const std::vector<std::pair<std::string, collective_result>> results{
        {"direct_allgather", collective_result::ALL_GATHER},
        {"direct_reduce_scatter", collective_result::REDUCE_SCATTER},
        {"ring_allgather", collective_result::ALL_GATHER},
        {"ring_reduce_scatter", collective_result::REDUCE_SCATTER},
        {"recursive_doubling_allgather", collective_result::ALL_GATHER},
        {"recursive_halving_reduce_scatter", collective_result::REDUCE_SCATTER},
        {"binomial_broadcast", collective_result::BROADCAST},
        {"chain_broadcast", collective_result::BROADCAST},
        {"binomial_reduce", collective_result::REDUCE},
        {"direct_all_to_all", collective_result::ALL_TO_ALL},
        {"pairwise_all_to_all", collective_result::ALL_TO_ALL}};
    for (const auto& [name, result] : results) {
        EXPECT_EQ(reg.get(name).result, result) << name;
        EXPECT_TRUE(reg.get(name).fabrics.empty()) << name;
    }
    EXPECT_EQ(describe_needs(reg.get("recursive_doubling_allgather").needs),
              "power-of-two N, N >= 2");
    EXPECT_EQ(describe_needs(reg.get("ring").needs), "any N >= 2");
    EXPECT_EQ(describe_needs(reg.get("concentrated_multi_tree").needs),
              "a rows x cols grid, both even, N >= 4");
    EXPECT_EQ(describe_needs(reg.get("worker_aggregator").needs),
              "an aggregator rank after the workers, N >= 1");
}

TEST(collective_registry, makes_the_schedules_of_the_builders) {
    const auto& reg = collective_registry::global();
    collective_args a;
    a.ranks = 16;
    a.elements = 1000;
    a.rows = 4;
    a.cols = 4;
    a.levels = 2;
    a.trees = 4;
    a.degree = 2;
    expect_same(reg.make("ring", a), ring_allreduce(16, 1000));
    expect_same(reg.make("binomial_tree", a), binomial_tree_allreduce(16, 1000));
    expect_same(reg.make("halving_doubling", a), halving_doubling_allreduce(16, 1000));
    expect_same(reg.make("recursive_doubling", a), recursive_doubling_allreduce(16, 1000));
    expect_same(reg.make("ring_2d", a), ring_2d(4, 4, 1000));
    expect_same(reg.make("hierarchical_ring", a), hierarchical_ring(16, 2, 1000));
    expect_same(reg.make("double_binary_tree", a), double_binary_tree(16, 1000));
    expect_same(reg.make("multi_tree", a), multi_tree(16, 1000, 4, 2));
    expect_same(reg.make("concentrated_multi_tree", a), concentrated_multi_tree(4, 4, 1000, 4, 2));
    worker_aggregator_options wo;
    wo.result_return = aggregator_return::BINOMIAL;
    a.aggregator = wo;
    expect_same(reg.make("worker_aggregator", a), worker_aggregator(16, 1000, wo));
    a.segments = 3;
    expect_same(reg.make("ring", a), ring_allreduce(16, 1000, 3));
    // The ring's rank_steps equal its schedule's rows.
    const schedule whole = ring_allreduce(16, 1000, 3);
    for (int r = 0; r < 16; ++r) {
        schedule one = whole;
        one.steps[static_cast<std::size_t>(r)] = reg.get("ring").rank_steps(a, r);
        expect_same(one, whole);
    }
    for (const auto& n : reg.names()) {
        // The all-reduces sum on every rank; the gathers are checked in test_direct_gather.cpp.
        if (reg.get(n).result == collective_result::ALL_REDUCE) {
            run_and_check<float>(reg.make(n, a));
        }
    }
    expect_same(reg.make("direct_allgather", a), direct_allgather(16, 1000));
    expect_same(reg.make("direct_reduce_scatter", a), direct_reduce_scatter(16, 1000));
    expect_same(reg.make("ring_allgather", a), ring_allgather(16, 1000));
    expect_same(reg.make("ring_reduce_scatter", a), ring_reduce_scatter(16, 1000));
    expect_same(reg.make("recursive_doubling_allgather", a),
                recursive_doubling_allgather(16, 1000));
    expect_same(reg.make("recursive_halving_reduce_scatter", a),
                recursive_halving_reduce_scatter(16, 1000));
    a.root = 5;
    expect_same(reg.make("binomial_broadcast", a), binomial_broadcast(16, 1000, 5));
    expect_same(reg.make("binomial_reduce", a), binomial_reduce(16, 1000, 5));
    expect_same(reg.make("chain_broadcast", a), chain_broadcast(16, 1000, 5, 3));
    a.elements = 1008;  // the all-to-alls need a multiple of the 16 ranks
    expect_same(reg.make("direct_all_to_all", a), direct_all_to_all(16, 1008));
    expect_same(reg.make("pairwise_all_to_all", a), pairwise_all_to_all(16, 1008));
    // Every entry, whatever its result kind, gives exactly that result on data (root 5).
    for (const auto& n : reg.names()) {
        run_and_check_result(reg.make(n, a), reg.get(n).result, a.root);
    }
}

TEST(collective_registry, checks_needs_before_the_factory) {
    const auto& reg = collective_registry::global();
    collective_args a;
    a.ranks = 1;
    a.elements = 10;
    EXPECT_THROW(reg.make("ring", a), std::invalid_argument);
    a.ranks = 12;
    a.rows = 3;
    a.cols = 3;
    EXPECT_THROW(reg.make("ring_2d", a), std::invalid_argument);  // 3 x 3 != 12
    a.levels = 2;
    try {
        reg.make("hierarchical_ring", a);
        FAIL() << "12 is not a square";
    } catch (const std::invalid_argument& e) {
        // The builder's own words (tests/configs/bad/noc_hierarchical_ring_levels.expected).
        EXPECT_STREQ(e.what(),
                     "hierarchical_ring: 12 ranks is not the 2-th power of an integer >= 2");
    }
    try {
        reg.make("no_such", a);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("registered: ring, worker_aggregator"),
                  std::string::npos)
            << e.what();
    }
}

TEST(collective_registry, refuses_a_second_collective_of_a_name) {
    auto& reg = collective_registry::global();
    collective_info c = reg.get("ring");
    EXPECT_THROW(reg.add(c), std::logic_error);
    c.name = "";
    EXPECT_THROW(reg.add(c), std::logic_error);
    c.name = "test.no_factory";
    c.make = nullptr;
    EXPECT_THROW(reg.add(c), std::logic_error);
}

}  // namespace
}  // namespace trainvp::collectives
