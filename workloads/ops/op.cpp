#include "workloads/ops/op.h"

#include <type_traits>

namespace trainvp::ops {

// A list of ops regrows (and a host takes one) by moving them: a throwing move would make
// std::vector copy every op instead, strings and all.
static_assert(std::is_nothrow_move_constructible_v<op>, "ops::op moves without throwing");

const char* kind_name(op_kind k) {
    switch (k) {
        case op_kind::COMPUTE:
            return "compute";
        case op_kind::GPU_COMPUTE:
            return "gpu_compute";
        case op_kind::COPY_TO_HOST:
            return "copy_to_host";
        case op_kind::COPY_TO_GPU:
            return "copy_to_gpu";
        case op_kind::SUM:
            return "sum";
        case op_kind::UPDATE:
            return "update";
        case op_kind::SEND:
            return "send";
        case op_kind::RECV:
            return "recv";
        case op_kind::DELAY:
            return "delay";
        case op_kind::ALLREDUCE:
            return "allreduce";
    }
    return "?";
}

const char* unit_name(op_unit u) {
    switch (u) {
        case op_unit::CPU:
            return "cpu";
        case op_unit::COMM:
            return "comm";
        case op_unit::GPU:
            return "gpu";
        case op_unit::COPY:
            return "copy";
    }
    return "?";
}

std::vector<std::string> kind_names() {
    std::vector<std::string> v;
    for (std::size_t i = 0; i < k_op_kinds; ++i) v.push_back(kind_name(static_cast<op_kind>(i)));
    return v;
}

std::vector<std::string> unit_names() {
    std::vector<std::string> v;
    for (std::size_t i = 0; i < k_op_units; ++i) v.push_back(unit_name(static_cast<op_unit>(i)));
    return v;
}

std::vector<op_unit> allowed_units(op_kind k) {
    switch (k) {
        case op_kind::COMPUTE:
        case op_kind::SUM:
        case op_kind::UPDATE:
            // The comm cores may do sums and updates (smartnic.md §III: the dedicated threads
            // handle the all-reduce and the weight update).
            return {op_unit::CPU, op_unit::COMM};
        case op_kind::GPU_COMPUTE:
            return {op_unit::GPU};
        case op_kind::COPY_TO_HOST:
        case op_kind::COPY_TO_GPU:
            return {op_unit::COPY};
        case op_kind::SEND:
        case op_kind::RECV:
            // On cpu: the naive scheme of smartnic.md §III, where a compute thread drives the
            // exchange.
            return {op_unit::COMM, op_unit::CPU};
        case op_kind::DELAY:
            return {op_unit::CPU, op_unit::COMM, op_unit::GPU, op_unit::COPY};
        case op_kind::ALLREDUCE:
            // smartnic.md Fig. 3b: one host thread posts the request and later waits for it.
            return {op_unit::COMM, op_unit::CPU};
    }
    return {op_unit::CPU};
}

const char* category(op_kind k) {
    switch (k) {
        case op_kind::COMPUTE:
        case op_kind::GPU_COMPUTE:
            return "compute";
        case op_kind::COPY_TO_HOST:
        case op_kind::COPY_TO_GPU:
            return "copy";
        case op_kind::SUM:
            return "sum";
        case op_kind::UPDATE:
            return "update";
        case op_kind::SEND:
        case op_kind::RECV:
        case op_kind::ALLREDUCE:
            return "comm";
        case op_kind::DELAY:
            return "delay";
    }
    return "?";
}

const char* phase_name(op_phase p) {
    switch (p) {
        case op_phase::AUTO:
            return "auto";
        case op_phase::FORWARD:
            return "forward";
        case op_phase::BACKWARD:
            return "backward";
        case op_phase::COMPUTE:
            return "compute";
        case op_phase::COPY:
            return "copy";
        case op_phase::SUM:
            return "sum";
        case op_phase::COMM:
            return "comm";
        case op_phase::COMPRESSION:
            return "compression";
        case op_phase::UPDATE:
            return "update";
        case op_phase::OTHER:
            return "other";
    }
    return "?";
}

std::vector<std::string> phase_names() {
    std::vector<std::string> v;
    for (std::size_t i = 0; i < k_op_phases; ++i) v.push_back(phase_name(static_cast<op_phase>(i)));
    return v;
}

std::string op::label(std::size_t index) const {
    if (!name.empty()) return name;
    return std::string(kind_name(kind)) + " [" + std::to_string(index) + "]";
}

}  // namespace trainvp::ops
