#include "workloads/drivers/ops_section.h"

#include "core/did_you_mean.h"
#include "core/error.h"
#include "workloads/drivers/section_registry.h"

namespace trainvp::drivers {

void ops_section::declare(section_decl<ops_section>& d) {
    d.describe(
        "Op lists written out, one per block that runs ops. A map of block paths to op lists "
        "(`node[0].host: [{op: send, to: 1, bytes: 64MB}]`), each handed to its block "
        "(host.cpu), which parses it; the op kinds and their fields are in "
        "workloads/ops/README.md.");
}

std::optional<int> ops_section::hand_out(const config_node& node, const hand_out_context& ctx) {
    if (!node.is_map()) {
        throw input_error(node.loc(), "workload.ops", "expected a map of block paths to op lists");
    }
    for (const auto& b : node.entries()) {
        const std::string key = "workload.ops." + b.key;
        const std::optional<block_facts> block = ctx.platform.block(b.key);
        if (!block) {
            throw input_error(
                b.key_loc, key,
                "no block '" + b.key + "'" + did_you_mean(b.key, ctx.platform.paths()));
        }
        if (block->sink == nullptr) {
            throw input_error(b.key_loc, key,
                              "block '" + b.key + "' (" + block->type + ") does not run ops");
        }
        block->sink->accept_workload(b.value, key);
    }
    return std::nullopt;
}

TRAINVP_REGISTER_WORKLOAD(ops_section, "ops");

}  // namespace trainvp::drivers
