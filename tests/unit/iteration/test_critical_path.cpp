// The critical-path breakdown on hand-built runs whose path is worked out in the comments.
#include <gtest/gtest.h>

#include "workloads/iteration/critical_path.h"

namespace trainvp::workloads {
namespace {

using ops::op_kind;
using ops::op_phase;

// An op_run with its `after`, appended to a host_run by push().
struct run_with_after : op_run {
    std::vector<std::size_t> after;
};

run_with_after run(op_kind k, op_phase p, std::uint64_t start, std::uint64_t end,
                   std::vector<std::size_t> after = {}, std::size_t unit_prev = k_no_op) {
    run_with_after o;
    o.kind = k;
    o.phase = p;
    o.start_ps = start;
    o.release_ps = end;
    o.end_ps = end;
    o.after = std::move(after);
    o.unit_prev = unit_prev;
    return o;
}

void push(host_run& h, const run_with_after& r) { h.add(r, r.after); }

std::uint64_t part(const iteration_breakdown& b, breakdown_part p) { return b.part(p); }

std::uint64_t sum_of_parts(const iteration_breakdown& b) {
    std::uint64_t s = 0;
    for (auto x : b.ps) s += x;
    return s;
}

TEST(CriticalPath, SerialChainChargesEachOpToItsPhase) {
    host_run h{"w", 0, {}, {}};
    push(h, run(op_kind::DELAY, op_phase::FORWARD, 0, 10));
    push(h, run(op_kind::DELAY, op_phase::BACKWARD, 10, 30, {}, 0));
    push(h, run(op_kind::UPDATE, op_phase::UPDATE, 30, 35, {1}));
    const iteration_breakdown b = critical_path({h});
    EXPECT_EQ(b.error, "");
    EXPECT_EQ(b.total_ps, 35u);
    EXPECT_EQ(part(b, breakdown_part::FORWARD), 10u);
    EXPECT_EQ(part(b, breakdown_part::BACKWARD), 20u);
    EXPECT_EQ(part(b, breakdown_part::UPDATE), 5u);
    EXPECT_EQ(part(b, breakdown_part::IDLE), 0u);
    EXPECT_EQ(sum_of_parts(b), b.total_ps);
}

TEST(CriticalPath, UnexplainedGapsAndLateStartsAreIdle) {
    host_run h{"w", 0, {}, {}};
    push(h, run(op_kind::COMPUTE, op_phase::COMPUTE, 5, 10));  // nothing before: 5 idle
    push(h, run(op_kind::SUM, op_phase::SUM, 12, 20, {0}));    // 2 idle after op 0
    const iteration_breakdown b = critical_path({h});
    EXPECT_EQ(part(b, breakdown_part::IDLE), 7u);
    EXPECT_EQ(part(b, breakdown_part::COMPUTE), 5u);
    EXPECT_EQ(part(b, breakdown_part::SUM), 8u);
    EXPECT_EQ(sum_of_parts(b), 20u);
}

TEST(CriticalPath, TheLaterOfDependencyAndUnitIsThePredecessor) {
    // Op 2 depends on op 0 (ends 10) and follows op 1 on its unit (released at 25): op 1 holds it.
    host_run h{"w", 0, {}, {}};
    push(h, run(op_kind::COMPUTE, op_phase::FORWARD, 0, 10));
    push(h, run(op_kind::COPY_TO_HOST, op_phase::COPY, 0, 25));
    push(h, run(op_kind::UPDATE, op_phase::UPDATE, 25, 30, {0}, 1));
    const iteration_breakdown b = critical_path({h});
    EXPECT_EQ(part(b, breakdown_part::COPY), 25u);
    EXPECT_EQ(part(b, breakdown_part::FORWARD), 0u);
    EXPECT_EQ(part(b, breakdown_part::UPDATE), 5u);
}

TEST(CriticalPath, ASendHoldsItsUnitUntilReleaseAndItsWaitersUntilSendDone) {
    // A send released at 12 (the NIC took it) and done at 40 (SEND_DONE).  The next op on the
    // unit starts at 12; an op after the send starts at 40 and ends last: the send's whole
    // stretch [10, 40] is communication.
    host_run h{"w", 0, {}, {}};
    push(h, run(op_kind::COMPUTE, op_phase::BACKWARD, 0, 10));
    run_with_after s = run(op_kind::SEND, op_phase::COMM, 10, 40, {0});
    s.release_ps = 12;
    push(h, s);
    push(h, run(op_kind::DELAY, op_phase::OTHER, 12, 14, {}, 1));
    push(h, run(op_kind::UPDATE, op_phase::UPDATE, 40, 45, {1}));
    const iteration_breakdown b = critical_path({h});
    EXPECT_EQ(b.total_ps, 45u);
    EXPECT_EQ(part(b, breakdown_part::COMM), 30u);
    EXPECT_EQ(part(b, breakdown_part::BACKWARD), 10u);
    EXPECT_EQ(part(b, breakdown_part::UPDATE), 5u);
    EXPECT_EQ(part(b, breakdown_part::OTHER), 0u);
}

// inceptionn.md's worker-aggregator in miniature.  Worker (node 0): backward 0..20, sends its
// gradient (message 0: start 20, NIC takes it at 21, SEND_DONE 50), then waits for the weights
// (message 7 from node 1, posted at 21, arriving at 80).  Aggregator (node 1): receives message
// 0 (posted at 0, in memory at 50), sums 50..60, updates 60..70, sends the weights (start 70).
// Path back from the worker's receive: message 7 in flight 70..80 (comm 10), update 10, sum 10,
// message 0 in flight 20..50 (comm 30), backward 20: 80 in all.
TEST(CriticalPath, AMessageLeadsTheWalkToItsSender) {
    host_run w{"worker", 0, {}, {}};
    push(w, run(op_kind::COMPUTE, op_phase::BACKWARD, 0, 20));
    run_with_after s = run(op_kind::SEND, op_phase::COMM, 20, 50, {0});
    s.release_ps = 21;
    s.msg_id = 0;
    push(w, s);
    run_with_after r = run(op_kind::RECV, op_phase::COMM, 21, 80, {}, 1);
    r.matched = true;
    r.src_node = 1;
    r.src_msg_id = 7;
    r.arrival_ps = 80;
    push(w, r);

    host_run a{"aggregator", 1, {}, {}};
    run_with_after ar = run(op_kind::RECV, op_phase::COMM, 0, 50);
    ar.matched = true;
    ar.src_node = 0;
    ar.src_msg_id = 0;
    ar.arrival_ps = 50;
    push(a, ar);
    push(a, run(op_kind::SUM, op_phase::SUM, 50, 60, {0}));
    push(a, run(op_kind::UPDATE, op_phase::UPDATE, 60, 70, {1}));
    run_with_after as = run(op_kind::SEND, op_phase::COMM, 70, 80, {2});
    as.release_ps = 71;
    as.msg_id = 7;
    push(a, as);

    const iteration_breakdown b = critical_path({w, a});
    EXPECT_EQ(b.total_ps, 80u);
    EXPECT_EQ(part(b, breakdown_part::COMM), 40u);
    EXPECT_EQ(part(b, breakdown_part::UPDATE), 10u);
    EXPECT_EQ(part(b, breakdown_part::SUM), 10u);
    EXPECT_EQ(part(b, breakdown_part::BACKWARD), 20u);
    EXPECT_EQ(part(b, breakdown_part::IDLE), 0u);
    EXPECT_EQ(b.ends_at, "worker op 2");
}

TEST(CriticalPath, AnEarlyMessageIsNotOnThePath) {
    // The message arrived (at 5) before the receive was posted (at 10): the receive's own time
    // (its overhead, 10..12) is communication and the walk stays on this host.
    host_run h{"w", 0, {}, {}};
    push(h, run(op_kind::COMPUTE, op_phase::FORWARD, 0, 10));
    run_with_after r = run(op_kind::RECV, op_phase::COMM, 10, 12, {}, 0);
    r.matched = true;
    r.src_node = 3;
    r.src_msg_id = 1;
    r.arrival_ps = 5;
    push(h, r);
    const iteration_breakdown b = critical_path({h});
    EXPECT_EQ(part(b, breakdown_part::FORWARD), 10u);
    EXPECT_EQ(part(b, breakdown_part::COMM), 2u);
}

TEST(CriticalPath, InconsistentRunsAreRejected) {
    host_run h{"w", 0, {}, {}};
    push(h, run(op_kind::COMPUTE, op_phase::FORWARD, 10, 5));
    EXPECT_NE(critical_path({h}).error, "");
    host_run g{"w", 0, {}, {}};
    push(g, run(op_kind::COMPUTE, op_phase::FORWARD, 0, 10, {0}));
    EXPECT_NE(critical_path({g}).error, "");
    host_run k{"w", 0, {}, {}};
    push(k, run(op_kind::COMPUTE, op_phase::FORWARD, 0, 10));
    push(k, run(op_kind::COMPUTE, op_phase::FORWARD, 5, 12, {0}));  // starts before 10
    EXPECT_NE(critical_path({k}).error, "");
}

TEST(CriticalPath, NoOpsGiveAnEmptyBreakdown) {
    const iteration_breakdown b = critical_path({});
    EXPECT_EQ(b.total_ps, 0u);
    EXPECT_EQ(sum_of_parts(b), 0u);
}

}  // namespace
}  // namespace trainvp::workloads
