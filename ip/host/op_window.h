// The window of a host's op stream (ip/host/README.md, "Soak" and "Scale"): the chunks of the
// stream (ops::op_source) from the oldest one still referred to up to the newest materialised
// one, each op as three records in step (its slot, its status, its run record), its `after` as
// distances back, and each unit's queue of ops not yet passed.  host.cpu's unit engines take
// their ops from it and mark them done in it; it drops a chunk once nothing refers to it.
//
// Pure C++ (no SystemC): times are integer picoseconds, the value of the host's sc_time at a
// resolution of 1 ps (kit/sim_time.h), so that it is unit-tested alone
// (tests/unit/host/test_op_window.cpp).  Its layout is what makes a 1024-node ring affordable
// (docs/performance.md): keep the slot at one cache line, the status at 16 B, the containers
// flat, and the members every op touches declared together at the front.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kit/flat_queue.h"
#include "workloads/iteration/critical_path.h"
#include "workloads/ops/op.h"
#include "workloads/ops/op_source.h"

namespace trainvp::ip {

class alignas(64) op_window {
public:
    using op_kind = ops::op_kind;
    using op_unit = ops::op_unit;
    using op_phase = ops::op_phase;
    // ISSUED: a SEND (or ALLREDUCE) the NIC holds, awaiting SEND_DONE.
    enum class op_state : std::uint8_t { WAITING, RUNNING, ISSUED, DONE };
    // One op of the window: what it does (from ops::op, without its name and config location,
    // which describe() asks the source for).  Written when the window takes the op in and read
    // once, when its unit takes it (host_cpu's unit_run::what): one cache line, read front to
    // back as the units take their ops in stream order.  How an op stands (op_status) and how
    // it ran (run_record) are kept apart: at 1024 nodes each line of a host is a miss per visit,
    // and the slot used to be visited at every step of an op's life (docs/performance.md).
    struct alignas(64) slot {
        union {
            double flops = 0.0;      // ops::work_flops (COMPUTE, SUM, UPDATE, GPU_COMPUTE)
            std::uint64_t delay_ps;  // DELAY
        };
        std::uint64_t bytes = 0;    // traffic, buffer, copy or message size
        std::uint64_t address = 0;  // host address of the buffer
        // Its `after`, as distances back: up to k_inline_deps in `near`, more in the window's
        // dependency pool (dep()).
        union {
            std::uint64_t dep_begin = 0;
            std::array<std::uint32_t, 2> near;
        };
        std::uint32_t dep_count = 0;
        std::uint32_t peer = 0;  // SEND: destination node id; RECV: source node id
        std::uint32_t tag = 0;
        op_kind kind = op_kind::DELAY;
        op_unit unit = op_unit::CPU;
        op_phase phase = op_phase::OTHER;  // ops::phase_of
        std::uint16_t read_passes = 0;     // ops::memory_traffic (a SUM reads `inputs` buffers,
        std::uint16_t write_passes = 0;    // at most 1024: op_parser)
        // Functional: a SUM adds the message of the RECV this many ops before it (0: none).
        std::uint32_t sum_source = 0;
        std::uint8_t tos = 0;
    };
    static_assert(sizeof(slot) == 64, "an op slot is one cache line");
    // How an op stands: what the ops waiting for it read.  16 B, four to a cache line, in
    // stream order: an op mostly waits for the few just before it, whose status shares its line.
    struct op_status {
        std::uint64_t done_ps = 0;  // its completion time (DONE)
        op_state state = op_state::WAITING;
        bool matched = false;        // RECV: its message arrived
        bool recv_summed = false;    // RECV that a SUM adds in (functional)
        bool refs_previous = false;  // it waits for an op of the previous chunk
    };
    static_assert(sizeof(op_status) == 16, "an op status is 16 B");
    // How an op ran, for the iteration breakdown: kept only when the breakdown is recorded
    // (simulation.breakdown).  The host writes it when its unit is done with the op; its start
    // and a SEND's message id also as they happen, so that a run stopped meanwhile reports them.
    struct run_record {
        std::uint64_t started_ps = 0;
        std::uint64_t released_ps = 0;  // its unit was free again
        std::uint64_t arrival_ps = 0;   // RECV
        // SEND: its message id; RECV: the matched message's id at its source.
        std::uint64_t msg_id = 0;
    };
    static constexpr std::size_t k_none = static_cast<std::size_t>(-1);
    static constexpr std::uint32_t k_inline_deps = 2;  // slot::near
    // A chunk (an iteration) is dropped once every op of it is done and nothing still refers
    // to it; more than this many at once is an internal error.
    static constexpr std::size_t k_max_live_chunks = 4;

    // `owner` names the host in internal errors.
    explicit op_window(std::string owner);

    // Takes the op stream; nothing is materialised yet (materialise(source().take(0)) does
    // the first chunk, once the caller has checked its ops).  record_runs: keep a run record
    // per op for the breakdown (ran()); keep_names: keep the ops' names (name_of without asking
    // the source).
    void open(std::unique_ptr<ops::op_source> src, bool record_runs, bool keep_names);
    ops::op_source& source() const { return *m_source; }
    std::size_t chunks_total() const { return m_chunks_total; }
    std::size_t total() const { return m_total; }  // ops in the whole stream
    bool records_runs() const { return m_record_runs; }
    bool keeps_names() const { return m_keep_names; }

    // Appends the next chunk of the stream (`list`: that chunk's ops) to the window.
    void materialise(std::vector<ops::op> list);

    // Unit u's ops in the window not yet passed, in stream order; the front one is running or
    // waiting to.
    const flat_queue<std::size_t>& unit_ops(std::size_t u) const { return m_unit_ops[u]; }
    // Whether unit u has an op to take: when it has run all its ops so far, the next chunks
    // (iterations) are materialised until one holds its next ones.  False: it has run all.
    bool fill(std::size_t u) { return !m_unit_ops[u].empty() || fill_from_source(u); }
    // Unit u is done with its front op.
    void pass(std::size_t u) {
        m_unit_ops[u].pop_front();
        ++m_unit_passed[u];
    }
    // Ops unit u has after its front one, in the whole stream.
    std::size_t more_after_front(std::size_t u) const {
        return m_unit_total[u] - m_unit_passed[u] - 1;
    }
    // The slot and status of unit u's next op and of the one three on (a ring step's send,
    // receive and sum later) are read soon, long after the window was written: fetched now,
    // their misses overlap the unit's work instead of stalling it (docs/performance.md).
    void prefetch_ahead(std::size_t u) const {
        const flat_queue<std::size_t>& list = m_unit_ops[u];
        for (const std::size_t k : {std::size_t{1}, std::size_t{3}}) {
            if (list.size() <= k) break;
            __builtin_prefetch(&op_at(list[k]));
            __builtin_prefetch(&status_of(list[k]));
        }
    }

    // The op with stream index i: i must be in the window.  References into the window do not
    // survive a retire_chunks or a materialise.
    slot& op_at(std::size_t i) { return m_window[i - m_first]; }
    const slot& op_at(std::size_t i) const { return m_window[i - m_first]; }
    op_status& status_of(std::size_t i) { return m_status[i - m_first]; }
    const op_status& status_of(std::size_t i) const { return m_status[i - m_first]; }
    // Only when records_runs().
    run_record& record_of(std::size_t i) { return m_records[i - m_first]; }
    // The k-th op of `after` of op i, whose slot is s.
    std::size_t dep(std::size_t i, const slot& s, std::uint32_t k) const {
        return i -
               (s.dep_count <= k_inline_deps ? s.near[k] : m_deps[s.dep_begin + k - m_deps_first]);
    }
    std::size_t dep(std::size_t i, std::uint32_t k) const { return dep(i, op_at(i), k); }
    // Op i's name ("" when it has none): kept when keeps_names(), else asked of the source.
    std::string name_of(std::size_t i) const {
        return m_keep_names ? m_names[i - m_first] : m_source->name_of(i);
    }

    // Op i is done at `at_ps`: its status, and its chunk's count of ops not done.
    void complete(std::size_t i, std::uint64_t at_ps) {
        op_status& s = status_of(i);
        s.state = op_state::DONE;
        s.done_ps = at_ps;
        for (chunk& c : m_chunks) {
            if (i < c.begin || i >= c.end) continue;
            --c.not_done;
            if (s.refs_previous) --c.refs_not_done;
            break;
        }
    }
    // Drops the chunks at the front of the window that nothing refers to any more (recording
    // their ops for the breakdown first).
    void retire_chunks() {
        if (m_chunks.size() >= 2) retire_unreferenced();
    }

    // The breakdown's records: the retired chunks' ops, then the window's up to the first op not
    // done (nothing after it ran to completion in order, and `after` indices stay valid because
    // ops only wait for earlier ones).  Takes the retired records: once, at the end of a run.
    workloads::host_run ran(const std::string& name, std::uint32_t node_id);

    // The ops it holds now, and the most it held at once.
    std::size_t size() const { return m_window.size(); }
    std::size_t max_live() const { return m_max_live; }

private:
    // A chunk of the op stream in the window: ops [begin, end), their dependencies
    // m_deps[.., dep_end).
    struct chunk {
        std::size_t begin = 0;
        std::size_t end = 0;
        std::size_t dep_end = 0;
        std::size_t not_done = 0;       // its ops not DONE
        std::size_t refs_not_done = 0;  // its ops that wait for the previous chunk, not DONE
    };
    bool fill_from_source(std::size_t u);
    void retire_unreferenced();
    // Appends op i (DONE) to `run` for the breakdown; `last` is the last op recorded per unit.
    void record_run(std::size_t i, workloads::host_run& run,
                    std::array<std::size_t, ops::k_op_units>& last) const;

    // What every op touches, in cache lines by when it is touched (the window is aligned to a
    // line; at 1024 nodes each line of a host is a miss per visit, docs/performance.md).  Ops
    // [m_first, m_first + m_window.size()) of the stream, their dependencies m_deps (each the
    // distance back to the op waited for; positions from m_deps_first).  Contiguous
    // (flat_queue): a slot is one load away.
    // Line 0: op_at, status_of.
    flat_queue<slot> m_window;
    flat_queue<op_status> m_status;  // the window's, in step
    // Line 1: the index base, the chunks (complete, retire_chunks), the run's size.
    std::size_t m_first = 0;
    std::size_t m_deps_first = 0;
    flat_queue<chunk> m_chunks;
    std::size_t m_total = 0;
    bool m_record_runs = true;
    bool m_keep_names = false;
    // Lines 2-3: per unit, its ops in the window not yet passed (32 B each).
    std::array<flat_queue<std::size_t>, ops::k_op_units> m_unit_ops;
    // Line 4: how many each unit has passed; the pool of `after` lists longer than two.
    std::array<std::size_t, ops::k_op_units> m_unit_passed{};
    flat_queue<std::uint32_t> m_deps;
    // Line 5: the run records (with the breakdown only), how many ops each unit has in all.
    flat_queue<run_record> m_records;  // the window's, in step, when m_record_runs
    std::array<std::size_t, ops::k_op_units> m_unit_total{};

    // Touched per chunk, or at the end.
    std::size_t m_next_chunk = 0;
    std::size_t m_chunks_total = 0;
    std::unique_ptr<ops::op_source> m_source;
    flat_queue<std::string> m_names;  // the window's, when m_keep_names (the timeline is on)
    std::size_t m_max_live = 0;
    // The breakdown's records of the retired chunks' ops (compact: critical_path.h's op_run),
    // and the last op recorded per unit.
    workloads::host_run m_run;
    std::array<std::size_t, ops::k_op_units> m_run_last{};
    std::string m_owner;
};

}  // namespace trainvp::ip
