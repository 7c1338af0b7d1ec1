#include "workloads/drivers/hand_out.h"

#include "core/did_you_mean.h"
#include "core/error.h"
#include "workloads/drivers/section_registry.h"

namespace trainvp::drivers {

namespace {
// "ops or training", "chakra, ops or training".
std::string one_of(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    }
    return out;
}
}  // namespace

int hand_out_workload(const config_node& w, const platform_query& platform, std::uint64_t seed,
                      bool op_names, std::vector<run_measure>* measures) {
    int iterations = 1;
    if (w.is_nil()) return iterations;
    if (!w.is_map()) {
        throw input_error(w.loc(), "workload", std::string("expected a map, got ") + w.kind_name());
    }
    const section_registry& reg = section_registry::global();
    // A host named in two sections gets work twice; host.cpu reports that itself.
    for (const auto& e : w.entries()) {
        const section_info* s = reg.find(e.key);
        if (s == nullptr) {
            throw input_error(e.key_loc, "workload." + e.key,
                              "unknown workload key" + did_you_mean(e.key, reg.names()) +
                                  "; expected " + one_of(reg.names()));
        }
        const hand_out_context ctx{*s, platform, seed, op_names, measures};
        if (const std::optional<int> n = s->create()->hand_out(e.value, ctx)) iterations = *n;
    }
    return iterations;
}

}  // namespace trainvp::drivers
