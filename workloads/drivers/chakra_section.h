// `workload.chakra`: a job recorded as Chakra execution traces (MLCommons), one file per rank,
// `PREFIX.<rank>.et`, each rank's nodes mapped onto its host's ops (workloads/chakra/).
//
//   workload:
//     chakra: traces/tp_dp            # the short form: the prefix, every other param default
//   workload:
//     chakra: {trace: traces/tp_dp, hosts: node[*].host, all_reduce: halving_doubling}
//
// hand_out resolves the hosts (rank r = the r-th host), reads and checks every rank's trace
// (workloads::chakra::trace_reader; an error names the file, the node id and the field), checks
// the traces against each other and hands each host its op list.
#pragma once

#include <string>

#include "workloads/chakra/trace_ops.h"
#include "workloads/drivers/workload_section.h"

namespace trainvp::drivers {

class chakra_section : public workload_section {
public:
    static void declare(section_decl<chakra_section>& d);
    std::optional<int> hand_out(const config_node& node, const hand_out_context& ctx) override;

private:
    std::string m_trace;
    config_node m_hosts;
    chakra::compute_where m_compute = chakra::compute_where::TRACE;
    std::string m_all_reduce = "ring";
    std::string m_all_gather = "ring_allgather";
    std::string m_reduce_scatter = "ring_reduce_scatter";
    std::string m_all_to_all = "direct_all_to_all";
    std::string m_broadcast = "binomial_broadcast";
    std::string m_reduce = "binomial_reduce";
};

}  // namespace trainvp::drivers
