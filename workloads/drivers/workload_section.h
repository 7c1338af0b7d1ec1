// A section of the config's `workload:` map (`ops`, `training`, ...): a class registered under
// its key (section_registry.h) that declares its params like a block does (static
// `declare(section_decl<T>&)`: key = member name without m_, unit family, default or required,
// description), so that `trainvp describe workload.NAME` and docs/ip-reference.md document it,
// and that reads its entry and hands each block of the platform its work.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config_node.h"
#include "core/param_decl.h"
#include "workloads/drivers/platform_query.h"
#include "workloads/iteration/critical_path.h"

namespace trainvp::drivers {

class workload_section;

// What the registry knows about one section.
struct section_info {
    std::string name;  // its key under `workload:`
    std::string description;
    std::vector<param_decl> params;  // empty for a section whose keys are not fixed (ops)
    std::function<std::unique_ptr<workload_section>()> create;
};

// Declaration builder handed to `T::declare`.
template <typename T>
class section_decl : public param_list<T> {
public:
    explicit section_decl(section_info& info) : m_info(info) {}
    void describe(const std::string& text) { m_info.description = text; }
    // Moves the params declared through param_list into the section info.
    void finish() { m_info.params = this->params(); }

private:
    section_info& m_info;
};

// A statistic a section measures from what the hosts ran, after a finished run (the collective
// benchmark's time and bandwidths per collective): written to stats.json under `block` (a name
// of the section's, "collective[0]") and printed in the run summary with the blocks' headline
// statistics.
struct measured_stat {
    std::string block;  // "collective[0]"
    std::string type;   // "workload.collective"
    std::string name;   // "time", "algbw", ...
    std::string unit;   // "ns", "B/s", "B", "1"
    double value = 0.0;
};
// Computes a section's statistics from every host's run (host_run::name is the block's path).
using run_measure =
    std::function<std::vector<measured_stat>(const std::vector<workloads::host_run>&)>;

// What a section is handed besides its entry.
struct hand_out_context {
    const section_info& section;
    const platform_query& platform;
    std::uint64_t seed = 0;  // the run's seed (simulation.seed)
    // Whether generated ops carry their names (the timeline records them); without, a host asks
    // its source for an op's name when it reports an error.
    bool op_names = false;
    // Where a section leaves what it measures after the run (null: nobody asks).
    std::vector<run_measure>* measures = nullptr;
};

class workload_section {
public:
    virtual ~workload_section() = default;
    // Reads `node` (the section's entry, key "workload.<name>") and hands its work to the
    // platform's blocks.  Returns the number of iterations the run holds, or none when the
    // section does not count iterations (op lists).  Throws input_error with file:line:column
    // and the full key.
    virtual std::optional<int> hand_out(const config_node& node, const hand_out_context& ctx) = 0;

protected:
    // Stores the section's declared params given in `node` into `self`, and the defaults of
    // those not given that have one (a param without default and not required stays as the
    // member was initialised: not set).  A key not declared, a missing required key, or `node`
    // not a map is an input error.
    template <typename T>
    static void read_params(T& self, const config_node& node, const hand_out_context& ctx) {
        read_params_into(static_cast<void*>(&self), node, ctx);
    }

private:
    static void read_params_into(void* self, const config_node& node, const hand_out_context& ctx);
};

}  // namespace trainvp::drivers
