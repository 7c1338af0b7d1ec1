#include "workloads/drivers/workload_section.h"

#include <algorithm>

#include "core/did_you_mean.h"
#include "core/error.h"
#include "core/params.h"

namespace trainvp::drivers {

void workload_section::read_params_into(void* self, const config_node& node,
                                        const hand_out_context& ctx) {
    const std::string base = "workload." + ctx.section.name;
    const std::vector<param_decl>& decls = ctx.section.params;
    std::vector<std::string> names, required;
    for (const param_decl& d : decls) {
        names.push_back(d.name);
        if (d.required) required.push_back(d.name);
    }
    if (!node.is_map()) {
        throw input_error(node.loc(), base,
                          "expected a map (" + join(required) + ", ...), got " + node.kind_name());
    }
    for (const auto& e : node.entries()) {
        if (std::find(names.begin(), names.end(), e.key) == names.end()) {
            throw input_error(e.key_loc, base + "." + e.key,
                              "unknown " + ctx.section.name + " key" + did_you_mean(e.key, names) +
                                  "; expected one of " + join(names));
        }
    }
    // "model, batch and workers"
    std::string needs;
    for (std::size_t i = 0; i < required.size(); ++i) {
        needs += (i == 0 ? "" : i + 1 == required.size() ? " and " : ", ") + required[i];
    }
    for (const std::string& r : required) {
        if (node.find(r) == nullptr) {
            throw input_error(node.loc(), base + "." + r,
                              "missing; a " + ctx.section.name + " workload needs " + needs);
        }
    }
    for (const param_decl& d : decls) {
        const std::string key = base + "." + d.name;
        if (const config_node* v = node.find(d.name)) {
            d.apply(self, *v, key);
        } else if (!d.required && !d.default_text.empty()) {
            d.apply(self, default_value(d), key);
        }
    }
}

}  // namespace trainvp::drivers
