// `workload.collective`: collective benchmarks on the hosts (as nccl-tests or ASTRA-sim's
// microbenchmarks run them): one collective, or a list run one after the other, each the
// registry's schedule (workloads/collectives/) of a type and an algorithm over every rank or
// over communicator groups, expanded into each host's ops by workloads::append_collective_ops
// (the expansion of the training builders and of Chakra traces), `iterations` times.
//
//   workload:
//     collective: {type: all_gather, algorithm: recursive_doubling_allgather, bytes: 1MiB}
//   workload:
//     collective:
//       - {type: all_reduce, bytes: 4MiB, group: tp, tensor_parallel: 2}
//       - {type: all_to_all, algorithm: pairwise_all_to_all, bytes: 64KiB, data: functional}
//
// With `data: functional` every rank starts from a generated vector (gradient:, as training's)
// and every rank's buffer is checked at the end of the run by the hosts' audit against the exact
// result (sums within float32 rounding, gathers, broadcasts and all-to-alls byte-exact).  After
// the run each collective's time per iteration, algorithm bandwidth and bus bandwidth (nccl-tests'
// definitions) are written to the stats as block collective[k] and printed in the summary.
#pragma once

#include <cstdint>
#include <string>

#include "core/units.h"
#include "workloads/collectives/collective_info.h"
#include "workloads/drivers/workload_section.h"

namespace trainvp::drivers {

// Which ranks one collective runs over.
enum class collective_group : std::uint8_t {
    WORLD,  // every rank
    TP,     // each tensor-parallel group {d*T, ..., d*T + T-1} at the same time
    DP,     // each data-parallel group {t, t + T, ...} at the same time
};

class collective_section : public workload_section {
public:
    static void declare(section_decl<collective_section>& d);
    std::optional<int> hand_out(const config_node& node, const hand_out_context& ctx) override;

private:
    collectives::collective_result m_type = collectives::collective_result::ALL_REDUCE;
    std::string m_algorithm;
    units::data_size m_bytes;
    std::int64_t m_root = 0;
    config_node m_hosts;
    collective_group m_group = collective_group::WORLD;
    std::int64_t m_tensor_parallel = 1;
    config_node m_groups;
    std::int64_t m_segments = 1;
    std::int64_t m_rows = 0;
    std::int64_t m_levels = 2;
    std::int64_t m_iterations = 1;
    bool m_functional = false;
    config_node m_gradient;
    bool m_offload = false;
};

}  // namespace trainvp::drivers
