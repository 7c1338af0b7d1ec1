// A host CPU that runs its node's op stream (workloads/ops): compute, gradient sums and weight
// updates on its cores (their memory traffic as real transactions on `mem`), messages through
// its NIC (`nic`, `nic_notify`), kernels and copies on its accelerator (`accel`).  Four units
// run concurrently, each its ops in list order: cpu (the compute cores), comm (the cores set
// aside for communication), gpu and copy.  It is a driver: the run ends when every op is done.
#pragma once

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "platform/ip_module.h"
#include "platform/workload_sink.h"
#include "traces/traced_level.h"
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
    std::size_t live_ops() const { return m_window.size(); }
    std::size_t total_ops() const { return m_total; }
    std::size_t max_live_ops() const { return m_max_live; }
    // A chunk (an iteration) is dropped once every op of it is done and nothing still refers
    // to it; more than this many at once is an internal error.
    static constexpr std::size_t k_max_live_chunks = 4;

    bool is_driver() const override { return true; }
    bool finished() const override { return m_finished; }
    std::string pending_work() const override;
    void end_of_run() override;
    void audit(audit_log& log) const override;

private:
    enum class op_state { WAITING, RUNNING, ISSUED, DONE };  // ISSUED: a SEND awaiting SEND_DONE
    struct op_status {
        op_state state = op_state::WAITING;
        sc_core::sc_time started;
        sc_core::sc_time released;  // its unit was free again
        sc_core::sc_time done_at;
        // SEND: the message id and when its descriptor was posted; RECV: the matched message.
        std::uint64_t msg_id = 0;
        sc_core::sc_time posted;
        bool matched = false;
        sc_core::sc_time arrival;
        std::uint64_t received_bytes = 0;
        std::shared_ptr<std::vector<std::uint8_t>> data;  // RECV, functional: the message
        std::uint64_t src_msg_id = 0;                     // RECV: the message's id at its source
        // Functional: a SUM adds the message of RECV sum_source (its input, same range); a
        // RECV that no SUM reads (recv_summed false) overwrites its range.
        std::ptrdiff_t sum_source = -1;
        bool recv_summed = false;
        bool refs_previous = false;  // it waits for an op of the previous chunk
    };
    // A chunk of the op stream in the window: ops [begin, end).
    struct chunk {
        std::size_t begin = 0;
        std::size_t end = 0;
        std::size_t not_done = 0;       // its ops not DONE
        std::size_t refs_not_done = 0;  // its ops that wait for the previous chunk, not DONE
    };
    // A RECEIVED notification not yet matched to a RECV.
    struct arrival {
        std::uint32_t peer = 0;
        std::uint32_t tag = 0;
        std::uint64_t bytes = 0;
        sc_core::sc_time at;
        std::shared_ptr<std::vector<std::uint8_t>> data;
        std::uint64_t msg_id = 0;  // at the source
    };

    // One thread per unit (SC_THREAD takes no arguments).
    void run_cpu() { run_unit(ops::op_unit::CPU); }
    void run_comm() { run_unit(ops::op_unit::COMM); }
    void run_gpu() { run_unit(ops::op_unit::GPU); }
    void run_copy() { run_unit(ops::op_unit::COPY); }
    void run_unit(ops::op_unit u);
    void finish_when_done();
    void wait_for_deps(std::size_t i);
    void wait_until(const sc_core::sc_time& t);
    void mark_done(std::size_t i, const sc_core::sc_time& at);

    // Per kind: returns when the unit is free again.
    void run_cpu_work(std::size_t i, ops::op_unit u);
    void run_accel(std::size_t i);
    void run_send(std::size_t i);
    void run_recv(std::size_t i, ops::op_unit u);

    // Issues the op's memory traffic on `mem` from `start`; returns when the last chunk is done.
    sc_core::sc_time memory_traffic(const ops::op& o, ops::op_unit u,
                                    const sc_core::sc_time& start);
    // Compute time of `flops` on unit `u` (cpu: cores - comm_cores; comm: comm_cores).
    sc_core::sc_time compute_time(double flops, ops::op_unit u) const;
    void nic_notify_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

    void record(std::size_t i, ops::op_unit u, const sc_core::sc_time& start,
                const sc_core::sc_time& unit_free);
    std::string describe(std::size_t i) const;
    // Takes the op stream (from the config or generated) and materialises its first chunk;
    // `where`/`key` locate errors of ops that carry no location of their own.
    void take_ops(std::unique_ptr<ops::op_source> src, const source_loc& where,
                  const std::string& key);
    // Appends the next chunk of the stream to the window.
    void materialise_next();
    // Drops the chunks at the front of the window that nothing refers to any more (recording
    // their ops for the breakdown first).
    void retire_chunks();
    // Appends op i (DONE) to `run` for the breakdown; `last` is the last op recorded per unit.
    void record_run(std::size_t i, workloads::host_run& run,
                    std::array<std::size_t, ops::k_op_units>& last) const;
    // The op with stream index i, and its status: i must be in the window.
    const ops::op& op_at(std::size_t i) const { return m_window[i - m_first]; }
    op_status& status(std::size_t i) { return m_status[i - m_first]; }
    const op_status& status(std::size_t i) const { return m_status[i - m_first]; }
    std::string track(ops::op_unit u) const;
    // A span on one of the host's tracks: one per unit ("node[0].host.cpu"), because the units
    // overlap in time and trace-event spans on one track must nest.
    void span(const std::string& track_path, const std::string& name, const std::string& cat,
              const sc_core::sc_time& start, const sc_core::sc_time& end);

    // Params.
    std::uint64_t m_node_id = 0;
    units::compute_rate m_peak;
    double m_efficiency = 1.0;
    std::uint64_t m_cores = 0;
    std::uint64_t m_comm_cores = 0;
    units::data_size m_memory_chunk;
    std::uint64_t m_memory_outstanding = 0;
    units::bandwidth m_stream_bandwidth;
    units::duration m_send_overhead;
    units::duration m_recv_overhead;

    // What memory_traffic keeps across its waits, per unit: members, not locals, so that a run
    // stopped while a unit is in the middle of an op (its thread is never unwound) leaks
    // nothing.
    struct memory_stream {
        std::deque<sc_core::sc_time> window;  // completions of the chunks in flight
        tlm::tlm_generic_payload trans;
        std::vector<unsigned char> scratch;
    };
    std::array<memory_stream, ops::k_op_units> m_streams;

    // The op stream and its progress.  The window holds the chunks from the oldest one still
    // referred to up to the newest materialised one: ops [m_first, m_first + m_window.size())
    // of the stream.  A unit materialises the next chunk when it has run all its ops so far.
    std::unique_ptr<ops::op_source> m_source;
    std::size_t m_chunks_total = 0;
    std::size_t m_next_chunk = 0;
    std::size_t m_total = 0;  // ops in the whole stream
    std::deque<ops::op> m_window;
    std::deque<op_status> m_status;
    std::deque<chunk> m_chunks;
    std::size_t m_first = 0;
    std::size_t m_max_live = 0;
    // Per unit: its ops in the window not yet passed, the front one running or waiting to; how
    // many it has passed, and how many it has in the whole stream.
    std::array<std::deque<std::size_t>, ops::k_op_units> m_unit_ops;
    std::array<std::size_t, ops::k_op_units> m_unit_passed{};
    std::array<std::size_t, ops::k_op_units> m_unit_total{};
    std::size_t m_done = 0;
    // The breakdown's records of the retired chunks' ops (compact: critical_path.h's op_run),
    // and the last op recorded per unit.
    bool m_record_runs = true;
    workloads::host_run m_run;
    std::array<std::size_t, ops::k_op_units> m_run_last{};
    sc_core::sc_time m_last_done;
    sc_core::sc_event m_op_done;
    bool m_finished = false;
    bool m_has_workload = false;

    // Functional mode: [m_data_address, + m_data.size()) holds real bytes (op_status::
    // sum_source says what a SUM adds).
    std::uint8_t* data_at(std::uint64_t address, std::uint64_t bytes);
    void apply_received(std::size_t i);
    std::uint64_t m_data_address = 0;
    std::vector<std::uint8_t> m_data;
    bool m_has_data = false;
    // What the data must hold at the end (expect_data), checked by audit().
    std::uint64_t m_expected_address = 0;
    std::vector<double> m_expected, m_allowance;

    // Messages.
    std::uint64_t m_next_msg_id = 0;
    std::map<std::uint64_t, std::size_t> m_send_of_msg;  // msg_id -> SEND op
    std::deque<arrival> m_unexpected;
    sc_core::sc_event m_arrived;

    // Statistics.
    scalar m_completion_ns;
    scalar m_cpu_busy_ns, m_comm_busy_ns, m_gpu_busy_ns, m_copy_busy_ns;
    std::array<scalar*, ops::k_op_units> m_busy_ns{};
    scalar m_compute_ns, m_comm_ns, m_copy_ns, m_sum_ns, m_update_ns, m_delay_ns;
    counter m_ops_compute, m_ops_gpu_compute, m_ops_copy_to_host, m_ops_copy_to_gpu, m_ops_sum,
        m_ops_update, m_ops_send, m_ops_recv, m_ops_delay, m_ops_allreduce;
    std::array<counter*, ops::k_op_kinds> m_ops_of{};
    scalar m_flops;
    counter m_memory_bytes, m_bytes_sent, m_bytes_received, m_bytes_to_gpu, m_bytes_to_host;
    counter m_unexpected_count;
    distribution m_send_latency_ns, m_recv_wait_ns;
    traced_level m_cpu_busy{traced_level::style::FLAG};
    traced_level m_comm_busy{traced_level::style::FLAG};
    traced_level m_gpu_busy{traced_level::style::FLAG};
    traced_level m_copy_busy{traced_level::style::FLAG};
    std::array<traced_level*, ops::k_op_units> m_busy{};
};

}  // namespace trainvp::ip
