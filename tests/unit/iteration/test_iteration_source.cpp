// iteration_source: the iterations it hands out one at a time, concatenated, are exactly the
// op list training_builder builds at once (names, tags, indices, every field), for every
// exchange algorithm, policy and placement, workers and aggregator; and name_of(i) gives op i's
// name without it being taken.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/tiny_model.h"
#include "workloads/iteration/iteration_source.h"
#include "workloads/iteration/training_builder.h"
#include "workloads/models/model_loader.h"

namespace trainvp::workloads {
namespace {

using ops::op;

models::model tiny() { return test::tiny_model(); }

void expect_same(const op& a, const op& b, const std::string& where) {
    EXPECT_EQ(a.name, b.name) << where;
    EXPECT_EQ(a.kind, b.kind) << where;
    EXPECT_EQ(a.unit, b.unit) << where;
    EXPECT_EQ(a.after, b.after) << where;
    EXPECT_EQ(a.flops, b.flops) << where;
    EXPECT_EQ(a.bytes, b.bytes) << where;
    EXPECT_EQ(a.address, b.address) << where;
    EXPECT_EQ(a.peer, b.peer) << where;
    EXPECT_EQ(a.tag, b.tag) << where;
    EXPECT_EQ(a.tos, b.tos) << where;
    EXPECT_EQ(a.inputs, b.inputs) << where;
    EXPECT_EQ(a.delay_ps, b.delay_ps) << where;
    EXPECT_EQ(a.phase, b.phase) << where;
}

void expect_matches_whole_list(const training_options& o, const std::string& what) {
    auto b = std::make_shared<const training_builder>(tiny(), o);
    const std::size_t ranks = b->ranks() + (o.aggregator ? 1 : 0);
    for (std::size_t r = 0; r < ranks; ++r) {
        const bool agg = r == b->ranks();
        const std::vector<op> whole = agg ? b->aggregator_ops() : b->worker_ops(r);
        iteration_source src(b, r, agg);
        ASSERT_EQ(src.chunks(), static_cast<std::size_t>(o.iterations)) << what;
        ASSERT_EQ(src.size(), whole.size()) << what;
        std::array<std::size_t, ops::k_op_units> units{};
        for (const op& x : whole) ++units[static_cast<std::size_t>(x.unit)];
        EXPECT_EQ(src.unit_sizes(), units) << what;
        std::size_t i = 0;
        for (std::size_t c = 0; c < src.chunks(); ++c) {
            for (const op& x : src.take(c)) {
                ASSERT_LT(i, whole.size()) << what;
                expect_same(x, whole[i],
                            what + " rank " + std::to_string(r) + " op " + std::to_string(i));
                ++i;
            }
        }
        EXPECT_EQ(i, whole.size()) << what;
        // A host keeps ops without names and asks the source for one (errors, stall reports),
        // in any order, before or after it took the op's iteration.
        iteration_source names(b, r, agg);
        for (std::size_t k = whole.size(); k-- > 0;) {
            ASSERT_EQ(names.name_of(k), whole[k].name) << what << " op " << k;
        }
        EXPECT_EQ(names.name_of(whole.size()), "") << what;
        EXPECT_EQ(names.take(0).size(), src.size() / src.chunks()) << what;
        // Without names (no timeline): the same ops, the collectives' ones unnamed, and name_of
        // names every op as before.
        iteration_source unnamed(b, r, agg, false);
        std::size_t j = 0, without = 0;
        for (std::size_t c = 0; c < unnamed.chunks(); ++c) {
            for (op x : unnamed.take(c)) {
                ASSERT_LT(j, whole.size()) << what;
                if (x.name.empty() && !whole[j].name.empty()) ++without;
                if (x.name.empty()) x.name = whole[j].name;
                expect_same(x, whole[j], what + " unnamed op " + std::to_string(j));
                EXPECT_EQ(unnamed.name_of(j), whole[j].name) << what << " op " << j;
                ++j;
            }
        }
        EXPECT_EQ(j, whole.size()) << what;
        std::size_t messages = 0;  // sends and receives: collective ops, which go unnamed
        for (const op& x : whole) {
            messages += x.kind == ops::op_kind::SEND || x.kind == ops::op_kind::RECV;
        }
        EXPECT_GE(without, messages) << what;
    }
}

TEST(iteration_source, iterations_one_at_a_time_equal_the_whole_list) {
    using P = exchange_policy;
    using C = compute_placement;
    for (std::string a : {"ring", "worker_aggregator", "binomial_tree", "halving_doubling",
                          "double_binary_tree", "fpga_ring", "none"}) {
        for (P p : {P::AFTER_BACKWARD, P::OVERLAP_LAYERS}) {
            for (C c : {C::CPU, C::GPU}) {
                for (int its : {1, 4}) {
                    training_options o;
                    const int workers = a == "none" ? 1 : 4;
                    for (int r = 0; r < workers; ++r) o.workers.push_back(r);
                    if (a == "worker_aggregator") o.aggregator = 9;
                    o.algorithm = a;
                    o.policy = p;
                    o.compute = c;
                    o.iterations = its;
                    o.tos = 0x28;
                    expect_matches_whole_list(
                        o, "algorithm " + a + " policy " + std::to_string(static_cast<int>(p)) +
                               " placement " + std::to_string(static_cast<int>(c)) +
                               " iterations " + std::to_string(its));
                }
            }
        }
    }
}

TEST(iteration_source, binomial_return_and_measured_phases) {
    training_options o;
    o.workers = {0, 1, 2, 3, 4};
    o.aggregator = 7;
    o.algorithm = "worker_aggregator";
    o.wa_return = collectives::aggregator_return::BINOMIAL;
    o.forward_ps = 1000000;
    o.backward_ps = 2000000;
    o.iterations = 3;
    expect_matches_whole_list(o, "binomial return");
}

}  // namespace
}  // namespace trainvp::workloads
