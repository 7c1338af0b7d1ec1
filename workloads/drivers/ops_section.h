// `workload.ops`: op lists written out, one per block that runs ops.
//
//   workload:
//     ops:
//       node[0].host: [ {op: send, to: 1, bytes: 64MB} ]
//
// Its keys are block paths, so it declares no params; each block parses its own list
// (workload_sink::accept_workload; the op fields are in workloads/ops/README.md).
#pragma once

#include "workloads/drivers/workload_section.h"

namespace trainvp::drivers {

class ops_section : public workload_section {
public:
    static void declare(section_decl<ops_section>& d);
    std::optional<int> hand_out(const config_node& node, const hand_out_context& ctx) override;
};

}  // namespace trainvp::drivers
