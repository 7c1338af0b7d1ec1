// Collective schedules expanded into host op lists: op counts per kind against the schedules'
// closed forms, the dependency rules (backwards only, producer before send, add after its
// receive, round barriers), send/receive matching across ranks, and a functional run of the op
// lists in adversarial orders against collectives::execute().
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "workloads/collectives/collectives.h"
#include "workloads/iteration/collective_ops.h"

namespace trainvp::workloads {
namespace {

using collectives::schedule;
using ops::op;
using ops::op_kind;
using ops::op_unit;

std::vector<std::uint32_t> identity_nodes(int ranks) {
    std::vector<std::uint32_t> n;
    for (int r = 0; r < ranks; ++r) n.push_back(static_cast<std::uint32_t>(r));
    return n;
}

std::size_t count(const std::vector<op>& l, op_kind k) {
    return static_cast<std::size_t>(
        std::count_if(l.begin(), l.end(), [k](const op& o) { return o.kind == k; }));
}

std::vector<std::vector<op>> expand_all(const schedule& s, const std::vector<std::uint32_t>& nodes,
                                        const collective_op_options& o = {}) {
    std::vector<std::vector<op>> all;
    for (int r = 0; r < s.ranks; ++r) all.push_back(collective_ops(s, r, nodes, o));
    return all;
}

// Transitive dependencies of each op of one list (deps always point backwards, checked).
std::vector<std::vector<bool>> closure(const std::vector<op>& l) {
    std::vector<std::vector<bool>> c(l.size(), std::vector<bool>(l.size(), false));
    for (std::size_t i = 0; i < l.size(); ++i) {
        for (std::size_t a : l[i].after) {
            c[i][a] = true;
            for (std::size_t k = 0; k < a; ++k) c[i][k] = c[i][k] || c[a][k];
        }
    }
    return c;
}

// Every rule that holds for any schedule.
void check_structure(const schedule& s, const std::vector<std::vector<op>>& all,
                     const std::vector<std::uint32_t>& nodes, std::uint32_t element_bytes = 4) {
    std::map<std::uint32_t, int> rank_of;
    for (int r = 0; r < s.ranks; ++r) rank_of[nodes[static_cast<std::size_t>(r)]] = r;
    // (src node, dst node, tag) -> bytes, for sends and receives.
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint64_t> sends, recvs;
    for (int r = 0; r < s.ranks; ++r) {
        SCOPED_TRACE("rank " + std::to_string(r));
        const std::vector<op>& l = all[static_cast<std::size_t>(r)];
        const std::uint32_t me = nodes[static_cast<std::size_t>(r)];
        std::vector<std::string> names;
        for (std::size_t i = 0; i < l.size(); ++i) {
            const op& o = l[i];
            // Deps refer strictly backwards, sorted and without repeats: the list is acyclic.
            for (std::size_t k = 0; k < o.after.size(); ++k) {
                EXPECT_LT(o.after[k], i) << o.name;
                if (k > 0) {
                    EXPECT_LT(o.after[k - 1], o.after[k]) << o.name;
                }
            }
            EXPECT_GT(o.bytes, 0u) << o.name;  // empty transfers are dropped
            EXPECT_EQ(o.bytes % element_bytes, 0u) << o.name;
            EXPECT_FALSE(o.name.empty());
            names.push_back(o.name);
            if (o.kind == op_kind::SEND) {
                EXPECT_NE(o.peer, me);
                EXPECT_TRUE(sends.emplace(std::make_tuple(me, o.peer, o.tag), o.bytes).second)
                    << "duplicate message " << o.name;
            } else if (o.kind == op_kind::RECV) {
                EXPECT_TRUE(recvs.emplace(std::make_tuple(o.peer, me, o.tag), o.bytes).second)
                    << "duplicate message " << o.name;
            } else if (o.kind == op_kind::SUM) {
                // An add waits for the receive right before it, of the same range.
                ASSERT_GT(i, 0u);
                const op& r = l[i - 1];
                EXPECT_EQ(r.kind, op_kind::RECV);
                EXPECT_TRUE(std::find(o.after.begin(), o.after.end(), i - 1) != o.after.end());
                EXPECT_EQ(o.bytes, r.bytes);
                EXPECT_EQ(o.address, r.address);
                EXPECT_EQ(o.inputs, 2u);
            }
        }
        std::sort(names.begin(), names.end());
        EXPECT_TRUE(std::adjacent_find(names.begin(), names.end()) == names.end())
            << "op names must be unique in a list";
    }
    // Every send has exactly one receive on its peer with the same tag and bytes.
    EXPECT_EQ(sends, recvs);
    for (const auto& [key, bytes] : sends) EXPECT_TRUE(rank_of.count(std::get<1>(key)));
}

// Round barrier: an op of a later round waits (transitively) for every op of every earlier
// round of its rank.  Rounds are recovered from the schedule's groups.
void check_round_barriers(const schedule& s, const std::vector<std::vector<op>>& all) {
    const schedule clean = collectives::without_empty_transfers(s);
    for (int r = 0; r < s.ranks; ++r) {
        const std::vector<op>& l = all[static_cast<std::size_t>(r)];
        const auto& steps = clean.steps[static_cast<std::size_t>(r)];
        std::vector<std::size_t> group_of;  // op index -> group index
        std::size_t g = 0;
        for (const auto& grp : collectives::group_by_round(steps)) {
            for (std::size_t i = grp.begin; i < grp.end; ++i) {
                group_of.push_back(g);
                if (steps[i].kind == collectives::step_kind::RECV_REDUCE) group_of.push_back(g);
            }
            ++g;
        }
        ASSERT_EQ(group_of.size(), l.size());
        const auto c = closure(l);
        for (std::size_t i = 0; i < l.size(); ++i) {
            for (std::size_t k = 0; k < i; ++k) {
                if (group_of[k] < group_of[i]) {
                    EXPECT_TRUE(c[i][k]) << "rank " << r << ": " << l[i].name << " (round group "
                                         << group_of[i] << ") does not wait for " << l[k].name;
                }
            }
        }
    }
}

// Runs every rank's op list on real data, choosing among the ready ops at random: an op is
// ready when it is next on its unit, its `after` ops are done and, for a receive, its message
// was sent.  A send reads its range when it runs; a receive followed by an add is added by
// that add, any other receive overwrites its range.  Returns the
// buffers, or throws on a deadlock.
std::vector<std::vector<double>> run_ops(const schedule& s, const std::vector<std::vector<op>>& all,
                                         const std::vector<std::uint32_t>& nodes,
                                         std::vector<std::vector<double>> buf, std::uint32_t seed,
                                         std::uint64_t base = 0) {
    const std::size_t n = all.size();
    for (std::size_t r = 0; r < n; ++r) {
        if (!s.contributes[r]) buf[r].assign(s.elements, 0.0);
    }
    std::map<std::uint32_t, std::size_t> rank_of;
    for (std::size_t r = 0; r < n; ++r) rank_of[nodes[r]] = r;
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::vector<double>> wire;
    std::vector<std::vector<bool>> done(n);
    std::vector<std::map<std::size_t, std::vector<double>>> landed(n);  // recv index -> data
    std::vector<std::vector<bool>> reduced_recv(n);
    for (std::size_t r = 0; r < n; ++r) {
        done[r].assign(all[r].size(), false);
        reduced_recv[r].assign(all[r].size(), false);
        // An add follows its receive directly (checked by check_structure).
        for (std::size_t i = 1; i < all[r].size(); ++i) {
            if (all[r][i].kind == op_kind::SUM) reduced_recv[r][i - 1] = true;
        }
    }
    auto first = [&](const op& o) { return static_cast<std::size_t>((o.address - base) / 4); };
    auto len = [](const op& o) { return static_cast<std::size_t>(o.bytes / 4); };
    std::mt19937 rng(seed);
    while (true) {
        std::vector<std::pair<std::size_t, std::size_t>> ready;
        bool all_done = true;
        for (std::size_t r = 0; r < n; ++r) {
            std::map<op_unit, bool> unit_blocked;
            for (std::size_t i = 0; i < all[r].size(); ++i) {
                if (done[r][i]) continue;
                all_done = false;
                const op& o = all[r][i];
                if (unit_blocked[o.unit]) continue;
                unit_blocked[o.unit] = true;  // later ops on this unit wait for this one
                bool ok = std::all_of(o.after.begin(), o.after.end(),
                                      [&](std::size_t a) { return done[r][a]; });
                if (ok && o.kind == op_kind::RECV) ok = wire.count({o.peer, nodes[r], o.tag}) > 0;
                if (ok) ready.emplace_back(r, i);
            }
        }
        if (all_done) return buf;
        if (ready.empty()) throw std::runtime_error("deadlock");
        const auto [r, i] =
            ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng)];
        const op& o = all[r][i];
        if (o.kind == op_kind::SEND) {
            std::vector<double> data(buf[r].begin() + first(o), buf[r].begin() + first(o) + len(o));
            wire[{nodes[r], o.peer, o.tag}] = std::move(data);
        } else if (o.kind == op_kind::RECV) {
            auto it = wire.find({o.peer, nodes[r], o.tag});
            if (reduced_recv[r][i]) {
                landed[r][i] = std::move(it->second);
            } else {
                std::copy(it->second.begin(), it->second.end(), buf[r].begin() + first(o));
            }
            wire.erase(it);
        } else if (o.kind == op_kind::SUM) {
            const std::vector<double>& in = landed[r].at(i - 1);
            for (std::size_t k = 0; k < len(o); ++k) buf[r][first(o) + k] += in[k];
        }
        done[r][i] = true;
    }
}

// Distinct integer inputs per rank, so a lost or doubled contribution shows.
std::vector<std::vector<double>> inputs(const schedule& s) {
    std::vector<std::vector<double>> b(static_cast<std::size_t>(s.ranks));
    for (std::size_t r = 0; r < b.size(); ++r) {
        for (std::uint64_t e = 0; e < s.elements; ++e)
            b[r].push_back(static_cast<double>((r + 1) * 1000 + e % 997));
    }
    return b;
}

void check_functional(const schedule& s, const std::vector<std::uint32_t>& nodes) {
    const auto all = expand_all(s, nodes);
    auto expected = inputs(s);
    collectives::execute(s, expected);
    for (std::uint32_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        EXPECT_EQ(run_ops(s, all, nodes, inputs(s), seed), expected);
    }
}

// ---------------------------------------------------------------------------------------

TEST(iteration_collective_ops, ring_counts_equal_the_closed_forms) {
    for (int n = 2; n <= 17; ++n) {
        for (std::uint64_t e : {static_cast<std::uint64_t>(n) * 64, std::uint64_t{1000003}}) {
            SCOPED_TRACE("N=" + std::to_string(n) + " elements=" + std::to_string(e));
            const schedule s = collectives::ring_allreduce(n, e);
            const auto nodes = identity_nodes(n);
            const auto all = expand_all(s, nodes);
            for (int r = 0; r < n; ++r) {
                const auto& l = all[static_cast<std::size_t>(r)];
                const std::size_t m = static_cast<std::size_t>(n - 1);
                EXPECT_EQ(count(l, op_kind::SEND), 2 * m);
                EXPECT_EQ(count(l, op_kind::RECV), 2 * m);
                EXPECT_EQ(count(l, op_kind::SUM), m);  // reduce-scatter only
                EXPECT_EQ(l.size(), 5 * m);
                std::uint64_t sent = 0, summed = 0;
                for (const op& o : l) {
                    if (o.kind == op_kind::SEND) sent += o.bytes;
                    if (o.kind == op_kind::SUM) summed += o.bytes;
                }
                const auto c = collectives::summarize(s).per_rank[static_cast<std::size_t>(r)];
                EXPECT_EQ(sent, 4 * c.elements_sent);
                EXPECT_EQ(summed, 4 * c.elements_reduced);
            }
            check_structure(s, all, nodes);
        }
    }
}

TEST(iteration_collective_ops, ring_send_waits_for_the_op_that_produced_its_block) {
    const int n = 5;
    const schedule s = collectives::ring_allreduce(n, 500);
    const auto l = collective_ops(s, 2, identity_nodes(n));
    // Per round: reduce-scatter send, recv, sum; all-gather send, recv.
    std::size_t i = 0;
    std::size_t previous = 0;  // the op that produced the block the next send carries
    for (int round = 0; round < 2 * (n - 1); ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        const op& send = l[i];
        ASSERT_EQ(send.kind, op_kind::SEND);
        EXPECT_EQ(send.peer, 3u);
        if (round == 0) {
            EXPECT_TRUE(send.after.empty());  // the input block: nothing to wait for
        } else {
            EXPECT_TRUE(std::find(send.after.begin(), send.after.end(), previous) !=
                        send.after.end());
        }
        ASSERT_EQ(l[i + 1].kind, op_kind::RECV);
        EXPECT_EQ(l[i + 1].peer, 1u);
        if (round < n - 1) {
            ASSERT_EQ(l[i + 2].kind, op_kind::SUM);
            // The block reduced differs from the one sent (N > 2), and nobody wrote it before.
            EXPECT_EQ(l[i + 2].after, std::vector<std::size_t>{i + 1});
            previous = i + 2;
            i += 3;
        } else {
            previous = i + 1;
            i += 2;
        }
    }
    EXPECT_EQ(i, l.size());
    check_round_barriers(s, expand_all(s, identity_nodes(n)));
}

TEST(iteration_collective_ops, worker_aggregator_copies_the_first_arrival_and_adds_the_rest) {
    for (int p = 1; p <= 16; ++p) {
        SCOPED_TRACE("p=" + std::to_string(p));
        const schedule s = collectives::worker_aggregator(p, 1000);
        const auto nodes = identity_nodes(p + 1);
        const auto all = expand_all(s, nodes);
        for (int w = 0; w < p; ++w) {
            const auto& l = all[static_cast<std::size_t>(w)];
            ASSERT_EQ(l.size(), 2u);
            EXPECT_EQ(l[0].kind, op_kind::SEND);
            EXPECT_EQ(l[0].bytes, 4000u);
            EXPECT_EQ(l[1].kind, op_kind::RECV);  // the sum comes back: a copy, no add
            EXPECT_EQ(l[1].after, std::vector<std::size_t>{0});
        }
        // The aggregator's buffer starts at zero (contributes = false), so the schedule copies
        // the first worker's gradient (RECV_COPY: a plain receive, no add) and adds the other
        // p - 1: p receives and p - 1 sums, the (p - 1) n gamma of inceptionn.md §VIII-D.
        const auto& a = all[static_cast<std::size_t>(p)];
        EXPECT_EQ(count(a, op_kind::RECV), static_cast<std::size_t>(p));
        EXPECT_EQ(count(a, op_kind::SUM), static_cast<std::size_t>(p - 1));
        EXPECT_EQ(count(a, op_kind::SEND), static_cast<std::size_t>(p));
        EXPECT_EQ(a[0].kind, op_kind::RECV);
        EXPECT_EQ(a[0].peer, 0u);
        if (p > 1) {
            EXPECT_EQ(a[1].kind, op_kind::RECV);
            EXPECT_EQ(a[2].kind, op_kind::SUM);
            EXPECT_EQ(a[2].after, (std::vector<std::size_t>{0, 1}));  // the copy, its recv
        }
        // The returns wait for the last add (or the only receive).
        const std::size_t last_gather = a.size() - static_cast<std::size_t>(p) - 1;
        for (std::size_t i = last_gather + 1; i < a.size(); ++i) {
            EXPECT_EQ(a[i].kind, op_kind::SEND);
            EXPECT_TRUE(std::find(a[i].after.begin(), a[i].after.end(), last_gather) !=
                        a[i].after.end());
        }
        check_structure(s, all, nodes);
        check_round_barriers(s, all);
        check_functional(s, nodes);
    }
}

TEST(iteration_collective_ops, binomial_return_sends_one_message_per_round_from_the_root) {
    for (int p = 1; p <= 16; ++p) {
        SCOPED_TRACE("p=" + std::to_string(p));
        collectives::worker_aggregator_options wo;
        wo.result_return = collectives::aggregator_return::BINOMIAL;
        const schedule s = collectives::worker_aggregator(p, 1000, wo);
        const auto nodes = identity_nodes(p + 1);
        const auto all = expand_all(s, nodes);
        int depth = 0;
        while ((1 << depth) < p + 1) ++depth;
        const auto& a = all[static_cast<std::size_t>(p)];
        EXPECT_EQ(count(a, op_kind::RECV), static_cast<std::size_t>(p));
        EXPECT_EQ(count(a, op_kind::SUM), static_cast<std::size_t>(p - 1));
        EXPECT_EQ(count(a, op_kind::SEND), static_cast<std::size_t>(depth));
        std::size_t worker_sends = 0;
        for (int w = 0; w < p; ++w) {
            const auto& l = all[static_cast<std::size_t>(w)];
            EXPECT_EQ(count(l, op_kind::RECV), 1u);
            EXPECT_EQ(count(l, op_kind::SUM), 0u);
            worker_sends += count(l, op_kind::SEND) - 1;  // minus the gather send
        }
        EXPECT_EQ(worker_sends + static_cast<std::size_t>(depth), static_cast<std::size_t>(p));
        check_structure(s, all, nodes);
        check_round_barriers(s, all);
        check_functional(s, nodes);
    }
}

TEST(iteration_collective_ops, every_builder_all_reduces_when_its_ops_run_in_any_order) {
    std::vector<schedule> cases;
    for (int n : {2, 3, 5, 8}) {
        cases.push_back(collectives::ring_allreduce(n, 97));
        cases.push_back(collectives::ring_allreduce(n, 97, 3));
        cases.push_back(collectives::binomial_tree_allreduce(n, 97));
        cases.push_back(collectives::halving_doubling_allreduce(n, 97));
        cases.push_back(collectives::recursive_doubling_allreduce(n, 97));
        cases.push_back(collectives::double_binary_tree(n, 97));
        cases.push_back(collectives::multi_tree(n, 97));
        cases.push_back(collectives::worker_aggregator(n, 97, {2}));
    }
    cases.push_back(collectives::hierarchical_ring({2, 3}, 97));
    cases.push_back(collectives::ring_2d(3, 3, 97));
    for (const schedule& s : cases) {
        SCOPED_TRACE(s.algorithm + " N=" + std::to_string(s.ranks));
        // Node ids need not be rank numbers.
        std::vector<std::uint32_t> nodes;
        for (int r = 0; r < s.ranks; ++r) nodes.push_back(static_cast<std::uint32_t>(100 + 7 * r));
        const auto all = expand_all(s, nodes);
        check_structure(s, all, nodes);
        check_round_barriers(s, all);
        check_functional(s, nodes);
    }
}

TEST(iteration_collective_ops, recursive_doubling_adds_only_after_the_send_read_the_range) {
    // Each round sends the whole vector and adds the partner's into it: the add must not
    // overwrite the range before this round's send has read it (the snapshot rule).
    const schedule s = collectives::recursive_doubling_allreduce(4, 64);
    const auto l = collective_ops(s, 0, identity_nodes(4));
    for (std::size_t i = 0; i < l.size(); ++i) {
        if (l[i].kind != op_kind::SUM) continue;
        ASSERT_GE(i, 2u);
        EXPECT_EQ(l[i - 2].kind, op_kind::SEND);
        EXPECT_TRUE(std::find(l[i].after.begin(), l[i].after.end(), i - 2) != l[i].after.end());
    }
}

TEST(iteration_collective_ops, empty_chunks_are_skipped_on_both_sides) {
    // 3 elements over 5 ranks: two of the five ring blocks are empty.
    const schedule s = collectives::ring_allreduce(5, 3);
    const auto nodes = identity_nodes(5);
    const auto all = expand_all(s, nodes);
    const schedule clean = collectives::without_empty_transfers(s);
    for (int r = 0; r < 5; ++r) {
        std::size_t sends = 0, recvs = 0, sums = 0;
        for (const auto& st : clean.steps[static_cast<std::size_t>(r)]) {
            sends += st.kind == collectives::step_kind::SEND;
            recvs += collectives::is_recv(st.kind);
            sums += st.kind == collectives::step_kind::RECV_REDUCE;
        }
        const auto& l = all[static_cast<std::size_t>(r)];
        EXPECT_EQ(count(l, op_kind::SEND), sends);
        EXPECT_EQ(count(l, op_kind::RECV), recvs);
        EXPECT_EQ(count(l, op_kind::SUM), sums);
        EXPECT_LT(l.size(), 5u * 4u);  // fewer than the full ring's 5(N-1)
    }
    check_structure(s, all, nodes);
    check_functional(s, nodes);
}

TEST(iteration_collective_ops, options_set_bytes_addresses_tags_units_names_and_offsets) {
    const schedule s = collectives::ring_allreduce(3, 30);
    collective_op_options o;
    o.element_bytes = 2;
    o.base_address = 0x1000;
    o.tag_base = 500;
    o.tos = 0x28;
    o.comm_unit = op_unit::CPU;
    o.sum_unit = op_unit::COMM;
    o.name_prefix = "l7.";
    o.index_base = 10;
    o.start_after = {4, 9};
    const auto l = collective_ops(s, 1, {20, 21, 22}, o);
    // Round 0's send, whatever its place among the round's steps.
    const collectives::step& st = *std::find_if(
        s.steps[1].begin(), s.steps[1].end(),
        [](const collectives::step& x) { return x.kind == collectives::step_kind::SEND; });
    ASSERT_EQ(l[0].kind, op_kind::SEND);
    EXPECT_EQ(l[0].name, "l7.send_n22_t" + std::to_string(500 + st.tag));
    EXPECT_EQ(l[0].peer, 22u);
    EXPECT_EQ(l[0].tag, 500 + st.tag);
    EXPECT_EQ(l[0].tos, 0x28);
    EXPECT_EQ(l[0].unit, op_unit::CPU);
    EXPECT_EQ(l[0].bytes, 2 * st.range.count);
    EXPECT_EQ(l[0].address, 0x1000 + 2 * st.range.offset);
    EXPECT_EQ(l[0].after, (std::vector<std::size_t>{4, 9}));  // start_after, as given
    EXPECT_EQ(l[1].kind, op_kind::RECV);
    EXPECT_EQ(l[1].peer, 20u);
    EXPECT_EQ(l[1].after, (std::vector<std::size_t>{4, 9}));
    EXPECT_EQ(l[2].kind, op_kind::SUM);
    EXPECT_EQ(l[2].unit, op_unit::COMM);
    EXPECT_EQ(l[2].after, std::vector<std::size_t>{11});  // its recv, shifted by index_base
    for (const op& x : l) {
        for (std::size_t a : x.after) EXPECT_TRUE(a == 4 || a == 9 || a >= 10);
        if (x.kind == op_kind::SEND || x.kind == op_kind::RECV) {
            EXPECT_GE(x.tag, 500u);
        }
    }
    // Each ring pair carries 2(N - 1) messages, numbered 0 ..
    EXPECT_EQ(max_tag(s), 2u * (3 - 1) - 1);
}

// The `after` lists as the first expansion made them, with a map of intervals for "which op
// last wrote each element" (the expansion now keeps one writer per segment between range
// ends): the reference the faster one must equal, dependency for dependency.
std::vector<std::vector<std::size_t>> reference_after(const schedule& s, int rank,
                                                      const collective_op_options& o) {
    using collectives::chunk;
    using collectives::step;
    using collectives::step_kind;
    struct interval {
        std::uint64_t end;
        std::size_t op;
    };
    std::map<std::uint64_t, interval> m;
    auto writers_of = [&m](const chunk& r, std::vector<std::size_t>& out) {
        if (r.count == 0) return;
        auto it = m.upper_bound(r.offset);
        if (it != m.begin()) --it;
        for (; it != m.end() && it->first < r.offset + r.count; ++it) {
            if (it->second.end > r.offset) out.push_back(it->second.op);
        }
    };
    auto assign = [&m](const chunk& r, std::size_t op) {
        const std::uint64_t begin = r.offset, end = r.offset + r.count;
        auto it = m.upper_bound(begin);
        if (it != m.begin()) {
            auto prev = std::prev(it);
            if (prev->second.end > begin) {
                const interval old = prev->second;
                prev->second.end = begin;
                if (old.end > end) m[end] = {old.end, old.op};
            }
        }
        it = m.lower_bound(begin);
        while (it != m.end() && it->first < end) {
            if (it->second.end > end) m[end] = {it->second.end, it->second.op};
            it = m.erase(it);
        }
        m[begin] = {end, op};
    };
    auto sorted = [](std::vector<std::size_t> v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        return v;
    };
    std::vector<step> steps;
    for (const step& st : s.steps[static_cast<std::size_t>(rank)]) {
        if (st.range.count != 0) steps.push_back(st);
    }
    std::vector<std::vector<std::size_t>> out;
    std::vector<std::size_t> barrier = o.start_after;
    for (const auto& g : collectives::group_by_round(steps)) {
        std::vector<std::size_t> frontier;
        std::vector<std::pair<chunk, std::size_t>> sends;
        for (std::size_t i = g.begin; i < g.end; ++i) {
            if (steps[i].kind != step_kind::SEND) continue;
            std::vector<std::size_t> deps;
            writers_of(steps[i].range, deps);
            for (auto& d : deps) d += o.index_base;
            deps.insert(deps.end(), barrier.begin(), barrier.end());
            sends.emplace_back(steps[i].range, out.size());
            frontier.push_back(out.size());
            out.push_back(sorted(deps));
        }
        for (std::size_t i = g.begin; i < g.end; ++i) {
            const step& st = steps[i];
            if (st.kind == step_kind::SEND) continue;
            const std::size_t recv = out.size();
            out.push_back(sorted(barrier));
            if (st.kind == step_kind::RECV_COPY) {
                assign(st.range, recv);
                frontier.push_back(recv);
                continue;
            }
            std::vector<std::size_t> deps{recv};
            writers_of(st.range, deps);
            for (const auto& [range, index] : sends) {
                if (collectives::overlaps(range, st.range)) deps.push_back(index);
            }
            for (auto& d : deps) d += o.index_base;
            assign(st.range, out.size());
            frontier.push_back(out.size());
            out.push_back(sorted(deps));
        }
        barrier.clear();
        for (std::size_t f : frontier) barrier.push_back(f + o.index_base);
    }
    return out;
}

TEST(iteration_collective_ops, dependencies_equal_the_interval_map_reference_with_any_bounds) {
    std::vector<schedule> cases;
    for (int n : {2, 3, 5, 8, 13}) {
        for (std::uint64_t e : {3ull, 97ull, 1000ull}) {
            cases.push_back(collectives::ring_allreduce(n, e));
            cases.push_back(collectives::ring_allreduce(n, e, 3));
            cases.push_back(collectives::binomial_tree_allreduce(n, e));
            cases.push_back(collectives::halving_doubling_allreduce(n, e));
            cases.push_back(collectives::recursive_doubling_allreduce(n, e));
            cases.push_back(collectives::double_binary_tree(n, e));
            cases.push_back(collectives::multi_tree(n, e));
            cases.push_back(collectives::worker_aggregator(n, e, {2}));
        }
    }
    cases.push_back(collectives::hierarchical_ring({2, 3}, 97));
    cases.push_back(collectives::hierarchical_ring({3, 2, 2}, 1000));
    cases.push_back(collectives::ring_2d(3, 3, 97));
    for (const schedule& s : cases) {
        const auto nodes = identity_nodes(s.ranks);
        collective_op_options o;
        o.index_base = 10;
        o.start_after = {7, 3, 7};
        // Rank 0's range ends (a ring's every rank finds its own there; other schedules' ranks
        // may not, and sort their own), and a set holding none of them.
        const std::vector<std::uint64_t> bounds0 = range_bounds(s, 0);
        const std::vector<std::uint64_t> foreign{s.elements + 1, s.elements + 2};
        for (int r = 0; r < s.ranks; ++r) {
            SCOPED_TRACE(s.algorithm + " N=" + std::to_string(s.ranks) + " elements " +
                         std::to_string(s.elements) + " rank " + std::to_string(r));
            const auto want = reference_after(s, r, o);
            for (const std::vector<std::uint64_t>* b :
                 {static_cast<decltype(&bounds0)>(nullptr), &bounds0, &foreign}) {
                collective_op_options ob = o;
                ob.bounds = b;
                const std::vector<op> got = collective_ops(s, r, nodes, ob);
                ASSERT_EQ(got.size(), want.size());
                for (std::size_t i = 0; i < got.size(); ++i) {
                    EXPECT_EQ(got[i].after, want[i]) << "op " << i;
                }
                // One rank's steps given alone expand the same.
                std::vector<op> alone;
                append_collective_ops(alone, s.steps[static_cast<std::size_t>(r)], s.ranks, nodes,
                                      ob);
                ASSERT_EQ(alone.size(), got.size());
                for (std::size_t i = 0; i < got.size(); ++i) {
                    EXPECT_EQ(alone[i].after, got[i].after);
                    EXPECT_EQ(alone[i].kind, got[i].kind);
                    EXPECT_EQ(alone[i].address, got[i].address);
                    EXPECT_EQ(alone[i].tag, got[i].tag);
                }
            }
        }
    }
}

TEST(iteration_collective_ops, appends_behind_ops_already_in_the_list) {
    const schedule s = collectives::ring_allreduce(4, 100);
    collective_op_options o;
    o.index_base = 2;
    o.start_after = {1};
    std::vector<op> l(2);
    l[1].after = {0};
    append_collective_ops(l, s, 1, identity_nodes(4), o);
    const std::vector<op> alone = collective_ops(s, 1, identity_nodes(4), o);
    ASSERT_EQ(l.size(), alone.size() + 2);
    EXPECT_EQ(l[1].after, std::vector<std::size_t>{0});
    for (std::size_t i = 0; i < alone.size(); ++i) {
        EXPECT_EQ(l[i + 2].after, alone[i].after);
        EXPECT_EQ(l[i + 2].kind, alone[i].kind);
    }
}

TEST(iteration_collective_ops, bad_arguments_throw) {
    const schedule s = collectives::ring_allreduce(3, 30);
    EXPECT_THROW(collective_ops(s, 3, identity_nodes(3)), std::invalid_argument);
    EXPECT_THROW(collective_ops(s, -1, identity_nodes(3)), std::invalid_argument);
    EXPECT_THROW(collective_ops(s, 0, identity_nodes(2)), std::invalid_argument);
    collective_op_options o;
    o.element_bytes = 0;
    EXPECT_THROW(collective_ops(s, 0, identity_nodes(3), o), std::invalid_argument);
    o.element_bytes = 4;
    o.start_after = {3};  // not before index_base 0
    EXPECT_THROW(collective_ops(s, 0, identity_nodes(3), o), std::invalid_argument);
    // One rank's steps alone: a peer that is not a rank, a node list of the wrong size.
    std::vector<op> out;
    auto steps = s.steps[0];
    EXPECT_THROW(append_collective_ops(out, steps, 2, identity_nodes(2)), std::invalid_argument);
    EXPECT_THROW(append_collective_ops(out, steps, 3, identity_nodes(2)), std::invalid_argument);
    EXPECT_NO_THROW(append_collective_ops(out, steps, 3, identity_nodes(3)));
}

}  // namespace
}  // namespace trainvp::workloads
