#include "ip/host/host_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "core/did_you_mean.h"
#include "ip/ethernet/packet_ext.h"
#include "ip/host/accel_op_ext.h"
#include "kit/registry.h"
#include "kit/sim_time.h"
#include "workloads/drivers/nic_capabilities.h"
#include "workloads/models/device_model.h"
#include "workloads/ops/op_parser.h"

namespace trainvp::ip {

using ops::op_kind;
using ops::op_unit;
using sc_core::sc_time;

namespace {
std::size_t index_of(op_unit u) { return static_cast<std::size_t>(u); }

bool is_bound(sc_core::sc_port_base& p) { return p.bind_count() > 0; }

// "op 'name' (kind)", or "op [i] (kind)" for an op without a name.
std::string describe_op(const std::string& name, op_kind kind, std::size_t i) {
    const std::string k = ops::kind_name(kind);
    if (name.empty()) return "op [" + std::to_string(i) + "] (" + k + ")";
    return "op '" + name + "' (" + k + ")";
}

std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// "32 GiB" for a whole number of binary units, else as a summary writes sizes.
std::string size_text(std::uint64_t bytes) {
    static const char* names[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; ++i) {
        const std::uint64_t unit = 1ull << (10 * (4 - i));
        if (bytes >= unit && bytes % unit == 0)
            return std::to_string(bytes / unit) + " " + names[i];
    }
    return std::to_string(bytes) + " B";
}

// Whether op kind K moves data through host memory at its address.
bool uses_host_memory(op_kind k) { return k != op_kind::GPU_COMPUTE && k != op_kind::DELAY; }

// Where field FIELD of op item I of LIST was given, else the op's own place.
source_loc field_loc(const config_node* list, std::size_t i, const char* field,
                     const source_loc& fallback) {
    if (list == nullptr || !list->is_seq() || i >= list->items().size()) return fallback;
    const config_node* v = list->items()[i].find(field);
    return v == nullptr ? fallback : v->loc();
}

}  // namespace

void host_cpu::declare(type_decl<host_cpu>& d) {
    d.describe(
        "Host CPU running its node's op list (workload.ops). Units cpu, comm, gpu and copy run "
        "concurrently, each its ops in list order; `after` waits for earlier ops on any unit. "
        "compute/sum/update: memory traffic on `mem` in chunks, then flops / (peak x efficiency "
        "x k/cores) with k = cores - comm_cores on cpu and comm_cores on comm (paleo eq. 1: "
        "memory time + compute time). send: stack.send_overhead, then the descriptor to `nic`, its "
        "data leaving once the "
        "protocol and a progress thread allow, at stack.send_rate; done at SEND_DONE. recv: done "
        "when its message has landed and a progress thread has taken it at stack.recv_rate "
        "(`stack:`). gpu_compute and "
        "copies: commands on `accel`.");
    d.param("node_id", &host_cpu::m_node_id, "0",
            "This node's id: the `to` of other nodes' sends and the `from` of their receives "
            "(in an array: node_id: ${index})")
        .range("0", "2^20");
    d.param("peak", &host_cpu::m_peak, "3.2256TFLOP/s",
            "Peak FP32 rate of all cores together. Default: Xeon Platinum 8280 (smartnic.md "
            "§III): 28 cores x 1.8 GHz AVX-512 base (as the paper gives it) x 64 FLOP/cycle "
            "(2 AVX-512 FMA units x 16 lanes x 2). INCEPTIONN's Xeon E5-2640 v3 (inceptionn.md "
            "§VII-C; Intel ARK: 8 cores, 2.6 GHz base; Haswell AVX2: 2 FMA units x 8 lanes x 2 "
            "= 32 FLOP/cycle) is 665.6GFLOP/s with cores: 8")
        .range("1MFLOP/s", "1PFLOP/s");
    d.param("efficiency", &host_cpu::m_efficiency, "100%",
            "Platform percent of peak (paleo.md §3.3): the fraction of peak the software "
            "reaches; fit it to a measured compute time")
        .range("0.1%", "100%");
    d.param("slowdown", &host_cpu::m_slowdown, "1",
            "Fault: a straggler node (thermal or power throttling, a noisy neighbour): its "
            "compute ops' compute time (flops / (peak x efficiency)) and its measured passes "
            "(delay ops on the cpu and gpu units run here) take slowdown x their time; sums, "
            "updates, memory traffic and communication are not slowed. 1 = a healthy node")
        .range("1", "1000");
    d.param("cores", &host_cpu::m_cores, "28",
            "Cores sharing `peak` (Xeon Platinum 8280: 28, smartnic.md §III)")
        .range("1", "4096");
    d.param("comm_cores", &host_cpu::m_comm_cores, "0",
            "Cores taken from compute for communication; the cpu unit computes at "
            "(cores - comm_cores)/cores of peak, the comm unit at comm_cores/cores "
            "(smartnic.md §III: 2 of 28 was best, and the backward pass slowed down)")
        .range("0", "4095");
    d.param("memory_chunk", &host_cpu::m_memory_chunk, "64KiB",
            "Size of the memory transactions that carry an op's traffic (modelling knob: "
            "smaller interleaves finer with DMA traffic, larger simulates faster)")
        .range("64B", "1GiB");
    d.param("memory_outstanding", &host_cpu::m_memory_outstanding, "8",
            "Memory transactions in flight at most (modelling knob for the cores' memory-level "
            "parallelism; enough to cover the memory latency gives traffic / bandwidth)")
        .range("1", "1024");
    d.param("stream_bandwidth", &host_cpu::m_stream_bandwidth, "0GB/s",
            "Sustained memory bandwidth the software's memory-bound ops (sum, update, compute "
            "traffic) reach; 0 = only the memory and the window limit them. Like paleo.md "
            "§3.3's platform percent of peak for compute: fewer threads or no streaming stores "
            "reach a fraction of the DRAM's bandwidth. Fit it to a measured sum or update")
        .range("0GB/s", "10TB/s");
    d.group("stack", &host_cpu::m_stack_params,
            "The communication software, MPI over TCP/IP (ip/host/README.md, \"The "
            "communication stack\"): per-message overheads, eager and rendezvous protocol, the "
            "per-byte cost of sends and receives on the progress threads",
            comm_stack_params::declare);

    d.initiator("mem", &host_cpu::mem, "mem", "Host memory: the traffic of compute, sum, update");
    d.initiator("nic", &host_cpu::nic, "nic", "Send requests to the NIC (nic_msg_ext SEND)")
        .optional = true;
    d.target("nic_notify", &host_cpu::nic_notify, "nic",
             "The NIC's notifications: SEND_DONE and RECEIVED (nic_msg_ext)")
        .optional = true;
    d.initiator("accel", &host_cpu::accel, "accel",
                "Accelerator commands: kernels and copies (accel_op_ext)")
        .optional = true;

    d.headline("completion_time", &host_cpu::m_completion_ns, "ns", "Time the last op completed");
    d.stat("cpu_busy", &host_cpu::m_cpu_busy_ns, "ns", "Time the cpu unit ran ops");
    d.stat("comm_busy", &host_cpu::m_comm_busy_ns, "ns",
           "Time the comm unit ran ops (a send until the NIC took its descriptor; a "
           "receive until it completed)");
    d.stat("stack_busy", &host_cpu::m_stack_busy_ns, "ns",
           "Progress-thread time the stack's per-byte work took (stack.send_rate, "
           "stack.recv_rate) and the sums it ran (stack.sum_bandwidth), all threads together");
    d.stat("gpu_busy", &host_cpu::m_gpu_busy_ns, "ns", "Time the gpu unit waited on kernels");
    d.stat("copy_busy", &host_cpu::m_copy_busy_ns, "ns", "Time the copy unit waited on copies");
    d.stat("time_compute", &host_cpu::m_compute_ns, "ns", "Time in compute and gpu_compute ops");
    d.stat("time_comm", &host_cpu::m_comm_ns, "ns", "Time in send and recv ops (unit time)");
    d.stat("time_copy", &host_cpu::m_copy_ns, "ns", "Time in copy ops");
    d.stat("time_sum", &host_cpu::m_sum_ns, "ns", "Time in sum ops");
    d.stat("time_update", &host_cpu::m_update_ns, "ns", "Time in update ops");
    d.stat("time_delay", &host_cpu::m_delay_ns, "ns", "Time in delay ops");
    d.stat("ops_compute", &host_cpu::m_ops_compute, "1", "compute ops done");
    d.stat("ops_gpu_compute", &host_cpu::m_ops_gpu_compute, "1", "gpu_compute ops done");
    d.stat("ops_copy_to_host", &host_cpu::m_ops_copy_to_host, "1", "copy_to_host ops done");
    d.stat("ops_copy_to_gpu", &host_cpu::m_ops_copy_to_gpu, "1", "copy_to_gpu ops done");
    d.stat("ops_sum", &host_cpu::m_ops_sum, "1", "sum ops done");
    d.stat("ops_update", &host_cpu::m_ops_update, "1", "update ops done");
    d.stat("ops_send", &host_cpu::m_ops_send, "1", "send ops done (SEND_DONE received)");
    d.stat("ops_recv", &host_cpu::m_ops_recv, "1", "recv ops done");
    d.stat("ops_delay", &host_cpu::m_ops_delay, "1", "delay ops done");
    d.stat("ops_allreduce", &host_cpu::m_ops_allreduce, "1",
           "allreduce ops done (offloaded to the smart NIC; completion reported)");
    d.stat("flops", &host_cpu::m_flops, "FLOP", "Floating-point operations run on the cores");
    d.stat("memory_bytes", &host_cpu::m_memory_bytes, "B", "Bytes of memory traffic on `mem`");
    d.stat("irq_stolen", &host_cpu::m_irq_stolen_ns, "ns",
           "Time compute ops on the cpu unit lost to the receive path's interrupt work on the "
           "compute cores (stack.irq_share)");
    d.stat("stack_memory_bytes", &host_cpu::m_stack_memory_bytes, "B",
           "Bytes of memory traffic on `mem` of the communication stack's copies (stack "
           "send_copy_traffic, recv_copy_traffic; part of memory_bytes)");
    d.stat("bytes_sent", &host_cpu::m_bytes_sent, "B", "Payload bytes of completed sends");
    d.stat("bytes_received", &host_cpu::m_bytes_received, "B",
           "Payload bytes of completed receives");
    d.stat("bytes_to_gpu", &host_cpu::m_bytes_to_gpu, "B", "Bytes copied to the accelerator");
    d.stat("bytes_to_host", &host_cpu::m_bytes_to_host, "B", "Bytes copied from the accelerator");
    d.stat("unexpected", &host_cpu::m_unexpected_count, "1",
           "Messages that arrived before their receive was posted");
    d.stat("send_latency", &host_cpu::m_send_latency_ns, "ns",
           "Descriptor posted to SEND_DONE, per send");
    d.stat("recv_wait", &host_cpu::m_recv_wait_ns, "ns",
           "Time a receive waited for its message after start + recv_overhead");
    d.signal("cpu_busy", &host_cpu::m_cpu_busy, "1 while the cpu unit runs an op");
    d.signal("comm_busy", &host_cpu::m_comm_busy, "1 while the comm unit runs an op");
    d.signal("gpu_busy", &host_cpu::m_gpu_busy, "1 while the gpu unit waits on a kernel");
    d.signal("copy_busy", &host_cpu::m_copy_busy, "1 while the copy unit waits on a copy");
}

host_cpu::host_cpu(const sc_core::sc_module_name& name, const params& p)
    : ip_module(name, p), m_ops(path()) {
    p.apply(*this);
    if (m_comm_cores >= m_cores) {
        const config_node* v = p.find("comm_cores");
        throw input_error(v ? v->loc() : p.where(), path() + ".comm_cores",
                          std::to_string(m_comm_cores) + " comm cores leave no compute core of " +
                              std::to_string(m_cores) + " cores");
    }
    m_busy_ns = {&m_cpu_busy_ns, &m_comm_busy_ns, &m_gpu_busy_ns, &m_copy_busy_ns};
    m_busy = {&m_cpu_busy, &m_comm_busy, &m_gpu_busy, &m_copy_busy};
    m_ops_of = {&m_ops_compute, &m_ops_gpu_compute, &m_ops_copy_to_host, &m_ops_copy_to_gpu,
                &m_ops_sum,     &m_ops_update,      &m_ops_send,         &m_ops_recv,
                &m_ops_delay,   &m_ops_allreduce};
    m_waits_for.fill(k_none);
    const std::uint64_t threads = m_stack_params.threads != 0
                                      ? m_stack_params.threads
                                      : std::max<std::uint64_t>(m_comm_cores, 1);
    m_stack = std::make_unique<comm_stack>(m_stack_params, threads);
    if (m_stack->copies_move_memory()) {
        for (std::size_t k = 0; k < m_stack->threads(); ++k) {
            m_copies.push_back(std::make_unique<copy_stream>());
            start_engine(m_copies.back()->engine, [this, k] { copy_step(k); });
        }
    }
    nic_notify.register_b_transport(this, &host_cpu::nic_notify_b_transport);
    for (op_unit u : {op_unit::CPU, op_unit::COMM, op_unit::GPU, op_unit::COPY}) {
        start_engine(m_engine[index_of(u)], [this, u] { unit_step(u); });
        m_engine[index_of(u)].hot_state(&m_units[index_of(u)], sizeof(unit_run));
    }
    // An engine, not a thread: a SystemC thread that ends is taken out of the kernel's process
    // list by a linear search, O(hosts^2) over a run (1.7 s of a 16,384-host one).
    start_engine(m_finish, [this] { finish_when_done(); });
}

host_cpu::~host_cpu() {
    for (memory_stream& m : m_streams) {
        m.trans.clear_extension<nic_msg_ext>();
        m.trans.clear_extension<accel_op_ext>();
    }
}

std::string host_cpu::describe(std::size_t i) const {
    return describe_op(m_ops.name_of(i), m_ops.op_at(i).kind, i);
}

std::string host_cpu::track(op_unit u) const { return path() + "." + ops::unit_name(u); }

void host_cpu::accept_workload(const config_node& list, const std::string& key) {
    if (m_has_workload) {
        throw input_error(list.loc(), key, "the ops of " + path() + " are given twice");
    }
    m_given_list = &list;
    m_written_list = &list;
    m_written_key = key;
    take_ops(std::make_unique<ops::list_source>(ops::parse_ops(list, key)), list.loc(), key);
    m_given_list = nullptr;
}

void host_cpu::accept_source(std::unique_ptr<ops::op_source> src, const source_loc& where,
                             const std::string& key) {
    if (m_has_workload) throw input_error(where, key, "the ops of " + path() + " are given twice");
    take_ops(std::move(src), where, key);
}

void host_cpu::take_ops(std::unique_ptr<ops::op_source> src, const source_loc& where,
                        const std::string& key) {
    m_has_workload = true;
    m_ops.open(std::move(src), ctx().settings().breakdown, ctx().spans().enabled());
    if (m_ops.chunks_total() == 0) return;
    std::vector<ops::op> first = m_ops.source().take(0);
    // Sockets are bound by now (the binder runs before workloads are handed out), so an op on a
    // unit this host lacks is reported here, naming the op, rather than as a stall.  Every
    // chunk of a generated stream has the same kinds of ops on the same units (one iteration
    // each), so the first stands for all.
    check_units(first, 0, where, key);
    note_peer_uses(first, 0, where, key);
    m_only_empty_ops =
        m_ops.chunks_total() == 1 && std::all_of(first.begin(), first.end(), [](const ops::op& o) {
            return o.kind != op_kind::SEND && o.kind != op_kind::RECV &&
                   o.kind != op_kind::ALLREDUCE && o.flops == 0.0 && o.bytes == 0 &&
                   o.delay_ps == 0;
        });
    m_ops.materialise(std::move(first));
}

void host_cpu::note_peer_uses(const std::vector<ops::op>& list, std::size_t i0,
                              const source_loc& where, const std::string& key) {
    for (std::size_t k = 0; k < list.size(); ++k) {
        const ops::op& o = list[k];
        const bool peer = o.kind == op_kind::SEND || o.kind == op_kind::RECV;
        const bool allreduce = o.kind == op_kind::ALLREDUCE;
        if ((peer || allreduce) && m_given_list != nullptr) {
            given_message m;
            m.kind = o.kind;
            const auto self = static_cast<std::uint32_t>(m_node_id);
            const bool out = o.kind != op_kind::RECV;
            m.e = {out ? self : o.peer, out ? o.peer : self, o.tag, o.bytes, i0 + k, this};
            m_given_messages.push_back(m);
        }
        if (allreduce && !m_first_allreduce) {
            const std::string name = o.name.empty() ? m_ops.source().name_of(i0 + k) : o.name;
            op_use u;
            u.what = describe_op(name, o.kind, i0 + k);
            u.key = o.key.empty() ? key : o.key + ".op";
            u.where = o.key.empty() ? where : field_loc(m_given_list, i0 + k, "op", o.where);
            m_first_allreduce = u;
        }
        const bool memory = uses_host_memory(o.kind) && o.bytes > 0;
        if (!peer && !memory) continue;
        const std::uint64_t end = o.address + o.bytes;
        const bool furthest = memory && (!m_furthest || end > m_furthest->end);
        const bool new_peer = peer && m_peers.find(o.peer) == m_peers.end();
        if (!furthest && !new_peer) continue;
        const std::string name = o.name.empty() ? m_ops.source().name_of(i0 + k) : o.name;
        op_use u;
        u.what = describe_op(name, o.kind, i0 + k);
        const bool own = !o.key.empty();
        u.key = own ? o.key : key;
        const source_loc at = own ? o.where : where;
        if (furthest) {
            m_furthest = u;
            m_furthest->end = end;
            if (own) {
                m_furthest->key += ".address";
                m_furthest->where = field_loc(m_given_list, i0 + k, "address", at);
            } else {
                m_furthest->where = at;
            }
        }
        if (new_peer) {
            const char* field = o.kind == op_kind::SEND ? "to" : "from";
            op_use p = u;
            if (own) {
                p.key += std::string(".") + field;
                p.where = field_loc(m_given_list, i0 + k, field, at);
            } else {
                p.where = at;
            }
            p.end = o.peer;
            m_peers.emplace(o.peer, p);
        }
    }
}

void host_cpu::validate_peers(const peer_view& peers) const {
    if (m_furthest) {
        std::string via;
        const ip_module* mem_block = peers.memory_behind(*this, "mem", &via);
        const std::uint64_t size = mem_block == nullptr ? 0 : mem_block->address_space();
        if (size > 0 && m_furthest->end > size) {
            throw input_error(m_furthest->where, m_furthest->key,
                              m_furthest->what + " reaches host address " +
                                  hex(m_furthest->end - 1) + ", beyond " + mem_block->path() +
                                  " (the memory " + path() + ".mem reaches" +
                                  (via.empty() ? "" : " through " + via) + "), which holds " +
                                  size_text(size) + ": addresses 0x0.." + hex(size - 1));
        }
    }
    if (m_first_allreduce) {
        const ip_module* nic = peers.target_of(*this, "nic");
        const auto* caps = dynamic_cast<const nic_capabilities*>(nic);
        if (caps == nullptr || !caps->takes_allreduce_ops()) {
            const op_use& u = *m_first_allreduce;
            throw input_error(u.where, u.key,
                              u.what + " hands an all-reduce to " +
                                  (nic == nullptr ? std::string("the NIC")
                                                  : nic->path() + " (" + nic->type().name + ")") +
                                  ", which runs none: allreduce ops need a smart NIC "
                                  "(fpga.allreduce) or a flow-level fabric (fabric.flow) on " +
                                  path() +
                                  ".nic; with another NIC write the all-reduce as sends "
                                  "and receives, or use workload.training");
        }
    }
    const std::vector<std::uint32_t>& ids = peers.op_node_ids();
    for (const auto& kv : m_peers) {
        if (kv.first == m_node_id) {
            const op_use& u = kv.second;
            throw input_error(u.where, u.key,
                              u.what + " names node " + std::to_string(kv.first) + ", " + path() +
                                  "'s own: a host sends to and receives from other nodes only "
                                  "(its NIC has no loopback)");
        }
        if (std::binary_search(ids.begin(), ids.end(), kv.first)) continue;
        std::string list;
        for (std::size_t i = 0; i < ids.size() && i < 16; ++i) {
            list += (i ? ", " : "") + std::to_string(ids[i]);
        }
        if (ids.size() > 16) list += ", ... (" + std::to_string(ids.size()) + " in all)";
        const op_use& u = kv.second;
        throw input_error(u.where, u.key,
                          u.what + " names node " + std::to_string(kv.first) +
                              ", but no block that runs ops has that node_id; the nodes are " +
                              list);
    }
}

void host_cpu::declare_messages(ops::message_pairing& pairs) const {
    for (const given_message& m : m_given_messages) {
        if (m.kind == op_kind::SEND) {
            pairs.add_send(m.e);
        } else if (m.kind == op_kind::RECV) {
            pairs.add_recv(m.e);
        } else {
            pairs.add_allreduce(m.e);
        }
    }
}

ip_module::message_site host_cpu::site_of_message(std::size_t index, const char* field) const {
    const config_node* op = m_written_list != nullptr && index < m_written_list->items().size()
                                ? &m_written_list->items()[index]
                                : nullptr;
    message_site s;
    s.what = describe(index);
    s.key = m_written_key + "[" + std::to_string(index) + "]." + field;
    s.where =
        field_loc(m_written_list, index, field, op != nullptr ? op->loc() : m_written_list->loc());
    return s;
}

void host_cpu::check_units(const std::vector<ops::op>& list, std::size_t i0,
                           const source_loc& where, const std::string& key) {
    const bool has_accel = is_bound(accel);
    m_has_accel = has_accel;
    const bool has_nic = is_bound(nic);
    const bool has_notify = is_bound(nic_notify.get_base_port());
    for (std::size_t k = 0; k < list.size(); ++k) {
        const ops::op& o = list[k];
        std::string problem;
        if ((o.kind == op_kind::GPU_COMPUTE || o.kind == op_kind::COPY_TO_GPU ||
             o.kind == op_kind::COPY_TO_HOST) &&
            !has_accel) {
            problem = "runs on the accelerator, but " + path() +
                      ".accel is not bound (connect it to an accelerator's ctrl socket)";
        } else if ((o.kind == op_kind::SEND || o.kind == op_kind::RECV ||
                    o.kind == op_kind::ALLREDUCE) &&
                   !has_nic) {
            problem = "needs a NIC, but " + path() + ".nic is not bound";
        } else if ((o.kind == op_kind::SEND || o.kind == op_kind::RECV ||
                    o.kind == op_kind::ALLREDUCE) &&
                   !has_notify) {
            problem = "needs a NIC, but " + path() +
                      ".nic_notify is not bound (the NIC could not report completions)";
        } else if ((o.kind == op_kind::COMPUTE || o.kind == op_kind::SUM ||
                    o.kind == op_kind::UPDATE) &&
                   o.unit == op_unit::COMM && m_comm_cores == 0) {
            problem = "runs on unit comm, but " + path() + " has comm_cores: 0";
        }
        if (problem.empty()) continue;
        // A generated op may come unnamed (no timeline): its source still names it.
        const std::string name = o.name.empty() ? m_ops.source().name_of(i0 + k) : o.name;
        const std::string what = describe_op(name, o.kind, i0 + k) + " " + problem;
        throw o.key.empty() ? input_error(where, key, what) : input_error(o.where, o.key, what);
    }
}

void host_cpu::accept_data(std::uint64_t address, std::vector<std::uint8_t> bytes,
                           const source_loc& where, const std::string& key) {
    if (m_has_data) throw input_error(where, key, "the data of " + path() + " is given twice");
    m_data_address = address;
    m_data = std::move(bytes);
    m_has_data = true;
}

std::uint8_t* host_cpu::data_at(std::uint64_t address, std::uint64_t bytes) {
    if (!m_has_data || address < m_data_address ||
        address - m_data_address + bytes > m_data.size()) {
        return nullptr;
    }
    return m_data.data() + (address - m_data_address);
}

// Functional mode: what a completed RECV (or the SUM reading it) does to the region.
void host_cpu::apply_received(std::size_t i, const slot& o) {
    if (o.kind == op_kind::SUM) {
        if (o.sum_source == 0) return;
        auto it = m_recv_data.find(i - o.sum_source);
        if (it == m_recv_data.end()) return;
        std::uint8_t* dst = data_at(o.address, o.bytes);
        if (dst != nullptr && it->second) {
            for (std::uint64_t k = 0; k + 4 <= o.bytes; k += 4) {
                float a = 0.0f, b = 0.0f;
                std::memcpy(&a, dst + k, 4);
                std::memcpy(&b, it->second->data() + k, 4);
                a += b;
                std::memcpy(dst + k, &a, 4);
            }
        }
        m_recv_data.erase(it);
        return;
    }
    if (m_ops.status_of(i).recv_summed) return;  // its SUM adds it
    auto it = m_recv_data.find(i);
    if (it == m_recv_data.end()) return;
    std::uint8_t* dst = data_at(o.address, o.bytes);
    if (dst != nullptr && it->second) std::memcpy(dst, it->second->data(), o.bytes);
    m_recv_data.erase(it);
}

void host_cpu::wait_until(const sc_time& t) {
    const sc_time now = sim_now();
    if (t > now) wait(t - now);
}

void host_cpu::wake(std::size_t u, const sc_time& at) {
    const sc_time now = sim_now();
    m_engine[u].wake(at > now ? at - now : sc_core::SC_ZERO_TIME);
}

void host_cpu::mark_done(std::size_t i, op_kind k, const sc_time& at) {
    m_ops.complete(i, at.value());
    ++m_done;
    if (at > m_last_done) m_last_done = at;
    ++*m_ops_of[static_cast<std::size_t>(k)];
    progress_until(at);
    for (std::size_t u = 0; u < ops::k_op_units; ++u) {
        if (m_waits_for[u] == i) wake(u, at);
    }
    if (m_done == m_ops.total()) m_finish.wake(sc_core::SC_ZERO_TIME);
    m_ops.retire_chunks();
}

void host_cpu::record(const unit_run& r, op_unit u) {
    const slot& o = r.what;
    const std::size_t i = r.op;
    const sc_time& start = r.start;
    const sc_time& unit_free = r.end;
    const double t = ns(unit_free - start);
    if (m_ops.records_runs()) {
        op_window::run_record& rec = m_ops.record_of(i);
        rec.released_ps = unit_free.value();
        rec.arrival_ps = r.arrival.value();
        rec.msg_id = r.msg_id;
    }
    m_busy_ns[index_of(u)]->add(t);
    m_busy[index_of(u)]->busy(start, unit_free);
    switch (o.kind) {
        case op_kind::COMPUTE:
        case op_kind::GPU_COMPUTE:
            m_compute_ns.add(t);
            break;
        case op_kind::SEND:
        case op_kind::RECV:
        case op_kind::ALLREDUCE:
            m_comm_ns.add(t);
            break;
        case op_kind::COPY_TO_HOST:
        case op_kind::COPY_TO_GPU:
            m_copy_ns.add(t);
            break;
        case op_kind::SUM:
            m_sum_ns.add(t);
            break;
        case op_kind::UPDATE:
            m_update_ns.add(t);
            break;
        case op_kind::DELAY:
            m_delay_ns.add(t);
            break;
    }
    if (ctx().spans().enabled()) {
        std::string label = m_ops.name_of(i);
        if (label.empty())
            label = std::string(ops::kind_name(o.kind)) + " [" + std::to_string(i) + "]";
        // Its breakdown phase names the category (forward, backward, comm, ...); an op of no
        // named phase keeps its kind's (a plain delay: "delay").
        span_args args;
        args.op = ops::kind_name(o.kind);
        args.node = static_cast<std::int64_t>(m_node_id);
        switch (o.kind) {
            case op_kind::SEND:
            case op_kind::RECV:
                args.dir = o.kind == op_kind::SEND ? span_args::flow::SEND : span_args::flow::RECV;
                args.peer = o.peer;
                args.tag = o.tag;
                args.bytes = static_cast<std::int64_t>(o.bytes);
                break;
            case op_kind::COMPUTE:
            case op_kind::GPU_COMPUTE:
                args.flops = o.flops;
                break;
            case op_kind::DELAY:
                break;
            default:
                args.bytes = static_cast<std::int64_t>(o.bytes);
                break;
        }
        span(track(u), label,
             o.phase == ops::op_phase::OTHER ? ops::category(o.kind) : ops::phase_name(o.phase),
             start, unit_free, args);
    }
}

void host_cpu::span(const std::string& track_path, const std::string& name, const std::string& cat,
                    const sc_time& start, const sc_time& end, const span_args& args) {
    ctx().spans().span(track_path, name, cat, start.value(), end.value(), args);
}

// A unit is an engine, not a thread (no stack of its own to switch to, which at scale is what an
// op costs most): it runs its ops in list order, keeping its place in m_units[u] and sleeping
// (sleep_until, park) where a thread would wait.
void host_cpu::unit_step(op_unit u) {
    const std::size_t w = index_of(u);
    unit_run& r = m_units[w];
    const sc_time now = sim_now();  // an engine's activation takes no time
    while (true) {
        switch (r.phase) {
            case unit_phase::NEXT: {
                // Out of ops: the next chunk (iteration) holds this unit's next ones.
                if (!m_ops.fill(w)) return;  // done: no trigger, the unit never runs again
                r.op = m_ops.unit_ops(w).front();
                r.what = m_ops.op_at(r.op);
                m_ops.prefetch_ahead(w);
                r.dep = 0;
                r.ready = now;
                r.arrival = sc_core::SC_ZERO_TIME;
                r.received_bytes = 0;
                r.msg_id = 0;
                r.phase = unit_phase::DEPS;
                break;
            }
            case unit_phase::DEPS: {
                // Every op in `after` done, and its completion time reached.
                const std::size_t i = r.op;
                for (; r.dep < r.what.dep_count; ++r.dep) {
                    const std::size_t d = m_ops.dep(i, r.what, r.dep);
                    const op_status& ds = m_ops.status_of(d);
                    if (ds.state != op_state::DONE) {
                        m_waits_for[w] = d;
                        m_engine[w].park();
                        return;
                    }
                    r.ready = std::max(r.ready, ps_time(ds.done_ps));
                }
                m_waits_for[w] = k_none;
                r.phase = unit_phase::START;
                if (r.ready > now) {
                    m_engine[w].sleep_until(r.ready);
                    return;
                }
                break;
            }
            case unit_phase::START:
                start_op(r, u, now);
                break;
            case unit_phase::MEMORY:
                if (!memory_traffic(r.mem, m_streams[w], m_engine[w], now)) return;
                // A stack's sum is memory-bound on its core: its thread time covers the adds.
                r.end = r.stack_sum ? std::max(r.mem.last, r.stack_end)
                                    : r.mem.last + (r.what.kind == op_kind::COMPUTE
                                                        ? slowed(compute_time(r.what.flops, u))
                                                        : compute_time(r.what.flops, u));
                r.end += r.stolen;
                progress_until(r.end);
                r.phase = unit_phase::FINISH;
                break;
            case unit_phase::RECV_MATCH: {
                const slot& o = r.what;
                // nic_notify_b_transport wakes this unit at the arrival of its message.
                if (!m_ops.status_of(r.op).matched) {
                    m_engine[w].park();
                    return;
                }
                if (r.received_bytes != o.bytes) {
                    throw sim_error(path() + ": " + describe(r.op) + " expects " +
                                    std::to_string(o.bytes) + " B from node " +
                                    std::to_string(o.peer) + " with tag " + std::to_string(o.tag) +
                                    ", but the message has " + std::to_string(r.received_bytes) +
                                    " B");
                }
                if (r.arrival < r.start) ++m_unexpected_count;
                const sc_time ready = r.start + ps_time(m_stack_params.recv_overhead.ps);
                r.end = std::max(ready, r.arrival);
                m_recv_wait_ns.sample(ns(r.end - ready));
                progress_until(r.end);
                r.phase = unit_phase::FINISH;
                break;
            }
            case unit_phase::FINISH:
                if (r.end > now) {
                    m_engine[w].sleep_until(r.end);
                    r.phase = unit_phase::FINISHED;
                    return;
                }
                [[fallthrough]];
            case unit_phase::FINISHED:
                // Interrupt work on the compute cores (steal_for_interrupts) may have moved
                // the end on while the engine slept.
                if (r.end > now) {
                    m_engine[w].sleep_until(r.end);
                    return;
                }
                finish_op(r, u);
                m_ops.pass(w);
                m_ops.retire_chunks();
                r.phase = unit_phase::NEXT;
                break;
        }
    }
}

void host_cpu::start_op(unit_run& r, op_unit u, const sc_time& now) {
    const std::size_t i = r.op;
    const slot& o = r.what;
    m_ops.status_of(i).state = op_state::RUNNING;
    r.start = now;
    // Recorded now too: a run stopped while the op runs reports when it started.
    if (m_ops.records_runs()) m_ops.record_of(i).started_ps = now.value();
    r.phase = unit_phase::FINISH;
    switch (o.kind) {
        case op_kind::COMPUTE:
        case op_kind::SUM:
        case op_kind::UPDATE: {
            // paleo.md eq. 1: a layer's time is its memory time plus its compute time, in
            // sequence.
            m_streams[index_of(u)].window.clear();
            r.stolen = sc_core::SC_ZERO_TIME;
            r.mem = traffic(o.address, o.bytes, o.read_passes, o.write_passes, now,
                            m_stream_bandwidth.bytes_per_s);
            r.stack_sum = o.kind == op_kind::SUM && m_stack->runs_sums();
            if (r.stack_sum) {
                // The reduction runs on a progress thread (comm_stack.h): from when the thread
                // takes it, at one core's bandwidth; from the cache, no DRAM traffic.
                const comm_stack::sum_timing t = m_stack->sum(now.value(), o.bytes, o.read_passes);
                r.start = ps_time(t.start_ps);
                r.mem.start = r.mem.last = r.start;
                r.stack_end = ps_time(t.end_ps);
                r.mem.pace = t.bytes_per_s;
                m_stack_busy_ns.add(static_cast<double>(t.end_ps - t.start_ps) * 1e-3);
                if (t.cached) r.mem.pass = o.read_passes + o.write_passes;
            }
            r.phase = unit_phase::MEMORY;
            break;
        }
        case op_kind::GPU_COMPUTE:
        case op_kind::COPY_TO_HOST:
        case op_kind::COPY_TO_GPU:
            r.end = post_accel(r);
            progress_until(r.end);
            break;
        case op_kind::SEND:
        case op_kind::ALLREDUCE:  // posted like a send; done at the NIC's SEND_DONE
            r.end = post_send(r);
            progress_until(r.end);
            break;
        case op_kind::RECV: {
            // A message that the NIC reported before this receive was posted waits in the
            // unexpected queue (first come, first matched, as MPI orders messages of one source
            // and tag); otherwise the receive is posted for the NIC's RECEIVED.
            message_matcher::arrival a;
            if (m_messages.post_recv(index_of(u), i, o.peer, o.tag, a)) {
                take_message(r, ps_time(a.at_ps), a.bytes, a.msg_id, a.data);
            }
            r.phase = unit_phase::RECV_MATCH;
            break;
        }
        case op_kind::DELAY:
            // A measured pass on the gpu unit runs on the accelerator as a kernel of that
            // duration, so that its compute engine shows the time (accel_op_ext::duration_ps).
            r.end = o.unit == op_unit::GPU && m_has_accel ? post_accel(r)
                                                          : now + slowed(ps_time(o.delay_ps));
            progress_until(r.end);
            break;
    }
}

void host_cpu::take_message(unit_run& r, const sc_time& at, std::uint64_t bytes,
                            std::uint64_t msg_id,
                            const std::shared_ptr<std::vector<std::uint8_t>>& data) {
    m_ops.status_of(r.op).matched = true;
    r.arrival = at;
    r.received_bytes = bytes;
    r.msg_id = msg_id;
    if (data) m_recv_data[r.op] = data;
}

void host_cpu::finish_op(const unit_run& r, op_unit u) {
    const std::size_t i = r.op;
    const slot& o = r.what;
    switch (o.kind) {
        case op_kind::COMPUTE:
        case op_kind::SUM:
        case op_kind::UPDATE:
            m_flops.add(o.flops);
            if (o.kind == op_kind::SUM) apply_received(i, o);
            break;
        case op_kind::COPY_TO_GPU:
            m_bytes_to_gpu += o.bytes;
            break;
        case op_kind::COPY_TO_HOST:
            m_bytes_to_host += o.bytes;
            break;
        case op_kind::SEND:
        case op_kind::ALLREDUCE:
            // The unit is free once the NIC holds the descriptor; the op is done at SEND_DONE.
            record(r, u);
            return;
        case op_kind::RECV: {
            m_bytes_received += o.bytes;
            if (auto it = m_recv_data.find(i);
                it != m_recv_data.end() && it->second->size() < o.bytes) {
                throw sim_error(path() + ": " + describe(i) + " got " +
                                std::to_string(it->second->size()) + " B of data for " +
                                std::to_string(o.bytes) + " B");
            }
            apply_received(i, o);
            break;
        }
        case op_kind::GPU_COMPUTE:
        case op_kind::DELAY:
            break;
    }
    record(r, u);
    mark_done(i, o.kind, r.end);
}

void host_cpu::finish_when_done() {
    if (m_finished || m_done < m_ops.total()) {
        m_finish.park();  // mark_done wakes it when the last op is done
        return;
    }
    const sc_time now = sim_now();
    if (now < m_last_done) {
        m_finish.sleep_until(m_last_done);
        return;
    }
    m_finished = true;
    m_completion_ns.set(ns(m_last_done));
    notify_finished();
    m_finish.park();
}

sc_time host_cpu::slowed(const sc_time& t) const {
    if (m_slowdown == 1.0) return t;
    return ps_time(
        static_cast<std::uint64_t>(std::llround(static_cast<double>(t.value()) * m_slowdown)));
}

sc_time host_cpu::compute_time(double flops, op_unit u) const {
    const std::uint64_t k = u == op_unit::COMM ? m_comm_cores : m_cores - m_comm_cores;
    // The cores of a unit share peak in proportion: a core split slows compute by exactly
    // cores / (cores - comm_cores) (smartnic.md Fig. 2a's shaded slow-down).  paleo.md eq. 1's
    // C on the device model, the unit a device of peak x efficiency x k / cores (the PPP taken
    // into its peak); the ops' memory traffic is timed by `mem` (memory_traffic).
    models::device_model unit;
    unit.peak_flops =
        m_peak.flops_per_s * m_efficiency * static_cast<double>(k) / static_cast<double>(m_cores);
    return ps_time(unit.compute_ps(flops));
}

bool host_cpu::memory_traffic(traffic& r, memory_stream& ms, wake_queue::engine& e,
                              const sc_time& now) {
    const std::uint32_t passes = r.reads + r.writes;
    if (r.bytes == 0 || passes == 0) return true;
    const std::uint64_t chunk = m_memory_chunk.bytes;
    const sc_time quantum = tlm::tlm_global_quantum::instance().get();
    flat_queue<sc_time>& window = ms.window;  // completions of the last memory_outstanding chunks
    tlm::tlm_generic_payload& trans = ms.trans;
    const std::size_t need = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, r.bytes));
    if (ms.scratch_size < need) {
        // Not zero-filled: a timing-mode memory never touches it, so it costs address space,
        // not resident memory (a 1024-host run with a large memory_chunk).
        ms.scratch.reset(new unsigned char[need]);
        ms.scratch_size = need;
    }
    for (; r.pass < passes; ++r.pass, r.off = 0) {
        const bool write = r.pass >= r.reads;
        for (; r.off < r.bytes; r.off += chunk) {
            const std::uint64_t len = std::min(chunk, r.bytes - r.off);
            if (!r.issue_due) {
                r.issue = r.start;
                if (window.size() == m_memory_outstanding) {
                    r.issue = std::max(r.issue, window.front());
                    window.pop_front();
                }
                if (r.pace > 0) {
                    r.issue = std::max(
                        r.issue,
                        r.start + ps_time(units::bandwidth{r.pace}.transfer_time(r.issued).ps));
                }
                r.issued += len;  // bytes, over all passes, for stream_bandwidth's pacing
                // Stay within a quantum of the issue time so that other initiators of the same
                // memory (DMA engines) reserve it in roughly time order.
                if (r.issue > now && r.issue - now >= quantum) {
                    r.issue_due = true;
                    e.sleep_until(r.issue);
                    return false;
                }
            }
            r.issue_due = false;
            trans.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
            trans.set_address(r.address + r.off);
            trans.set_data_ptr(ms.scratch.get());
            trans.set_data_length(static_cast<unsigned>(len));
            trans.set_streaming_width(static_cast<unsigned>(len));
            trans.set_byte_enable_ptr(nullptr);
            trans.set_dmi_allowed(false);
            trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            sc_time delay = r.issue - now;
            mem->b_transport(trans, delay);
            if (trans.is_response_error()) {
                throw sim_error(path() + ": memory " + (write ? "write" : "read") + " of " +
                                std::to_string(len) + " B at " + std::to_string(r.address + r.off) +
                                " failed: " + trans.get_response_string());
            }
            const sc_time done = now + delay;
            window.push_back(done);
            r.last = std::max(r.last, done);
            m_memory_bytes += len;
        }
    }
    return true;
}

void host_cpu::steal_for_interrupts(std::uint64_t receive_work_ps, const sc_time& at) {
    if (m_stack_params.irq_share <= 0.0 || receive_work_ps == 0) return;
    unit_run& r = m_units[index_of(op_unit::CPU)];
    // Only a compute op running then loses the time (an idle core absorbs it; a measured pass,
    // a delay op, already holds whatever its measurement met).  The unit holds a running op
    // in its MEMORY, FINISH and FINISHED phases only.
    const bool memory = r.phase == unit_phase::MEMORY;
    const bool timed = r.phase == unit_phase::FINISH || r.phase == unit_phase::FINISHED;
    if (r.what.kind != op_kind::COMPUTE || !(memory || timed) || at < r.start ||
        (timed && at >= r.end)) {
        return;
    }
    const sc_time stolen = ps_time(static_cast<std::uint64_t>(
        std::llround(m_stack_params.irq_share * static_cast<double>(receive_work_ps))));
    if (memory) {
        r.stolen += stolen;  // added when its end is known
    } else {
        r.end += stolen;
        progress_until(r.end);
    }
    m_irq_stolen_ns.add(ns(stolen));
}

void host_cpu::copy_traffic(std::size_t thread, std::uint64_t start_ps, std::uint64_t end_ps,
                            std::uint64_t address, std::uint64_t message_bytes, std::uint64_t bytes,
                            bool write) {
    if (bytes == 0 || message_bytes == 0) return;
    copy_stream& c = *m_copies[thread];
    // Passes over the message's buffer: more traffic than the message (a copy_traffic above 1)
    // touches it again rather than beyond it.
    const std::uint32_t passes =
        static_cast<std::uint32_t>((bytes + message_bytes - 1) / message_bytes);
    const std::uint64_t per_pass = (bytes + passes - 1) / passes;
    // Spread evenly over the thread's work on the message (unpaced when it takes no time).
    const double pace = end_ps > start_ps ? static_cast<double>(per_pass * passes) * 1e12 /
                                                static_cast<double>(end_ps - start_ps)
                                          : 0.0;
    c.queued.push_back(traffic(address, per_pass, write ? 0u : passes, write ? passes : 0u,
                               ps_time(start_ps), pace));
    m_stack_memory_bytes += per_pass * passes;
    c.engine.wake(sc_core::SC_ZERO_TIME);
}

void host_cpu::copy_step(std::size_t thread) {
    copy_stream& c = *m_copies[thread];
    const sc_time now = sim_now();
    for (;;) {
        if (!c.issuing) {
            if (c.queued.empty()) {
                c.engine.park();
                return;
            }
            c.now = c.queued.front();
            c.queued.pop_front();
            c.ms.window.clear();
            c.issuing = true;
        }
        if (!memory_traffic(c.now, c.ms, c.engine, now)) return;
        c.issuing = false;
    }
}

tlm::tlm_generic_payload& host_cpu::command(op_unit u) {
    tlm::tlm_generic_payload& trans = m_streams[index_of(u)].trans;  // this unit's
    trans.set_command(tlm::TLM_WRITE_COMMAND);
    trans.set_data_ptr(nullptr);
    trans.set_data_length(0);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    return trans;
}

sc_time host_cpu::post_accel(const unit_run& r) {
    const slot& o = r.what;
    const std::size_t i = r.op;
    accel_op_ext ext;
    switch (o.kind) {
        case op_kind::GPU_COMPUTE:
            ext.what = accel_op_ext::kind::COMPUTE;
            break;
        case op_kind::DELAY:
            ext.what = accel_op_ext::kind::COMPUTE;
            ext.duration_ps = o.delay_ps;
            break;
        case op_kind::COPY_TO_HOST:
            ext.what = accel_op_ext::kind::COPY_TO_HOST;
            break;
        default:
            ext.what = accel_op_ext::kind::COPY_TO_GPU;
            break;
    }
    ext.flops = o.flops;
    ext.bytes = o.bytes;
    ext.host_addr = o.address;
    tlm::tlm_generic_payload& trans = command(o.unit);
    trans.set_extension(&ext);
    sc_time delay = sc_core::SC_ZERO_TIME;
    accel->b_transport(trans, delay);
    trans.clear_extension(&ext);
    if (trans.is_response_error()) {
        throw sim_error(path() + ": " + describe(i) +
                        " failed in the accelerator: " + trans.get_response_string());
    }
    return sim_now() + delay;
}

sc_time host_cpu::post_send(unit_run& r) {
    const slot& o = r.what;  // the unit's copy: valid after a SEND_DONE within b_transport
    const std::size_t i = r.op;
    message_matcher::pending_send p;
    p.op = i;
    p.started_ps = r.start.value();
    p.bytes = o.bytes;
    p.address = o.address;
    p.kind = o.kind;
    p.tos = o.tos;
    r.msg_id = m_messages.post_send(p);
    if (m_ops.records_runs()) m_ops.record_of(i).msg_id = r.msg_id;
    // The unit moves on once it has spent stack.send_overhead on the send; the op completes at
    // SEND_DONE, which may even arrive before b_transport returns.
    m_ops.status_of(i).state = op_state::ISSUED;
    nic_msg_ext ext;
    const bool allreduce = o.kind == op_kind::ALLREDUCE;
    ext.what = allreduce ? nic_msg_ext::op::ALLREDUCE : nic_msg_ext::op::SEND;
    ext.peer = o.peer;
    ext.bytes = o.bytes;
    ext.tos = o.tos;
    ext.msg_id = r.msg_id;
    ext.host_addr = o.address;
    ext.tag = o.tag;
    // The software (comm_stack): the message reaches the NIC once the protocol (rendezvous) and
    // a progress thread let its data go, and leaves no faster than that thread hands its bytes
    // over.  A hardware all-reduce has only the call's overhead.
    const std::uint64_t posted = r.start.value();
    comm_stack::send_timing t;
    if (allreduce) {
        t.handed_ps = t.start_ps = posted + m_stack_params.send_overhead.ps;
    } else {
        t = m_stack->send(posted, o.bytes);
        m_stack_busy_ns.add(static_cast<double>(t.end_ps - t.start_ps) * 1e-3);
        if (!m_copies.empty()) {
            copy_traffic(t.thread, t.start_ps, t.end_ps, o.address, o.bytes,
                         m_stack->copy_traffic(o.bytes, true), false);
        }
    }
    ext.pace_bytes_per_s = t.pace_bytes_per_s;
    if (const std::uint8_t* src = data_at(o.address, o.bytes)) {
        // Functional: the range as it stands now (the op waited for its last writer).
        ext.data = std::make_shared<std::vector<std::uint8_t>>(src, src + o.bytes);
    }
    tlm::tlm_generic_payload& trans = command(o.unit);
    trans.set_extension(&ext);
    sc_time delay =
        ps_time(t.start_ps) > sim_now() ? ps_time(t.start_ps) - sim_now() : sc_core::SC_ZERO_TIME;
    nic->b_transport(trans, delay);
    trans.clear_extension(&ext);
    if (trans.is_response_error()) {
        throw sim_error(path() + ": " + describe(i) +
                        (allreduce ? std::string() : " to node " + std::to_string(o.peer)) +
                        " was refused by the NIC: " + trans.get_response_string());
    }
    return ps_time(t.handed_ps);
}

void host_cpu::nic_notify_b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
    nic_msg_ext* ext = nullptr;
    trans.get_extension(ext);
    if (ext == nullptr) {
        trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    sc_time at = sim_now() + delay;
    if (ext->what == nic_msg_ext::op::SEND_DONE) {
        message_matcher::pending_send p;
        if (!m_messages.complete_send(ext->msg_id, p)) {
            throw sim_error(path() + ": SEND_DONE for message " + std::to_string(ext->msg_id) +
                            ", which this host never sent or has completed");
        }
        // Posted when its unit had spent send_overhead on it.
        m_send_latency_ns.sample(
            ns(at - (ps_time(p.started_ps) + ps_time(m_stack_params.send_overhead.ps))));
        if (p.kind == op_kind::SEND) m_bytes_sent += p.bytes;
        // Functional, compressed: the NIC returns the payload as its receivers decode it; the
        // sender keeps the same values (ip/nic/inceptionn_nic.h).
        if (ext->data && p.tos == k_tos_compressible) {
            std::uint8_t* dst = data_at(p.address, p.bytes);
            if (dst != nullptr && ext->data->size() == p.bytes) {
                std::memcpy(dst, ext->data->data(), p.bytes);
            }
        }
        mark_done(p.op, p.kind, at);
    } else if (ext->what == nic_msg_ext::op::RECEIVED) {
        // The software takes the message as it lands (comm_stack): it is the receive's from
        // then.  A NIC that does not say when the first byte landed: with the last.
        const std::uint64_t first = ext->first_ps != 0 ? ext->first_ps : at.value();
        const std::uint64_t busy_before = m_stack->busy_ps();
        comm_stack::work w;
        at = ps_time(m_stack->receive(first, at.value(), ext->bytes, &w));
        m_stack_busy_ns.add(static_cast<double>(m_stack->busy_ps() - busy_before) * 1e-3);
        progress_until(at);  // the run is busy until then (the stall watchdog)
        steal_for_interrupts(w.end_ps - w.start_ps, at);
        // A receive running on a unit takes the message; otherwise it is unexpected.
        const std::size_t u = m_messages.receive(ext->peer, ext->tag);
        if (!m_copies.empty()) {
            // The copy writes the posted receive's buffer; an unexpected message goes to a
            // buffer of MPI's own (its address changes no timing: the start of host memory).
            copy_traffic(w.thread, w.start_ps, w.end_ps, u != k_none ? m_units[u].what.address : 0,
                         ext->bytes, m_stack->copy_traffic(ext->bytes, false), true);
        }
        if (u != k_none) {
            take_message(m_units[u], at, ext->bytes, ext->msg_id, ext->data);
            wake(u, at);
        } else {
            message_matcher::arrival a;
            a.peer = ext->peer;
            a.tag = ext->tag;
            a.bytes = ext->bytes;
            a.at_ps = at.value();
            a.data = ext->data;
            a.msg_id = ext->msg_id;
            m_messages.add_unexpected(std::move(a));
        }
    } else {
        trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    progress();
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

std::string host_cpu::pending_work() const {
    if (m_finished) return {};
    std::vector<std::string> parts;
    for (std::size_t u = 0; u < ops::k_op_units; ++u) {
        if (m_ops.unit_ops(u).empty()) continue;
        const std::size_t i = m_ops.unit_ops(u).front();
        const slot& s = m_ops.op_at(i);
        const op_status& st = m_ops.status_of(i);
        std::string what =
            std::string(ops::unit_name(static_cast<op_unit>(u))) + ": " + describe(i) + " ";
        if (st.state == op_state::WAITING) {
            std::vector<std::string> deps;
            for (std::uint32_t k = 0; k < s.dep_count; ++k) {
                if (m_ops.status_of(m_ops.dep(i, k)).state != op_state::DONE) {
                    deps.push_back(describe(m_ops.dep(i, k)));
                }
            }
            what += deps.empty() ? "waits to start" : "waits for " + join(deps);
        } else if (s.kind == op_kind::RECV && !st.matched) {
            what += "waits for its message from node " + std::to_string(s.peer) + " with tag " +
                    std::to_string(s.tag) + " (posted at " + m_units[u].start.to_string() + ")";
        } else {
            what += "is running (started at " + m_units[u].start.to_string() + ")";
        }
        what += ", " + std::to_string(m_ops.more_after_front(u)) + " more after it";
        parts.push_back(what);
    }
    if (m_messages.sends_pending() > 0) {
        std::vector<std::string> sends;
        for (const std::size_t op : m_messages.pending_send_ops()) sends.push_back(describe(op));
        parts.push_back(std::to_string(sends.size()) + " send" + (sends.size() == 1 ? "" : "s") +
                        " await SEND_DONE: " + join(sends));
    }
    if (parts.empty()) return std::to_string(m_ops.total() - m_done) + " ops not complete";
    return join(parts, "; ");
}

workloads::host_run host_cpu::ran() {
    return m_ops.ran(path(), static_cast<std::uint32_t>(m_node_id));
}

void host_cpu::expect_data(std::uint64_t address, std::vector<double> expected,
                           std::vector<double> allowance) {
    if (!m_has_data || allowance.size() != expected.size() || address < m_data_address ||
        address - m_data_address + expected.size() * 4 > m_data.size()) {
        throw std::logic_error(path() + ": expect_data outside the block's data");
    }
    m_expected_address = address;
    m_expected = std::move(expected);
    m_allowance = std::move(allowance);
}

void host_cpu::audit(audit_log& log) const {
    if (!m_expected.empty()) {
        // Every value within its allowance of the exact result; the message names the worst.
        const std::uint8_t* base = m_data.data() + (m_expected_address - m_data_address);
        std::size_t bad = 0, worst = 0;
        double worst_excess = -1.0;
        for (std::size_t i = 0; i < m_expected.size(); ++i) {
            float v;
            std::memcpy(&v, base + 4 * i, 4);
            const double excess =
                std::fabs(static_cast<double>(v) - m_expected[i]) - m_allowance[i];
            if (!(excess <= 0.0)) ++bad;  // NaN counts as a violation
            if (!(excess <= worst_excess)) {
                worst_excess = excess;
                worst = i;
            }
        }
        std::string detail;
        if (bad > 0) {
            float v;
            std::memcpy(&v, base + 4 * worst, 4);
            char buf[256];
            std::snprintf(buf, sizeof buf,
                          "%zu of %zu values outside their bound; the worst, value %zu, is %.9g, "
                          "the exact result %.9g, allowed +-%.3g",
                          bad, m_expected.size(), worst, static_cast<double>(v), m_expected[worst],
                          m_allowance[worst]);
            detail = buf;
        }
        log.check(path(), "functional result equals the reference within the codecs' bound",
                  bad == 0, detail);
    }
    log.check(path(), "every op done (every collective completed on this rank)",
              m_done == m_ops.total(),
              std::to_string(m_done) + " of " + std::to_string(m_ops.total()) + " done");
    const std::size_t unexpected = m_messages.unexpected();
    log.check(path(), "every arrived message received", unexpected == 0,
              std::to_string(unexpected) + " message(s) nobody received, the first from node " +
                  (unexpected == 0 ? std::string("-")
                                   : std::to_string(m_messages.first_unexpected().peer)));
    log.check(path(), "every send completed", m_messages.sends_pending() == 0,
              std::to_string(m_messages.sends_pending()) + " without SEND_DONE");
}

void host_cpu::end_of_run() {
    if (!m_finished) m_completion_ns.set(ns(m_last_done));
}

TRAINVP_REGISTER_IP(host_cpu, "host.cpu");

}  // namespace trainvp::ip
