// A host CPU that runs its node's op stream (workloads/ops): compute, gradient sums and weight
// updates on its cores (their memory traffic as real transactions on `mem`), messages through
// its NIC (`nic`, `nic_notify`), kernels and copies on its accelerator (`accel`).  Four units
// run concurrently, each its ops in list order: cpu (the compute cores), comm (the cores set
// aside for communication), gpu and copy.  It is a driver: the run ends when every op is done.
// The block keeps the sockets, params, statistics and the unit engines (unit_step); what it
// holds of its op stream is an op_window, its messages in flight a message_matcher (both pure
// C++, tested alone: ip/host/README.md).
#pragma once

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "ip/host/comm_stack.h"
#include "ip/host/message_matcher.h"
#include "ip/host/op_window.h"
#include "kit/flat_queue.h"
#include "kit/ip_module.h"
#include "traces/traced_level.h"
#include "workloads/drivers/workload_sink.h"
#include "workloads/ops/op_list.h"
#include "workloads/ops/op_source.h"

namespace trainvp::ip {

class host_cpu : public ip_module, public workload_sink {
public:
    // Sockets a host without a NIC or an accelerator leaves unbound.
    using optional_initiator =
        tlm_utils::simple_initiator_socket_b<host_cpu, 32, tlm::tlm_base_protocol_types,
                                             sc_core::SC_ZERO_OR_MORE_BOUND>;
    using optional_target =
        tlm_utils::simple_target_socket_b<host_cpu, 32, tlm::tlm_base_protocol_types,
                                          sc_core::SC_ZERO_OR_MORE_BOUND>;

    tlm_utils::simple_initiator_socket<host_cpu> mem{"mem"};
    optional_initiator nic{"nic"};
    optional_target nic_notify{"nic_notify"};
    optional_initiator accel{"accel"};

    SC_HAS_PROCESS(host_cpu);
    host_cpu(const sc_core::sc_module_name& name, const params& p);
    // A run stopped inside a unit's command to the NIC or accelerator leaves that command's
    // extension (on the never-unwound thread's stack) in the unit's payload: detached here,
    // so that the payload's destructor does not free it.
    ~host_cpu() override;
    static void declare(type_decl<host_cpu>& d);

    void accept_workload(const config_node& ops, const std::string& key) override;
    void accept_source(std::unique_ptr<ops::op_source> ops, const source_loc& where,
                       const std::string& key) override;
    void accept_data(std::uint64_t address, std::vector<std::uint8_t> bytes,
                     const source_loc& where, const std::string& key) override;
    void expect_data(std::uint64_t address, std::vector<double> expected,
                     std::vector<double> allowance) override;

    // Functional mode: the region given to accept_data, as it stands (after the run: the
    // all-reduced gradient).
    std::uint64_t data_address() const { return m_data_address; }
    const std::vector<std::uint8_t>& data() const { return m_data; }
    workloads::host_run ran() override;

    // The ops it holds now, and the most it held at once (a training run: the iterations it
    // is running, not the whole run; ip/host/README.md, "Soak").
    std::size_t live_ops() const { return m_ops.size(); }
    std::size_t total_ops() const { return m_ops.total(); }
    std::size_t max_live_ops() const { return m_ops.max_live(); }
    // A chunk (an iteration) is dropped once every op of it is done and nothing still refers
    // to it; more than this many at once is an internal error.
    static constexpr std::size_t k_max_live_chunks = op_window::k_max_live_chunks;

    bool is_driver() const override { return true; }
    bool finished() const override { return m_finished; }
    // Work is an op that takes time: a message (a zero-byte one is a barrier), or a FLOP, a
    // byte or a delay.  A given list whose every op has none of them would end at time 0.
    bool has_work() const override { return total_ops() > 0 && !m_only_empty_ops; }
    std::string pending_work() const override;
    void validate_peers(const peer_view& peers) const override;
    void declare_messages(ops::message_pairing& pairs) const override;
    message_site site_of_message(std::size_t index, const char* field) const override;
    void end_of_run() override;
    void audit(audit_log& log) const override;

private:
    using op_kind = ops::op_kind;
    using op_unit = ops::op_unit;
    // The op window's records (op_window.h says why they are laid out so).
    using slot = op_window::slot;
    using op_state = op_window::op_state;
    using op_status = op_window::op_status;
    static constexpr std::size_t k_none = op_window::k_none;

    // Memory traffic as memory_traffic issues it: `reads` then `writes` passes over
    // [address, address + bytes) from `start`, paced at `pace` bytes/s over all passes (0: as
    // fast as the memory and the window of memory_outstanding chunks allow).  An op's, or a
    // copy of the communication stack's.
    struct traffic {
        traffic() = default;
        traffic(std::uint64_t a, std::uint64_t b, std::uint32_t r, std::uint32_t w,
                const sc_core::sc_time& from, double bytes_per_s)
            : address(a),
              bytes(b),
              reads(r),
              writes(w),
              start(from),
              pace(bytes_per_s),
              last(from) {}
        std::uint64_t address = 0, bytes = 0;
        std::uint32_t reads = 0, writes = 0;
        sc_core::sc_time start;
        double pace = 0;
        // Progress: the pass, the offset in it, bytes issued over all passes, the last
        // completion, and a chunk's issue time it sleeps until.
        std::uint32_t pass = 0;
        std::uint64_t off = 0, issued = 0;
        sc_core::sc_time last, issue;
        bool issue_due = false;
    };
    // Where a unit is in its front op (unit_step's state).
    enum class unit_phase {
        NEXT,        // take the next op
        DEPS,        // wait for the op's `after` and their completion times
        START,       // start it
        MEMORY,      // issue its memory traffic (compute, sum, update)
        RECV_MATCH,  // wait for its message (recv)
        FINISH,      // wait until the unit is free (`end`), then finish it
        FINISHED,    // `end` reached: finish it
    };
    struct unit_run {
        unit_phase phase = unit_phase::NEXT;
        std::size_t op = 0;      // the unit's front op
        slot what;               // its slot, copied when the unit takes it
        std::uint32_t dep = 0;   // DEPS: the next of its `after` to check
        sc_core::sc_time ready;  // DEPS: when they were all done
        sc_core::sc_time start, end;
        // RECV: the message matched to it (op_status::matched says it arrived); SEND: its
        // message id.
        sc_core::sc_time arrival;
        std::uint64_t received_bytes = 0;
        std::uint64_t msg_id = 0;
        traffic mem;  // MEMORY: the op's memory traffic
        // COMPUTE on cpu: time taken from it by interrupt work while it runs
        // (steal_for_interrupts), before its end is known.
        sc_core::sc_time stolen;
        // A sum the communication stack runs (comm_stack::sum): done no earlier than this.
        bool stack_sum = false;
        sc_core::sc_time stack_end;
    };
    // One engine per unit: runs its ops in list order, sleeping where a thread would wait.
    void unit_step(op_unit u);
    // `now`: the activation's time (an engine's activation takes no time).
    void start_op(unit_run& r, op_unit u, const sc_core::sc_time& now);
    // r's RECV takes a message that arrived at `at` (from the NIC, or the unexpected queue).
    void take_message(unit_run& r, const sc_core::sc_time& at, std::uint64_t bytes,
                      std::uint64_t msg_id, const std::shared_ptr<std::vector<std::uint8_t>>& data);
    // The op's statistics and completion once its unit is free (a send only frees the unit).
    void finish_op(const unit_run& r, op_unit u);
    void finish_when_done();
    void wait_until(const sc_core::sc_time& t);
    // Op i (of kind k) is done at `at` (now or later): wakes the unit waiting for it then.
    void mark_done(std::size_t i, op_kind k, const sc_core::sc_time& at);
    // Wakes unit u at `at` (now: in the next delta cycle).
    void wake(std::size_t u, const sc_core::sc_time& at);

    struct memory_stream;
    // Issues traffic `t` on `ms` from t.start, continuing where it left off; returns false
    // when `e` sleeps until a chunk's issue time (within a quantum of the time of issue), true
    // when all is issued (t.last: when the last chunk is done).
    bool memory_traffic(traffic& t, memory_stream& ms, wake_queue::engine& e,
                        const sc_core::sc_time& now);
    // The DRAM traffic of the stack's copy of a message of `message_bytes` at `address`
    // (comm_stack::copy_traffic): `bytes` read (a send) or written (a receive), spread over
    // its progress thread's work on it, [start_ps, end_ps).  Runs on that thread's copy
    // stream.
    void copy_traffic(std::size_t thread, std::uint64_t start_ps, std::uint64_t end_ps,
                      std::uint64_t address, std::uint64_t message_bytes, std::uint64_t bytes,
                      bool write);
    // The receive path's interrupt work on the compute cores (stack.irq_share of the
    // message's receive work, `receive_work_ps`, at `at`): the compute op running on the cpu
    // unit then takes that much longer; none when the cpu unit is idle or runs anything else.
    void steal_for_interrupts(std::uint64_t receive_work_ps, const sc_core::sc_time& at);
    // A copy stream's engine: issues its copies' traffic one after another.
    void copy_step(std::size_t thread);
    // Unit u's payload, set up for a command (its extension to be attached) to the NIC or the
    // accelerator.
    tlm::tlm_generic_payload& command(op_unit u);
    // Hand op i to the accelerator or the NIC; return when the unit is free again.
    sc_core::sc_time post_accel(const unit_run& r);
    sc_core::sc_time post_send(unit_run& r);
    // Compute time of `flops` on unit `u` (cpu: cores - comm_cores; comm: comm_cores).
    sc_core::sc_time compute_time(double flops, op_unit u) const;
    void nic_notify_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

    // The statistics of r's op, whose unit was busy with it from r.start to r.end (and its run
    // record, when the breakdown is kept).
    void record(const unit_run& r, op_unit u);
    // "op 'name' (kind)" or "op [i] (kind)".
    std::string describe(std::size_t i) const;
    // Takes the op stream (from the config or generated) and materialises its first chunk;
    // `where`/`key` locate errors of ops that carry no location of their own.
    void take_ops(std::unique_ptr<ops::op_source> src, const source_loc& where,
                  const std::string& key);
    // Checks that this host has the sockets and cores the ops of `list` need (first index i0).
    void check_units(const std::vector<ops::op>& list, std::size_t i0, const source_loc& where,
                     const std::string& key);
    // Notes, of the ops of `list` (first index i0), what validate_peers checks against the
    // other blocks: the op reaching furthest into host memory, and the first op naming each
    // peer node id.
    void note_peer_uses(const std::vector<ops::op>& list, std::size_t i0, const source_loc& where,
                        const std::string& key);
    std::string track(op_unit u) const;
    // A span on one of the host's tracks: one per unit ("node[0].host.cpu"), because the units
    // overlap in time and trace-event spans on one track must nest.
    void span(const std::string& track_path, const std::string& name, const std::string& cat,
              const sc_core::sc_time& start, const sc_core::sc_time& end,
              const span_args& args = {});

    // Params.
    std::uint64_t m_node_id = 0;
    units::compute_rate m_peak;
    double m_efficiency = 1.0;
    double m_slowdown = 1.0;  // a straggler: compute ops take slowdown x their compute time
    std::uint64_t m_cores = 0;
    std::uint64_t m_comm_cores = 0;
    units::data_size m_memory_chunk;
    std::uint64_t m_memory_outstanding = 0;
    units::bandwidth m_stream_bandwidth;
    // The communication software (the `stack:` sub-map) and its progress threads.
    comm_stack_params m_stack_params;
    std::unique_ptr<comm_stack> m_stack;
    // A compute op's (or a measured pass's) time `t` on this node: slowdown x t.
    sc_core::sc_time slowed(const sc_core::sc_time& t) const;

    // What memory_traffic keeps across its sleeps, per unit.  `trans` also carries the unit's
    // commands to the NIC and the accelerator.
    struct memory_stream {
        flat_queue<sc_core::sc_time> window;  // completions of the chunks in flight
        tlm::tlm_generic_payload trans;
        std::unique_ptr<unsigned char[]> scratch;  // the transactions' data buffer
        std::size_t scratch_size = 0;
    };
    std::array<memory_stream, ops::k_op_units> m_streams;
    // Per progress thread, when the stack's copies move memory traffic: the copies handed to
    // it (in the thread's order, one after another) and the one being issued.
    struct copy_stream {
        memory_stream ms;
        wake_queue::engine engine;
        std::deque<traffic> queued;
        traffic now;
        bool issuing = false;
    };
    std::vector<std::unique_ptr<copy_stream>> m_copies;
    std::array<unit_run, ops::k_op_units> m_units;

    // What every op or message touches is declared together (a few cache lines: at 1024 nodes
    // each line of a host is a miss per visit): the matcher and the window each begin on a
    // cache line with theirs, in lines by when they are touched, and the units' waits and the
    // done count share one line between them.
    // Messages in flight: the SENDs awaiting SEND_DONE, the posted RECVs, the unexpected queue.
    message_matcher m_messages;
    // Per unit: the op it waits for (k_none: none, or its message) while its engine is parked.
    std::array<std::size_t, ops::k_op_units> m_waits_for;
    std::size_t m_done = 0;
    sc_core::sc_time m_last_done;
    // The op stream: the window of it the host holds, and each unit's ops in it.  References
    // into it do not survive a retire_chunks (mark_done) or a materialise.
    op_window m_ops;

    // Per unit: the engine running unit_step (kit/wake_queue.h).  Only the unit a wake
    // concerns is woken, at the time it can go on.
    std::array<wake_queue::engine, ops::k_op_units> m_engine;
    wake_queue::engine m_finish;  // finish_when_done
    bool m_has_accel = false;     // `accel` is bound (check_units)
    bool m_finished = false;
    bool m_has_workload = false;
    bool m_only_empty_ops = false;  // a one-chunk list whose ops all take no time (has_work)
    // What validate_peers checks (note_peer_uses): an op with where it was given.
    struct op_use {
        std::string what;  // "op 'name' (recv)"
        source_loc where;
        std::string key;
        std::uint64_t end = 0;  // memory: address + bytes
    };
    std::optional<op_use> m_furthest;           // the op reaching furthest into host memory
    std::map<std::uint32_t, op_use> m_peers;    // the first op naming each peer node id
    std::optional<op_use> m_first_allreduce;    // the first allreduce op (it needs its NIC)
    const config_node* m_given_list = nullptr;  // accept_workload's list, while it is parsed
    // A written-out list (accept_workload): the list, which the config keeps for the run, and
    // its sends and receives for declare_messages (entry index: the op's).
    const config_node* m_written_list = nullptr;
    std::string m_written_key;  // "workload.ops.node[0].host"
    struct given_message {
        op_kind kind = op_kind::SEND;  // SEND, RECV or ALLREDUCE
        ops::message_pairing::entry e;
    };
    std::vector<given_message> m_given_messages;

    // Functional mode: [m_data_address, + m_data.size()) holds real bytes (slot::sum_source
    // says what a SUM adds); the messages of matched RECVs not applied yet, by op index.
    std::uint8_t* data_at(std::uint64_t address, std::uint64_t bytes);
    void apply_received(std::size_t i, const slot& o);
    std::map<std::size_t, std::shared_ptr<std::vector<std::uint8_t>>> m_recv_data;
    std::uint64_t m_data_address = 0;
    std::vector<std::uint8_t> m_data;
    bool m_has_data = false;
    // What the data must hold at the end (expect_data), checked by audit().
    std::uint64_t m_expected_address = 0;
    std::vector<double> m_expected, m_allowance;

    // Statistics.
    scalar m_completion_ns, m_irq_stolen_ns;
    scalar m_cpu_busy_ns, m_comm_busy_ns, m_gpu_busy_ns, m_copy_busy_ns, m_stack_busy_ns;
    std::array<scalar*, ops::k_op_units> m_busy_ns{};
    scalar m_compute_ns, m_comm_ns, m_copy_ns, m_sum_ns, m_update_ns, m_delay_ns;
    counter m_ops_compute, m_ops_gpu_compute, m_ops_copy_to_host, m_ops_copy_to_gpu, m_ops_sum,
        m_ops_update, m_ops_send, m_ops_recv, m_ops_delay, m_ops_allreduce;
    std::array<counter*, ops::k_op_kinds> m_ops_of{};
    scalar m_flops;
    counter m_memory_bytes, m_stack_memory_bytes, m_bytes_sent, m_bytes_received, m_bytes_to_gpu,
        m_bytes_to_host;
    counter m_unexpected_count;
    distribution m_send_latency_ns, m_recv_wait_ns;
    traced_level m_cpu_busy{traced_level::style::FLAG};
    traced_level m_comm_busy{traced_level::style::FLAG};
    traced_level m_gpu_busy{traced_level::style::FLAG};
    traced_level m_copy_busy{traced_level::style::FLAG};
    std::array<traced_level*, ops::k_op_units> m_busy{};
};

}  // namespace trainvp::ip
