// One operation of a node's op stream: what runs, on which unit, after which earlier ops, and
// the amounts it moves or computes.  Pure C++ (no SystemC): the host block times ops; the
// parser, the iteration builder and tests only need the data and the derived work counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "workloads/ops/dep_list.h"

namespace trainvp::ops {

enum class op_kind : std::uint8_t {
    COMPUTE,       // CPU work: flops, plus bytes of memory traffic
    GPU_COMPUTE,   // accelerator work: flops, plus bytes of accelerator-memory traffic
    COPY_TO_HOST,  // accelerator -> host memory, by the accelerator's copy engine
    COPY_TO_GPU,   // host memory -> accelerator
    SUM,           // gradient summation of `inputs` fp32 buffers of `bytes` each
    UPDATE,        // SGD-with-momentum weight update of `bytes` of fp32 weights
    SEND,          // a message to another node, through the NIC
    RECV,          // a message from another node
    DELAY,         // a fixed time (calibration, a measured phase)
    // A non-blocking all-reduce of `bytes` of fp32 gradients at `address`, offloaded to the
    // node's smart NIC (smartnic.md Fig. 3b: "a thread launches a non-blocking all-reduce
    // request ... specifying the start memory address and number of the weight gradients").
    // The unit is free once the request is posted; the op is done when the NIC reports
    // completion, so ops `after` it are the blocking wait.
    ALLREDUCE,
};

// The units a host runs ops on.  Ops on one unit run in list order; units run concurrently.
enum class op_unit : std::uint8_t {
    CPU,   // the compute cores (cores - comm_cores of them)
    COMM,  // the communication cores (comm_cores): message bookkeeping, optionally sums/updates
    GPU,   // the accelerator's compute engine
    COPY,  // the accelerator's copy engine
};

// What an op's time counts as in the iteration breakdown (workloads/iteration/critical_path.h).
// AUTO takes it from the kind (see phase_of); the training builder names forward and backward.
enum class op_phase : std::uint8_t {
    AUTO,
    FORWARD,      // forward pass of a layer
    BACKWARD,     // backward pass of a layer
    COMPUTE,      // other computation
    COPY,         // host <-> accelerator copies
    SUM,          // gradient summation
    COMM,         // sends and receives (and the network time they wait for)
    COMPRESSION,  // software compression or decompression of messages
    UPDATE,       // weight update
    OTHER,        // anything else (a delay op not named as a phase)
};

constexpr std::size_t k_op_kinds = 10;
constexpr std::size_t k_op_units = 4;
constexpr std::size_t k_op_phases = 10;  // AUTO included

// Config spellings: "compute", "gpu_compute", ..., and "cpu", "comm", "gpu", "copy".
const char* kind_name(op_kind k);
const char* unit_name(op_unit u);
std::vector<std::string> kind_names();
std::vector<std::string> unit_names();

// Where an op may run; the first is its default.
std::vector<op_unit> allowed_units(op_kind k);
// Timeline category: compute, comm, copy, sum, update or delay.
const char* category(op_kind k);
// Config spellings of the phases: "auto", "forward", ..., "other".
const char* phase_name(op_phase p);
std::vector<std::string> phase_names();

struct op {
    // Provided, so that a value-initialised op (`list.emplace_back()`) is not zero-filled
    // before its members' initialisers run (every member has one): a generated list makes
    // 5 M ops at set-up and the zero-fill was half of the expansion's time.
    op() noexcept {}

    std::string name;  // empty when the config gave none
    op_kind kind = op_kind::DELAY;
    op_unit unit = op_unit::CPU;
    dep_list after;  // indices of earlier ops in the same list

    double flops = 0.0;          // COMPUTE, GPU_COMPUTE (SUM and UPDATE: see work_flops)
    std::uint64_t bytes = 0;     // traffic, buffer, copy or message size
    std::uint64_t address = 0;   // host address of the buffer
    std::uint32_t peer = 0;      // SEND: destination node id; RECV: source node id
    std::uint32_t tag = 0;       // SEND/RECV matching; ALLREDUCE: a label for the request
    std::uint8_t tos = 0;        // SEND: IP ToS of the message's frames
    std::uint32_t inputs = 2;    // SUM: buffers summed into one
    std::uint64_t delay_ps = 0;  // DELAY
    op_phase phase = op_phase::AUTO;

    source_loc where;  // the op's map in the config
    std::string key;   // its full key: "workload.ops.node[0].host[3]"

    // "name" or, for an unnamed op, "kind [i]" with i its index in the list.
    std::string label(std::size_t index) const;
};

// The derived counts below are inline: host.cpu asks them of every op it takes in (5 M at a
// 1024-node ring's set-up), and a call into this library cost more than the switch.

// The breakdown phase of an op: its own when set, else from its kind (compute and gpu_compute
// COMPUTE, copies COPY, sum SUM, update UPDATE, send and recv COMM, delay OTHER).
inline op_phase phase_of(const op& o) {
    if (o.phase != op_phase::AUTO) return o.phase;
    switch (o.kind) {
        case op_kind::COMPUTE:
        case op_kind::GPU_COMPUTE:
            return op_phase::COMPUTE;
        case op_kind::COPY_TO_HOST:
        case op_kind::COPY_TO_GPU:
            return op_phase::COPY;
        case op_kind::SUM:
            return op_phase::SUM;
        case op_kind::UPDATE:
            return op_phase::UPDATE;
        case op_kind::SEND:
        case op_kind::RECV:
        case op_kind::ALLREDUCE:
            return op_phase::COMM;
        case op_kind::DELAY:
            return op_phase::OTHER;
    }
    return op_phase::OTHER;
}

// The memory traffic of an op as whole passes over its buffer [address, address + bytes):
// COMPUTE reads `bytes` once (its traffic as given); SUM reads its `inputs` buffers and
// writes the result (inputs + 1 passes); UPDATE reads weights, gradients and momentum and
// writes weights and momentum (5 passes).  GPU_COMPUTE's bytes are accelerator-memory traffic
// and are counted here too (one read pass), though they never reach the host.
struct traffic {
    std::uint32_t read_passes = 0;
    std::uint32_t write_passes = 0;
};

inline traffic memory_traffic(const op& o) {
    switch (o.kind) {
        case op_kind::COMPUTE:
        case op_kind::GPU_COMPUTE:
            return {1, 0};
        case op_kind::SUM:
            return {o.inputs, 1};
        case op_kind::UPDATE:
            return {3, 2};
        default:
            return {0, 0};
    }
}

// Bytes of memory traffic: (read_passes + write_passes) * bytes.
inline std::uint64_t memory_bytes(const op& o) {
    const traffic t = memory_traffic(o);
    return static_cast<std::uint64_t>(t.read_passes + t.write_passes) * o.bytes;
}

// Floating-point operations: COMPUTE and GPU_COMPUTE as given; SUM of k buffers of n = bytes/4
// fp32 values: (k - 1) * n adds; UPDATE of n = bytes/4 weights with momentum mu and rate eta:
// v = mu*v + g and w = w - eta*v, 2 FLOPs each, so 4 * n.  Other kinds: 0.
inline double work_flops(const op& o) {
    const double n = static_cast<double>(o.bytes / 4);
    switch (o.kind) {
        case op_kind::COMPUTE:
        case op_kind::GPU_COMPUTE:
            return o.flops;
        case op_kind::SUM:
            return static_cast<double>(o.inputs - 1) * n;
        case op_kind::UPDATE:
            return 4.0 * n;
        default:
            return 0.0;
    }
}

}  // namespace trainvp::ops
