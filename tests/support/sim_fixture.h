// Builds a simulation from YAML text in this process (one per process: SystemC elaborates
// once).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kit/registry.h"
#include "platform/platform_loader.h"
#include "platform/simulation.h"

namespace trainvp::test {

inline std::unique_ptr<simulation> make_sim(const std::string& yaml,
                                            const std::vector<std::string>& sets = {}) {
    platform_loader loader(registry::global());
    platform_desc d = loader.load_document(config_node::parse(yaml, "t.yaml"), "t.yaml", sets);
    return std::make_unique<simulation>(std::move(d), registry::global());
}

// Loads and elaborates; returns the input_error message, or "" when it elaborates.
inline std::string elaboration_error(const std::string& yaml,
                                     const std::vector<std::string>& sets = {}) {
    try {
        auto sim = make_sim(yaml, sets);
        sim->elaborate();
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace trainvp::test
