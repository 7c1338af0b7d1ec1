// A job's Chakra traces (one et_trace per rank, trace_reader.h) turned into each rank's host op
// list (workloads/ops), after checking the traces against each other.  Pure C++ (no SystemC).
//
//   COMP_NODE                  duration_micros given: a delay of that time on the compute
//                              unit (phase compute); else a compute (cpu) or gpu_compute (gpu)
//                              op of num_ops FLOPs and tensor_size bytes, which the host times
//                              through its own or its accelerator's compute rate
//   MEM_LOAD_NODE/MEM_STORE    duration given: a delay; cpu: a compute op of 0 FLOPs and
//                              tensor_size bytes (one pass over host memory); gpu: copy_to_gpu
//                              (load) / copy_to_host (store) of tensor_size bytes
//   COMM_SEND_NODE/RECV_NODE   send / recv of comm_size bytes to / from the host of rank
//                              comm_dst / comm_src, tag comm_tag (< 2^31), on the comm unit
//   COMM_COLL_NODE             the schedule of the algorithm chosen for its comm_type, over its
//                              process group (pg_name; none: every rank), comm_size / 4 fp32
//                              elements, expanded by append_collective_ops
//   METADATA_NODE              no op
//
// ctrl_deps and data_deps both become `after`: an op waits for every op that finishes the
// nodes it depends on (a collective is finished by its ops that no other of its ops waits for;
// a node without ops passes its own dependencies on).  Collective tags are 2^31 + group index x
// 2^24 + the tags of the group's earlier collectives (each group's collectives come in the same
// order on every member, which the constructor checks), so they never meet a send's comm_tag
// or another group's tags.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workloads/chakra/et_trace.h"
#include "workloads/collectives/schedule.h"
#include "workloads/ops/op.h"

namespace trainvp::chakra {

// Where COMP and MEM nodes run: as the trace says (is_cpu_op: true on the host cpu, false on
// the accelerator), or all on one.
enum class compute_where : std::uint8_t { TRACE, CPU, GPU };

struct trace_ops_options {
    // The collective registry's algorithm for each collective type (its result must be the
    // type's: collective_result).
    std::map<coll_type, std::string> algorithms = {
        {coll_type::ALL_REDUCE, "ring"},
        {coll_type::REDUCE, "binomial_reduce"},
        {coll_type::ALL_GATHER, "ring_allgather"},
        {coll_type::BROADCAST, "binomial_broadcast"},
        {coll_type::ALL_TO_ALL, "direct_all_to_all"},
        {coll_type::REDUCE_SCATTER, "ring_reduce_scatter"},
    };
    compute_where compute = compute_where::TRACE;
    bool names = true;  // ops carry names (the node's name or "node ID")
};

class trace_ops {
public:
    static constexpr std::uint32_t k_collective_tags = 0x80000000u;
    static constexpr std::uint32_t k_group_tags = 1u << 24;

    // traces[r] is rank r's; node_of_rank[r] the node id its host answers to.  Checks that the
    // traces agree with each other: process groups of one name have the same ranks, the members
    // of a group call the same collectives (type, size, root) in the same order, every send has
    // its receive (same ranks, tag and size) and the other way round, and each collective's
    // algorithm takes its group and size.  Throws input_error naming the file, node and field.
    trace_ops(std::vector<et_trace> traces, std::vector<std::uint32_t> node_of_rank,
              trace_ops_options options = {});

    int ranks() const { return static_cast<int>(m_traces.size()); }
    // Rank r's op list (every `after` names an earlier op).
    std::vector<ops::op> rank_ops(int rank) const;

private:
    struct coll_call {
        const et_node* node = nullptr;
        int group = 0;  // index into m_groups
        std::uint32_t tag_base = 0;
        const collectives::schedule* schedule = nullptr;  // null: a group of one (no ops)
    };

    std::vector<et_trace> m_traces;
    std::vector<std::uint32_t> m_node_of_rank;
    trace_ops_options m_options;
    std::vector<std::vector<int>> m_groups;  // distinct member lists, in their world order
    // Per rank: node id -> its collective call.
    std::vector<std::map<std::uint64_t, coll_call>> m_calls;
    std::map<std::string, collectives::schedule> m_schedules;
};

}  // namespace trainvp::chakra
