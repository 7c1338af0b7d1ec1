// The training-iteration builder: op counts and kinds per rank for each policy, algorithm and
// placement; dependencies only backwards; sends matched by receives across ranks; the overlap
// structure of smartnic.md Fig. 3b; measured phase times split exactly; the op lists survive
// ops_yaml -> parse_ops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/config_node.h"
#include "tests/support/tiny_model.h"
#include "workloads/collectives/halving_doubling.h"
#include "workloads/collectives/ring.h"
#include "workloads/iteration/op_yaml.h"
#include "workloads/iteration/training_builder.h"
#include "workloads/models/model_loader.h"
#include "workloads/ops/op_parser.h"

namespace trainvp::workloads {
namespace {

using ops::op;
using ops::op_kind;
using ops::op_unit;

models::model tiny() { return test::tiny_model(); }

training_options opts(const std::string& a, exchange_policy p, compute_placement c,
                      int workers = 4) {
    training_options o;
    for (int r = 0; r < workers; ++r) o.workers.push_back(static_cast<std::uint32_t>(r));
    if (a == "worker_aggregator") o.aggregator = static_cast<std::uint32_t>(workers);
    o.algorithm = a;
    o.policy = p;
    o.compute = c;
    return o;
}

std::map<op_kind, std::size_t> kinds(const std::vector<op>& l) {
    std::map<op_kind, std::size_t> m;
    for (const op& o : l) ++m[o.kind];
    return m;
}

std::size_t index_of(const std::vector<op>& l, const std::string& name) {
    for (std::size_t i = 0; i < l.size(); ++i) {
        if (l[i].name == name) return i;
    }
    ADD_FAILURE() << "no op " << name;
    return 0;
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// Every op an op waits for, directly or not.
std::set<std::size_t> ancestors(const std::vector<op>& l, std::size_t i) {
    std::set<std::size_t> out;
    std::vector<std::size_t> todo(l[i].after.begin(), l[i].after.end());
    while (!todo.empty()) {
        const std::size_t a = todo.back();
        todo.pop_back();
        if (!out.insert(a).second) continue;
        todo.insert(todo.end(), l[a].after.begin(), l[a].after.end());
    }
    return out;
}

void expect_backward_deps_only(const std::vector<op>& l) {
    std::set<std::string> names;
    for (std::size_t i = 0; i < l.size(); ++i) {
        EXPECT_TRUE(names.insert(l[i].name).second) << "repeated name " << l[i].name;
        EXPECT_TRUE(std::is_sorted(l[i].after.begin(), l[i].after.end())) << l[i].name;
        for (std::size_t a : l[i].after) EXPECT_LT(a, i) << l[i].name;
    }
}

// Every send has its receive on the peer (same source, tag and size) and vice versa.
void expect_matched(const std::vector<std::vector<op>>& lists,
                    const std::vector<std::uint32_t>& nodes) {
    std::multiset<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t>> sends,
        recvs;
    for (std::size_t r = 0; r < lists.size(); ++r) {
        for (const op& o : lists[r]) {
            if (o.kind == op_kind::SEND) sends.insert({nodes[r], o.peer, o.tag, o.bytes});
            if (o.kind == op_kind::RECV) recvs.insert({o.peer, nodes[r], o.tag, o.bytes});
        }
    }
    EXPECT_FALSE(sends.empty());
    EXPECT_EQ(sends, recvs);
}

std::vector<std::vector<op>> all_lists(const training_builder& b) {
    std::vector<std::vector<op>> out;
    for (std::size_t r = 0; r < b.ranks(); ++r) out.push_back(b.worker_ops(r));
    auto agg = b.aggregator_ops();
    if (!agg.empty()) out.push_back(agg);
    return out;
}

// A ring's steps are made per rank when its list is built (the builder holds no schedule of
// N x 4(N - 1) steps): each rank's are the rows of the whole schedule, and its op list is the
// expansion of that row (the bucket's offset and tag base applied).
TEST(training_builder, ring_rank_steps_are_the_schedules_rows) {
    const models::model m = tiny();
    training_options o = opts("ring", exchange_policy::OVERLAP_LAYERS, compute_placement::CPU, 5);
    training_builder b(m, o);
    ASSERT_GE(b.buckets().size(), 2u);
    for (std::size_t k = 0; k < b.buckets().size(); ++k) {
        const collectives::schedule s =
            collectives::ring_allreduce(5, b.buckets()[k].bytes / 4);  // fp32 gradients
        for (std::size_t r = 0; r < 5; ++r) {
            const auto got = b.rank_steps(k, r);
            const auto& want = s.steps[r];
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                EXPECT_EQ(got[i].kind, want[i].kind);
                EXPECT_EQ(got[i].peer, want[i].peer);
                EXPECT_EQ(got[i].range, want[i].range);
                EXPECT_EQ(got[i].round, want[i].round);
                EXPECT_EQ(got[i].tag, want[i].tag);
            }
        }
    }
    // The other all-reduces keep their schedule and hand out its rows.
    o.algorithm = "halving_doubling";
    const training_builder h(m, o);
    const collectives::schedule s =
        collectives::halving_doubling_allreduce(5, h.buckets()[0].bytes / 4);
    EXPECT_EQ(h.rank_steps(0, 3).size(), s.steps[3].size());
}

TEST(training_builder, ring_after_backward_on_the_cpu) {
    const models::model m = tiny();
    training_builder b(m, opts("ring", exchange_policy::AFTER_BACKWARD, compute_placement::CPU));
    ASSERT_EQ(b.buckets().size(), 1u);
    EXPECT_EQ(b.buckets()[0].name, "all");
    EXPECT_EQ(b.buckets()[0].bytes, 7456u);
    EXPECT_TRUE(b.aggregator_ops().empty());
    for (std::size_t r = 0; r < 4; ++r) {
        const auto l = b.worker_ops(r);
        expect_backward_deps_only(l);
        EXPECT_EQ(l.size(), 10u + 6 + 6 + 3 + 1);
        const auto k = kinds(l);
        EXPECT_EQ(k.at(op_kind::COMPUTE), 10u);
        EXPECT_EQ(k.at(op_kind::SEND), 6u);
        EXPECT_EQ(k.at(op_kind::RECV), 6u);
        EXPECT_EQ(k.at(op_kind::SUM), 3u);
        EXPECT_EQ(k.at(op_kind::UPDATE), 1u);
        // Alg. 1: the exchange waits for the whole backward pass (bwd_fc1 is the last op of it).
        const std::size_t last_bwd = index_of(l, "bwd_fc1");
        for (std::size_t i = 0; i < l.size(); ++i) {
            if (!starts_with(l[i].name, "ar_all.")) continue;
            EXPECT_GT(i, last_bwd);
            EXPECT_TRUE(ancestors(l, i).count(last_bwd)) << l[i].name;
            EXPECT_EQ(l[i].unit, l[i].kind == op_kind::SUM ? op_unit::CPU : op_unit::COMM);
        }
        const std::size_t u = index_of(l, "update_all");
        EXPECT_EQ(u, l.size() - 1);
        EXPECT_EQ(l[u].bytes, 7456u);
        // The update waits for every op of the exchange.
        const auto anc = ancestors(l, u);
        for (std::size_t i = last_bwd + 1; i < u; ++i) EXPECT_TRUE(anc.count(i)) << l[i].name;
    }
    expect_matched(all_lists(b), {0, 1, 2, 3});
}

TEST(training_builder, ring_overlap_per_layer_follows_smartnic_fig3b) {
    const models::model m = tiny();
    training_builder b(m, opts("ring", exchange_policy::OVERLAP_LAYERS, compute_placement::CPU));
    ASSERT_EQ(b.buckets().size(), 3u);
    EXPECT_EQ(b.buckets()[0].name, "fc3");
    EXPECT_EQ(b.buckets()[1].name, "fc2");
    EXPECT_EQ(b.buckets()[2].name, "fc1");
    EXPECT_EQ(b.buckets()[0].offset, 2176u + 4224u);
    EXPECT_EQ(b.buckets()[0].bytes, 1056u);
    const auto l = b.worker_ops(1);
    expect_backward_deps_only(l);
    const auto k = kinds(l);
    EXPECT_EQ(k.at(op_kind::COMPUTE), 10u);
    EXPECT_EQ(k.at(op_kind::SEND), 18u);
    EXPECT_EQ(k.at(op_kind::RECV), 18u);
    EXPECT_EQ(k.at(op_kind::SUM), 9u);
    EXPECT_EQ(k.at(op_kind::UPDATE), 3u);
    const std::vector<std::string> bwd = {"bwd_fc3", "bwd_relu2", "bwd_fc2", "bwd_relu1",
                                          "bwd_fc1"};
    for (const std::string layer : {"fc3", "fc2", "fc1"}) {
        const std::size_t closing = index_of(l, "bwd_" + layer);
        for (std::size_t i = 0; i < l.size(); ++i) {
            if (!starts_with(l[i].name, "ar_" + layer + ".")) continue;
            // Off the cpu, so the backward pass is not held behind a receive.
            EXPECT_NE(l[i].unit, op_unit::CPU) << l[i].name;
            const auto anc = ancestors(l, i);
            EXPECT_TRUE(anc.count(closing)) << l[i].name << " must wait for bwd_" << layer;
            // ... and for no later backward op.
            for (const auto& other : bwd) {
                const std::size_t j = index_of(l, other);
                if (j > closing) {
                    EXPECT_FALSE(anc.count(j)) << l[i].name << " waits for " << other;
                }
            }
        }
        // No backward op waits for any exchange.
        for (const auto& name : bwd) {
            for (std::size_t a : ancestors(l, index_of(l, name))) {
                EXPECT_FALSE(starts_with(l[a].name, "ar_")) << name << " waits for " << l[a].name;
            }
        }
        const std::size_t u = index_of(l, "update_" + layer);
        EXPECT_EQ(l[u].unit, op_unit::CPU);
        const auto anc = ancestors(l, u);
        for (std::size_t i = 0; i < l.size(); ++i) {
            if (starts_with(l[i].name, "ar_" + layer + ".")) {
                EXPECT_TRUE(anc.count(i));
            }
        }
    }
    // T_total's max(U_{l+1} + B_{l-1}, AR_l): the cpu runs update_fc3 after bwd_fc2 (the next
    // backward op of a layer with weights after the one that closed fc3; bwd_relu2 has none and
    // would leave nothing to overlap), update_fc2 after bwd_fc1, update_fc1 last.
    EXPECT_GT(index_of(l, "update_fc3"), index_of(l, "bwd_fc2"));
    EXPECT_LT(index_of(l, "update_fc3"), index_of(l, "bwd_relu1"));
    EXPECT_GT(index_of(l, "update_fc2"), index_of(l, "bwd_fc1"));
    EXPECT_EQ(index_of(l, "update_fc1"), l.size() - 1);
    expect_matched(all_lists(b), {0, 1, 2, 3});
}

TEST(training_builder, buckets_close_at_their_byte_threshold) {
    const models::model m = tiny();
    auto o = opts("ring", exchange_policy::OVERLAP_LAYERS, compute_placement::CPU);
    o.bucket_bytes = 5000;
    training_builder b(m, o);
    ASSERT_EQ(b.buckets().size(), 2u);
    EXPECT_EQ(b.buckets()[0].name, "fc2");
    EXPECT_EQ(b.buckets()[0].offset, 2176u);
    EXPECT_EQ(b.buckets()[0].bytes, 4224u + 1056u);
    EXPECT_EQ(b.buckets()[0].layers, (std::vector<std::size_t>{4, 2}));
    EXPECT_EQ(b.buckets()[1].name, "fc1");
    EXPECT_EQ(b.buckets()[1].offset, 0u);
    EXPECT_EQ(b.buckets()[1].bytes, 2176u);
    const auto l = b.worker_ops(0);
    expect_backward_deps_only(l);
    EXPECT_EQ(kinds(l).at(op_kind::UPDATE), 2u);
}

TEST(training_builder, gpu_placement_adds_table_ii_copies) {
    const models::model m = tiny();
    training_builder b(m, opts("ring", exchange_policy::AFTER_BACKWARD, compute_placement::GPU));
    const auto l = b.worker_ops(2);
    expect_backward_deps_only(l);
    const auto k = kinds(l);
    EXPECT_EQ(k.at(op_kind::GPU_COMPUTE), 10u);
    EXPECT_EQ(k.count(op_kind::COMPUTE), 0u);
    EXPECT_EQ(k.at(op_kind::COPY_TO_HOST), 1u);
    EXPECT_EQ(k.at(op_kind::COPY_TO_GPU), 1u);
    EXPECT_EQ(l.size(), 10u + 1 + 15 + 1 + 1);
    const std::size_t c2h = index_of(l, "c2h_all"), u = index_of(l, "update_all"),
                      c2g = index_of(l, "c2g_all");
    EXPECT_EQ(l[c2h].after, (std::vector<std::size_t>{index_of(l, "bwd_fc1")}));
    EXPECT_EQ(l[c2h].unit, op_unit::COPY);
    EXPECT_EQ(l[c2h].bytes, 7456u);
    EXPECT_EQ(l[c2g].after, (std::vector<std::size_t>{u}));
    EXPECT_EQ(l[c2g].unit, op_unit::COPY);
    for (std::size_t i = 0; i < l.size(); ++i) {
        if (starts_with(l[i].name, "ar_all.")) {
            EXPECT_GT(i, c2h);
            EXPECT_TRUE(ancestors(l, i).count(c2h)) << l[i].name;
        }
        if (l[i].kind == op_kind::GPU_COMPUTE) {
            EXPECT_EQ(l[i].unit, op_unit::GPU);
        }
    }
}

// compute_model layer_ops: each layer's forward op carries the layer cost model's forward FLOPs
// and bytes read + written, its backward op backward-data + backward-filter (paleo.md §3).
TEST(training_builder, layer_costs_replace_the_zoo_totals) {
    const models::model m = tiny();
    training_options o = opts("ring", exchange_policy::AFTER_BACKWARD, compute_placement::GPU);
    o.layer_costs = models::layer_cost_options{"gemm", 4294967296.0};
    training_builder b(m, o);
    const auto l = b.worker_ops(0);
    const auto costs = models::layer_cost_model(*o.layer_costs).costs(m);
    ASSERT_EQ(costs.size(), m.layers().size());
    for (std::size_t i = 0; i < costs.size(); ++i) {
        const op& f = l[index_of(l, "fwd_" + m.layers()[i].name)];
        EXPECT_EQ(f.flops, costs[i].forward.flops) << f.name;
        EXPECT_EQ(f.bytes, static_cast<std::uint64_t>(costs[i].forward.bytes())) << f.name;
        const op& bw = l[index_of(l, "bwd_" + m.layers()[i].name)];
        const models::op_cost back = costs[i].backward();
        EXPECT_EQ(bw.flops, back.flops) << bw.name;
        EXPECT_EQ(bw.bytes, static_cast<std::uint64_t>(back.bytes())) << bw.name;
    }
    // The first layer computes no data gradient: its backward op is the filter gradient only.
    EXPECT_EQ(l[index_of(l, "bwd_" + m.layers()[0].name)].flops, costs[0].backward_filter.flops);
    // Without the option the zoo's totals stay (today's behaviour).
    training_builder plain(m,
                           opts("ring", exchange_policy::AFTER_BACKWARD, compute_placement::GPU));
    const auto p = plain.worker_ops(0);
    EXPECT_EQ(p[index_of(p, "fwd_" + m.layers()[0].name)].flops,
              static_cast<double>(m.layers()[0].forward_flops));
}

TEST(training_builder, worker_aggregator_after_backward) {
    const models::model m = tiny();
    training_builder b(
        m, opts("worker_aggregator", exchange_policy::AFTER_BACKWARD, compute_placement::CPU));
    for (std::size_t r = 0; r < 4; ++r) {
        const auto l = b.worker_ops(r);
        expect_backward_deps_only(l);
        EXPECT_EQ(l.size(), 12u);
        const auto k = kinds(l);
        EXPECT_EQ(k.at(op_kind::COMPUTE), 10u);
        EXPECT_EQ(k.at(op_kind::SEND), 1u);
        EXPECT_EQ(k.at(op_kind::RECV), 1u);
        EXPECT_EQ(k.count(op_kind::UPDATE), 0u);  // inceptionn.md §II-B: workers do not update
        EXPECT_EQ(l[10].peer, 4u);
        EXPECT_EQ(l[10].bytes, 7456u);
    }
    const auto a = b.aggregator_ops();
    expect_backward_deps_only(a);
    const auto k = kinds(a);
    EXPECT_EQ(k.at(op_kind::RECV), 4u);
    EXPECT_EQ(k.at(op_kind::SUM), 3u);
    EXPECT_EQ(k.at(op_kind::UPDATE), 1u);
    EXPECT_EQ(k.at(op_kind::SEND), 4u);
    EXPECT_EQ(a.size(), 12u);
    const std::size_t u = index_of(a, "update_all");
    const auto anc = ancestors(a, u);
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].kind == op_kind::RECV || a[i].kind == op_kind::SUM) {
            EXPECT_LT(i, u);
            EXPECT_TRUE(anc.count(i)) << a[i].name;
        }
        if (a[i].kind == op_kind::SEND) {
            EXPECT_GT(i, u);
            EXPECT_TRUE(std::binary_search(a[i].after.begin(), a[i].after.end(), u)) << a[i].name;
        }
    }
    expect_matched(all_lists(b), {0, 1, 2, 3, 4});
}

TEST(training_builder, worker_aggregator_overlapped_on_the_gpu) {
    const models::model m = tiny();
    training_builder b(
        m, opts("worker_aggregator", exchange_policy::OVERLAP_LAYERS, compute_placement::GPU, 3));
    const auto l = b.worker_ops(0);
    expect_backward_deps_only(l);
    const auto k = kinds(l);
    EXPECT_EQ(k.at(op_kind::GPU_COMPUTE), 10u);
    EXPECT_EQ(k.at(op_kind::COPY_TO_HOST), 3u);
    EXPECT_EQ(k.at(op_kind::SEND), 3u);
    EXPECT_EQ(k.at(op_kind::RECV), 3u);
    EXPECT_EQ(k.at(op_kind::COPY_TO_GPU), 3u);
    EXPECT_EQ(k.count(op_kind::UPDATE), 0u);
    // The returned weights go to the GPU as soon as they arrive.
    const std::size_t c2g = index_of(l, "c2g_fc3");
    ASSERT_EQ(l[c2g].after.size(), 1u);
    EXPECT_EQ(l[l[c2g].after[0]].kind, op_kind::RECV);
    const auto a = b.aggregator_ops();
    expect_backward_deps_only(a);
    EXPECT_EQ(kinds(a).at(op_kind::UPDATE), 3u);
    EXPECT_EQ(kinds(a).at(op_kind::SUM), 6u);
    expect_matched(all_lists(b), {0, 1, 2, 3});
}

TEST(training_builder, next_iteration_forward_waits_for_its_layer_weights) {
    const models::model m = tiny();
    auto o = opts("ring", exchange_policy::OVERLAP_LAYERS, compute_placement::CPU);
    o.iterations = 2;
    training_builder b(m, o);
    const auto l = b.worker_ops(0);
    expect_backward_deps_only(l);
    EXPECT_EQ(l.size(), 2 * (10u + 3 * 15 + 3));
    EXPECT_EQ(l[index_of(l, "i1_fwd_fc3")].after,
              (std::vector<std::size_t>{index_of(l, "i0_update_fc3")}));
    EXPECT_TRUE(l[index_of(l, "i1_fwd_relu1")].after.empty());
    // The second iteration's tags continue after the first's.
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
    for (const op& x : l) {
        if (x.kind == op_kind::SEND) {
            EXPECT_TRUE(seen.insert({x.peer, x.tag}).second) << x.name;
        }
    }
    expect_matched(all_lists(b), {0, 1, 2, 3});
}

TEST(training_builder, measured_phase_times_are_split_exactly_by_flops) {
    const models::model m = tiny();
    auto o = opts("ring", exchange_policy::AFTER_BACKWARD, compute_placement::CPU);
    o.forward_ps = 1000000007;
    o.backward_ps = 2000000011;
    training_builder b(m, o);
    const auto l = b.worker_ops(0);
    std::uint64_t fwd = 0, bwd = 0;
    double fwd_flops = 0, bwd_flops = 0;
    for (const auto& layer : m.layers()) {
        fwd_flops += static_cast<double>(layer.forward_flops);
        bwd_flops += static_cast<double>(layer.backward_flops());
    }
    for (const auto& layer : m.layers()) {
        const op& f = l[index_of(l, "fwd_" + layer.name)];
        const op& g = l[index_of(l, "bwd_" + layer.name)];
        EXPECT_EQ(f.kind, op_kind::DELAY);
        EXPECT_EQ(g.kind, op_kind::DELAY);
        EXPECT_EQ(f.unit, op_unit::CPU);
        EXPECT_NEAR(static_cast<double>(f.delay_ps),
                    1000000007.0 * static_cast<double>(layer.forward_flops) / fwd_flops, 1.0);
        EXPECT_NEAR(static_cast<double>(g.delay_ps),
                    2000000011.0 * static_cast<double>(layer.backward_flops()) / bwd_flops, 1.0);
        fwd += f.delay_ps;
        bwd += g.delay_ps;
    }
    EXPECT_EQ(fwd, 1000000007u);
    EXPECT_EQ(bwd, 2000000011u);
}

TEST(training_builder, forward_and_backward_ops_are_named_as_phases) {
    training_builder b(tiny(),
                       opts("ring", exchange_policy::AFTER_BACKWARD, compute_placement::CPU));
    for (const op& o : b.worker_ops(0)) {
        if (starts_with(o.name, "fwd_")) {
            EXPECT_EQ(o.phase, ops::op_phase::FORWARD) << o.name;
        }
        if (starts_with(o.name, "bwd_")) {
            EXPECT_EQ(o.phase, ops::op_phase::BACKWARD) << o.name;
        }
        if (o.kind == op_kind::SEND) {
            EXPECT_EQ(ops::phase_of(o), ops::op_phase::COMM);
        }
    }
}

TEST(training_builder, no_exchange_trains_alone) {
    // cpu: forward, backward, update on the cpu; gpu: the update is a kernel of update's FLOPs
    // (4 per weight) and memory passes (5 x bytes), with no copies.
    auto o = opts("none", exchange_policy::AFTER_BACKWARD, compute_placement::CPU, 1);
    const auto cpu = training_builder(tiny(), o).worker_ops(0);
    EXPECT_EQ(kinds(cpu),
              (std::map<op_kind, std::size_t>{{op_kind::COMPUTE, 10}, {op_kind::UPDATE, 1}}));
    o.compute = compute_placement::GPU;
    const auto gpu = training_builder(tiny(), o).worker_ops(0);
    EXPECT_EQ(kinds(gpu), (std::map<op_kind, std::size_t>{{op_kind::GPU_COMPUTE, 11}}));
    const op& u = gpu[index_of(gpu, "update_all")];
    EXPECT_EQ(u.phase, ops::op_phase::UPDATE);
    EXPECT_DOUBLE_EQ(u.flops, 4.0 * 7456 / 4);
    EXPECT_EQ(u.bytes, 5u * 7456);
    EXPECT_EQ(u.after, (std::vector<std::size_t>{9}));  // the last backward op
}

TEST(training_builder, every_allreduce_algorithm_leaves_every_worker_updating) {
    // The tree and halving-doubling schedules are used like the ring: one update per bucket on
    // every worker, sends matched by receives across the workers, 5 workers (not a power of 2).
    for (std::string a : {"binomial_tree", "halving_doubling", "double_binary_tree"}) {
        training_builder b(tiny(),
                           opts(a, exchange_policy::OVERLAP_LAYERS, compute_placement::GPU, 5));
        const auto lists = all_lists(b);
        ASSERT_EQ(lists.size(), 5u);
        expect_matched(lists, {0, 1, 2, 3, 4});
        for (const auto& l : lists) {
            expect_backward_deps_only(l);
            EXPECT_EQ(kinds(l)[op_kind::UPDATE], b.buckets().size());
        }
    }
}

TEST(training_builder, split_proportionally_telescopes_to_the_total) {
    EXPECT_EQ(split_proportionally(10, {1, 1, 1}), (std::vector<std::uint64_t>{3, 4, 3}));
    EXPECT_EQ(split_proportionally(7, {0, 0}), (std::vector<std::uint64_t>{4, 3}));
    EXPECT_EQ(split_proportionally(5, {0, 2, 0}), (std::vector<std::uint64_t>{0, 5, 0}));
}

TEST(training_builder, op_lists_read_back_through_ops_yaml) {
    const models::model m = tiny();
    auto o = opts("worker_aggregator", exchange_policy::OVERLAP_LAYERS, compute_placement::GPU);
    o.iterations = 2;
    o.tos = 0x28;
    training_builder b(m, o);
    for (const auto& l : all_lists(b)) {
        const config_node n = config_node::parse(ops_yaml(l), "generated.yaml");
        const ops::op_list back = ops::parse_ops(n, "workload.training.x");
        ASSERT_EQ(back.size(), l.size());
        for (std::size_t i = 0; i < l.size(); ++i) {
            EXPECT_EQ(back[i].name, l[i].name);
            EXPECT_EQ(back[i].kind, l[i].kind);
            EXPECT_EQ(back[i].unit, l[i].unit);
            EXPECT_EQ(back[i].after, l[i].after);
            EXPECT_EQ(back[i].phase, l[i].phase);
            EXPECT_EQ(back[i].tos, l[i].tos);
        }
    }
}

// The tos marks gradients (inceptionn.md §VIII-A, WA+C: "only one direction of communication
// is applicable for compression"): the workers' sends carry it, the aggregator's weight
// returns do not.
TEST(training_builder, worker_aggregator_marks_gradient_sends_only) {
    const models::model m = tiny();
    auto o = opts("worker_aggregator", exchange_policy::OVERLAP_LAYERS, compute_placement::CPU);
    o.tos = 0x28;
    for (auto ret :
         {collectives::aggregator_return::TREE, collectives::aggregator_return::BINOMIAL}) {
        o.wa_return = ret;
        training_builder b(m, o);
        // Workers: the first send of each bucket is its gradient; with the binomial return,
        // sends after a receive forward weights.
        std::size_t marked = 0, unmarked = 0;
        for (std::size_t r = 0; r < o.workers.size(); ++r) {
            bool got_weights = false;
            std::string bucket;
            for (const auto& x : b.worker_ops(r)) {
                const std::string prefix = x.name.substr(0, x.name.find('.'));
                if (prefix != bucket) got_weights = false, bucket = prefix;
                if (x.kind == op_kind::RECV) got_weights = true;
                if (x.kind != op_kind::SEND) continue;
                EXPECT_EQ(x.tos, got_weights ? 0 : 0x28) << x.name;
                ++(got_weights ? unmarked : marked);
            }
        }
        EXPECT_GT(marked, 0u);
        if (ret == collectives::aggregator_return::BINOMIAL) {
            EXPECT_GT(unmarked, 0u);
        }
    }
    training_builder b(m, o);
    std::size_t sends = 0;
    sends = 0;
    for (const auto& x : b.aggregator_ops()) {
        if (x.kind != op_kind::SEND) continue;
        EXPECT_EQ(x.tos, 0) << x.name;
        ++sends;
    }
    EXPECT_GT(sends, 0u);
}

TEST(training_builder, alexnet_overlap_has_one_bucket_per_weighted_layer) {
    models::model_options mo;
    mo.batch = 64;
    const models::model m = models::load_model(models::find_zoo_model("alexnet"), mo);
    training_builder b(m, opts("ring", exchange_policy::OVERLAP_LAYERS, compute_placement::CPU));
    ASSERT_EQ(b.buckets().size(), 8u);
    EXPECT_EQ(b.buckets().front().name, "fc8");
    EXPECT_EQ(b.buckets().back().name, "conv1");
    std::uint64_t total = 0;
    for (const auto& k : b.buckets()) total += k.bytes;
    EXPECT_EQ(total, static_cast<std::uint64_t>(m.totals().weight_grad_bytes));
    expect_backward_deps_only(b.worker_ops(3));
}

// paleo.md §4.2.3 (Krizhevsky's one weird trick) on a small chain: fc1 data-parallel, fc2 and
// fc3 model-parallel over K = 4 workers at batch 4.  Each worker computes 1/4 of fc2's and
// fc3's outputs for the 16 gathered samples (the same FLOPs as the whole layer on 4), the
// inputs of fc2 and fc3 and the output of fc3 are all-gathered (3 peers, one block of the
// tensor at batch 4 each) and reduce-scattered back, and only fc1's gradient is all-reduced.
TEST(training_builder, hybrid_parallelism_splits_the_model_parallel_layers) {
    models::model_options mo;
    mo.batch = 4;
    const models::model m = models::parse_model(R"(
name: chain
source: test
input: {features: 64}
layers:
  - {name: fc1, kind: fc, out: 32, bias: true}
  - {name: relu1, kind: relu}
  - {name: fc2, kind: fc, out: 16, bias: true}
  - {name: relu2, kind: relu}
  - {name: fc3, kind: fc, out: 8, bias: true}
  - {name: softmax, kind: softmax}
)",
                                                "chain.yaml", mo);
    training_options o =
        opts("binomial_tree", exchange_policy::AFTER_BACKWARD, compute_placement::CPU, 4);
    o.model_parallel_from = 2;  // fc2
    const training_builder b(m, o);
    EXPECT_EQ(b.gradient_bytes(), (64u * 32 + 32) * 4);  // fc1 alone is all-reduced
    const auto lists = all_lists(b);
    expect_matched(lists, o.workers);
    for (const auto& l : lists) expect_backward_deps_only(l);
    const auto& l = lists[1];
    // fc2's slice: 32 -> 4 features for 16 samples = 2 x 32 x 16 x 4 = the whole layer on 4;
    // bytes (zoo totals): the slice's weights (32 x 4 + 4) and its output (16 x 4), 4 B each.
    const op& f2 = l[index_of(l, "fwd_fc2")];
    EXPECT_EQ(f2.flops, 2.0 * 32 * 16 * 4);
    EXPECT_EQ(f2.flops, static_cast<double>(m.layer("fc2").forward_flops));
    EXPECT_EQ(f2.bytes, (32u * 4 + 4) * 4 + 16u * 4 * 4);
    // The exchanges: (name prefix, block bytes = the tensor at batch 4).
    const std::vector<std::pair<std::string, std::uint64_t>> exchanges = {
        {"ag_fc2_in.", 4 * 32 * 4}, {"ag_fc3_in.", 4 * 16 * 4}, {"ag_fc3_out.", 4 * 8 * 4},
        {"rs_fc2_in.", 4 * 32 * 4}, {"rs_fc3_in.", 4 * 16 * 4}, {"rs_fc3_out.", 4 * 8 * 4}};
    for (const auto& [prefix, block] : exchanges) {
        std::size_t sends = 0, sums = 0;
        for (const op& x : l) {
            if (!starts_with(x.name, prefix)) continue;
            if (x.kind == op_kind::SEND) {
                ++sends;
                EXPECT_EQ(x.bytes, block) << x.name;
            }
            sums += x.kind == op_kind::SUM;
        }
        EXPECT_EQ(sends, 3u) << prefix;
        EXPECT_EQ(sums > 0, prefix[0] == 'r') << prefix;  // reduce-scatters add
    }
    // fc2 waits for the gather of its input, which starts after relu1's forward op; relu1's
    // backward waits for the reduce-scatter after fc2's.
    const std::set<std::size_t> up = ancestors(l, index_of(l, "fwd_fc2"));
    EXPECT_TRUE(up.count(index_of(l, "fwd_relu1")));
    EXPECT_TRUE(ancestors(l, index_of(l, "bwd_relu1")).count(index_of(l, "bwd_fc2")));
    // Each worker updates its slices; fc1's update follows the all-reduce.
    EXPECT_EQ(l[index_of(l, "update_fc2")].bytes, (32u * 4 + 4) * 4);
    EXPECT_EQ(l[index_of(l, "update_fc3")].bytes, (16u * 2 + 2) * 4);
    EXPECT_EQ(l[index_of(l, "update_all")].bytes, (64u * 32 + 32) * 4);

    // Impossible splits: 3 workers do not divide 16 outputs; no layer 0; a worker-aggregator.
    training_options three =
        opts("binomial_tree", exchange_policy::AFTER_BACKWARD, compute_placement::CPU, 3);
    three.model_parallel_from = 2;
    EXPECT_THROW(training_builder(m, three), std::invalid_argument);
    o.model_parallel_from = 0;
    EXPECT_THROW(training_builder(m, o), std::invalid_argument);
    training_options wa =
        opts("worker_aggregator", exchange_policy::AFTER_BACKWARD, compute_placement::CPU, 4);
    wa.model_parallel_from = 2;
    EXPECT_THROW(training_builder(m, wa), std::invalid_argument);
}

TEST(training_builder, rejects_impossible_iterations) {
    const models::model m = tiny();
    auto expect_error = [&](const training_options& o, const std::string& msg) {
        try {
            training_builder b(m, o);
            ADD_FAILURE() << "no error, expected: " << msg;
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()), msg);
        }
    };
    expect_error(opts("ring", exchange_policy::AFTER_BACKWARD, compute_placement::CPU, 1),
                 "training_builder: an all-reduce needs at least 2 workers, got 1");
    auto o = opts("worker_aggregator", exchange_policy::AFTER_BACKWARD, compute_placement::CPU);
    o.aggregator.reset();
    expect_error(o, "training_builder: worker_aggregator needs an aggregator");
    o.aggregator = 2;
    expect_error(o, "training_builder: a node id appears twice among the ranks");
    o.aggregator = 9;
    o.iterations = 0;
    expect_error(o, "training_builder: iterations < 1");
    auto r = opts("ring", exchange_policy::AFTER_BACKWARD, compute_placement::CPU);
    r.aggregator = 7;
    expect_error(r, "training_builder: an all-reduce has no aggregator");
    r.aggregator.reset();
    EXPECT_THROW(training_builder(m, r).worker_ops(4), std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::workloads
