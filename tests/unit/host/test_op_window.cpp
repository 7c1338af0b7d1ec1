// host.cpu's op window alone (pure C++): the slot and status layout, how ops are taken in
// (dependency distances inline and pooled, a SUM's RECV, memory passes), the per-unit queues,
// chunks materialised as units run out and dropped once nothing refers to them, the breakdown's
// records, and the internal errors.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "ip/host/op_window.h"
#include "workloads/ops/op_source.h"

namespace trainvp::ip {
namespace {

using ops::op;
using ops::op_kind;
using ops::op_unit;
using state = op_window::op_state;

constexpr std::size_t k_cpu = static_cast<std::size_t>(op_unit::CPU);
constexpr std::size_t k_comm = static_cast<std::size_t>(op_unit::COMM);

op make(op_kind kind, op_unit unit, std::vector<std::size_t> after, std::uint64_t bytes = 0,
        std::string name = "") {
    op o;
    o.kind = kind;
    o.unit = unit;
    o.after = after;
    o.bytes = bytes;
    o.name = std::move(name);
    return o;
}

// One "iteration" of a ring step, at stream offset `base`: compute on cpu (after the previous
// iteration's sum when there is one), send on comm after it, recv on comm, sum of the received
// range on cpu after the recv and the compute.
std::vector<op> iteration(std::size_t base) {
    std::vector<op> v;
    v.push_back(make(op_kind::COMPUTE, op_unit::CPU,
                     base == 0 ? std::vector<std::size_t>{} : std::vector<std::size_t>{base - 1},
                     64, "compute"));
    v.back().flops = 1e6;
    v.push_back(make(op_kind::SEND, op_unit::COMM, {base}, 1024, "send"));
    v.back().peer = 1;
    v.back().tag = 7;
    v.push_back(make(op_kind::RECV, op_unit::COMM, {}, 1024, "recv"));
    v.back().peer = 2;
    v.back().tag = 7;
    v.push_back(make(op_kind::SUM, op_unit::CPU, {base + 2, base}, 1024, "sum"));
    return v;
}

// A stream of `n` iterations, one chunk each, named "<name>@<index>" when asked.
class chunked_source : public ops::op_source {
public:
    explicit chunked_source(std::size_t n) : m_n(n) {}
    std::size_t chunks() const override { return m_n; }
    std::vector<op> take(std::size_t c) override {
        taken.push_back(c);
        return iteration(4 * c);
    }
    std::size_t size() const override { return 4 * m_n; }
    std::array<std::size_t, ops::k_op_units> unit_sizes() const override {
        return {2 * m_n, 2 * m_n, 0, 0};
    }
    std::string name_of(std::size_t i) override {
        static const char* names[] = {"compute", "send", "recv", "sum"};
        return std::string(names[i % 4]) + "@" + std::to_string(i);
    }
    std::vector<std::size_t> taken;

private:
    std::size_t m_n;
};

// Opens a window on `n` iterations and materialises the first, as host.cpu does.
struct fixture {
    explicit fixture(std::size_t n, bool record = true, bool names = false) : w("node[0].host") {
        auto s = std::make_unique<chunked_source>(n);
        src = s.get();
        w.open(std::move(s), record, names);
        w.materialise(w.source().take(0));
    }
    // Runs unit u's front op to completion at `at_ps`, as its engine would.
    void run_front(std::size_t u, std::uint64_t at_ps) {
        ASSERT_TRUE(w.fill(u));
        const std::size_t i = w.unit_ops(u).front();
        w.status_of(i).state = state::RUNNING;
        if (w.records_runs()) w.record_of(i).started_ps = at_ps;
        w.complete(i, at_ps);
        w.pass(u);
        w.retire_chunks();
    }
    op_window w;
    chunked_source* src = nullptr;
};

TEST(op_window, records_keep_their_cache_friendly_sizes) {
    EXPECT_EQ(sizeof(op_window::slot), 64u);
    EXPECT_EQ(alignof(op_window::slot), 64u);
    EXPECT_EQ(sizeof(op_window::op_status), 16u);
    EXPECT_EQ(sizeof(op_window::run_record), 32u);
}

TEST(op_window, takes_ops_in_with_their_units_dependencies_and_work) {
    fixture f(3);
    op_window& w = f.w;
    EXPECT_EQ(w.chunks_total(), 3u);
    EXPECT_EQ(w.total(), 12u);
    EXPECT_EQ(w.size(), 4u);
    ASSERT_EQ(w.unit_ops(k_cpu).size(), 2u);
    EXPECT_EQ(w.unit_ops(k_cpu)[0], 0u);
    EXPECT_EQ(w.unit_ops(k_cpu)[1], 3u);
    ASSERT_EQ(w.unit_ops(k_comm).size(), 2u);
    EXPECT_EQ(w.unit_ops(k_comm)[0], 1u);
    EXPECT_EQ(w.unit_ops(k_comm)[1], 2u);
    EXPECT_TRUE(w.unit_ops(2).empty());

    const op_window::slot& c = w.op_at(0);
    EXPECT_EQ(c.kind, op_kind::COMPUTE);
    EXPECT_EQ(c.flops, 1e6);
    EXPECT_EQ(c.read_passes, 1u);
    EXPECT_EQ(c.write_passes, 0u);
    EXPECT_EQ(c.phase, ops::op_phase::COMPUTE);
    EXPECT_EQ(c.dep_count, 0u);

    const op_window::slot& s = w.op_at(1);
    EXPECT_EQ(s.kind, op_kind::SEND);
    EXPECT_EQ(s.peer, 1u);
    EXPECT_EQ(s.tag, 7u);
    EXPECT_EQ(s.bytes, 1024u);
    ASSERT_EQ(s.dep_count, 1u);
    EXPECT_EQ(w.dep(1, 0), 0u);

    // The SUM of two inputs after a RECV of the same range adds that message in.
    const op_window::slot& sum = w.op_at(3);
    EXPECT_EQ(sum.sum_source, 1u);
    EXPECT_EQ(sum.read_passes, 2u);
    EXPECT_EQ(sum.write_passes, 1u);
    EXPECT_EQ(w.dep(3, 0), 2u);
    EXPECT_EQ(w.dep(3, 1), 0u);
    EXPECT_TRUE(w.status_of(2).recv_summed);
    EXPECT_FALSE(w.status_of(1).recv_summed);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(w.status_of(i).state, state::WAITING);
}

TEST(op_window, keeps_more_than_two_dependencies_in_its_pool) {
    std::vector<op> list;
    for (int k = 0; k < 4; ++k) list.push_back(make(op_kind::DELAY, op_unit::CPU, {}));
    list.push_back(make(op_kind::DELAY, op_unit::COMM, {3, 0, 2, 1}));
    list.back().delay_ps = 1234;
    list.push_back(make(op_kind::DELAY, op_unit::COMM, {4, 1, 0}));
    op_window w("h");
    w.open(std::make_unique<ops::list_source>(ops::op_list(list)), false, false);
    w.materialise(w.source().take(0));
    EXPECT_EQ(w.op_at(4).delay_ps, 1234u);
    ASSERT_EQ(w.op_at(4).dep_count, 4u);
    const std::vector<std::size_t> want4 = {3, 0, 2, 1};
    for (std::uint32_t k = 0; k < 4; ++k) EXPECT_EQ(w.dep(4, k), want4[k]);
    ASSERT_EQ(w.op_at(5).dep_count, 3u);
    const std::vector<std::size_t> want5 = {4, 1, 0};
    for (std::uint32_t k = 0; k < 3; ++k) EXPECT_EQ(w.dep(5, k), want5[k]);
}

TEST(op_window, materialises_chunks_as_units_run_out_and_drops_them_when_unreferenced) {
    fixture f(3);
    op_window& w = f.w;
    EXPECT_EQ(f.src->taken, (std::vector<std::size_t>{0}));
    // The comm unit runs its send and recv; the cpu unit has not finished its sum.
    f.run_front(k_cpu, 10);                    // compute 0
    f.run_front(k_comm, 20);                   // send 1
    f.run_front(k_comm, 30);                   // recv 2
    EXPECT_EQ(w.more_after_front(k_cpu), 4u);  // the sum, then 2 x 2 in later iterations
    // comm has run all its ops so far: the next chunk holds its next ones.
    EXPECT_TRUE(w.fill(k_comm));
    EXPECT_EQ(f.src->taken, (std::vector<std::size_t>{0, 1}));
    EXPECT_EQ(w.size(), 8u);
    EXPECT_EQ(w.unit_ops(k_comm).front(), 5u);
    EXPECT_TRUE(w.op_at(4).dep_count == 1 && w.dep(4, 0) == 3u);
    EXPECT_TRUE(w.status_of(4).refs_previous);
    // Chunk 0 is not done (its sum): nothing is dropped.
    w.retire_chunks();
    EXPECT_EQ(w.size(), 8u);
    f.run_front(k_cpu, 40);  // sum 3: chunk 0 done, but compute 4 (chunk 1) waits for it
    EXPECT_EQ(w.size(), 8u);
    f.run_front(k_cpu, 50);  // compute 4: chunk 0 is dropped
    EXPECT_EQ(w.size(), 4u);
    EXPECT_EQ(w.op_at(4).kind, op_kind::COMPUTE);
    EXPECT_EQ(w.status_of(4).done_ps, 50u);
    EXPECT_EQ(w.max_live(), 8u);
}

TEST(op_window, keeps_a_chunk_while_a_unit_is_still_on_one_of_its_ops) {
    fixture f(2);
    op_window& w = f.w;
    f.run_front(k_cpu, 10);  // compute 0
    // The send is done (SEND_DONE came back within the NIC's call) while its unit still has it.
    w.complete(1, 15);
    f.run_front(k_cpu, 20);      // sum 3 may not run before recv 2; the test only drives the window
    ASSERT_TRUE(w.fill(k_cpu));  // materialises chunk 1
    w.complete(2, 25);
    f.run_front(k_cpu, 30);  // compute 4
    EXPECT_EQ(w.size(), 8u) << "comm is still on op 1";
    w.pass(k_comm);  // send 1
    w.pass(k_comm);  // recv 2
    w.retire_chunks();
    EXPECT_EQ(w.size(), 4u);
}

TEST(op_window, records_the_breakdown_of_retired_and_done_ops) {
    fixture f(2);
    op_window& w = f.w;
    for (std::uint64_t t = 1; t <= 8; ++t) {
        // cpu and comm in turn, as far as each has ops.
        const std::size_t u = (t % 2 == 1) ? k_cpu : k_comm;
        if (!w.fill(u)) continue;
        f.run_front(u, 100 * t);
    }
    workloads::host_run run = w.ran("node[0].host", 5);
    EXPECT_EQ(run.name, "node[0].host");
    EXPECT_EQ(run.node_id, 5u);
    ASSERT_EQ(run.ops.size(), 8u);
    EXPECT_EQ(run.ops[0].kind, op_kind::COMPUTE);
    EXPECT_EQ(run.ops[0].unit_prev, workloads::k_no_op);
    EXPECT_EQ(run.ops[3].kind, op_kind::SUM);
    EXPECT_EQ(run.ops[3].unit_prev, 0u);
    EXPECT_EQ(run.ops[2].src_node, 2u);
    EXPECT_EQ(run.ops[4].unit_prev, 3u);
    ASSERT_EQ(run.ops[3].after_count, 2u);
    EXPECT_EQ(run.after[run.ops[3].after_begin], 2u);
    EXPECT_EQ(run.after[run.ops[3].after_begin + 1], 0u);
    for (const workloads::op_run& r : run.ops) EXPECT_EQ(r.start_ps, r.end_ps);
}

TEST(op_window, records_nothing_without_the_breakdown) {
    fixture f(1, false);
    f.run_front(k_cpu, 1);
    EXPECT_FALSE(f.w.records_runs());
    workloads::host_run run = f.w.ran("h", 1);
    EXPECT_EQ(run.name, "h");
    EXPECT_TRUE(run.ops.empty());
    EXPECT_TRUE(run.after.empty());
}

TEST(op_window, names_ops_from_its_own_copy_or_from_the_source) {
    fixture kept(1, true, true);
    EXPECT_EQ(kept.w.name_of(2), "recv");
    fixture asked(1, true, false);
    EXPECT_EQ(asked.w.name_of(2), "recv@2");
}

TEST(op_window, reports_dependencies_it_cannot_hold) {
    op_window later("node[1].host");
    std::vector<op> list = {make(op_kind::DELAY, op_unit::CPU, {1}),
                            make(op_kind::DELAY, op_unit::CPU, {})};
    later.open(std::make_unique<ops::list_source>(ops::op_list(list)), true, false);
    try {
        later.materialise(later.source().take(0));
        FAIL() << "no error";
    } catch (const std::logic_error& e) {
        EXPECT_STREQ(e.what(), "node[1].host: op 0 waits for op 1, a later one");
    }
}

// Chunk c's first op waits for op `back` ops before it.
class reaching_source : public chunked_source {
public:
    reaching_source(std::size_t n, std::size_t back) : chunked_source(n), m_back(back) {}
    std::vector<op> take(std::size_t c) override {
        std::vector<op> v = iteration(4 * c);
        if (c >= 2) v[0].after = {4 * c - m_back};
        return v;
    }

private:
    std::size_t m_back;
};

TEST(op_window, reports_a_wait_before_the_previous_chunk) {
    op_window w("h");
    w.open(std::make_unique<reaching_source>(3, 5), true, false);
    w.materialise(w.source().take(0));
    w.materialise(w.source().take(1));
    try {
        w.materialise(w.source().take(2));
        FAIL() << "no error";
    } catch (const std::logic_error& e) {
        EXPECT_STREQ(e.what(), "h: op 8 waits for op 3, before the previous chunk of its stream");
    }
}

TEST(op_window, reports_a_unit_that_runs_too_far_ahead) {
    op_window w("node[2].host");
    w.open(std::make_unique<chunked_source>(6), true, false);
    for (std::size_t c = 0; c < op_window::k_max_live_chunks; ++c) {
        w.materialise(w.source().take(c));
    }
    try {
        w.materialise(w.source().take(op_window::k_max_live_chunks));
        FAIL() << "no error";
    } catch (const sim_error& e) {
        EXPECT_STREQ(e.what(),
                     "node[2].host: internal error: chunk 4 of the op stream would be the 5th "
                     "held at once (at most 4): a unit ran that far ahead of the oldest "
                     "unfinished one");
    }
}

}  // namespace
}  // namespace trainvp::ip
