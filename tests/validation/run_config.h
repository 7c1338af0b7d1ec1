// Runs a config file of configs/ in this process (one per test process: SystemC elaborates
// once) and reads its iteration breakdown.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "kit/registry.h"
#include "platform/platform_loader.h"
#include "platform/simulation.h"

namespace trainvp::test {

// Milliseconds per iteration by breakdown part ("forward", ..., "idle") and "time".
inline std::map<std::string, double> breakdown_ms(const std::string& config,
                                                  const std::vector<std::string>& sets = {}) {
    platform_loader loader(registry::global());
    simulation sim(loader.load(config, sets), registry::global());
    sim.elaborate();
    const run_result r = sim.run();
    std::map<std::string, double> out;
    EXPECT_EQ(r.status, run_status::FINISHED) << r.error << r.stall_report;
    EXPECT_TRUE(r.has_breakdown) << r.breakdown.error;
    if (!r.has_breakdown) return out;
    const double per = 1e-9 / r.iterations;  // ps -> ms per iteration
    out["time"] = static_cast<double>(r.breakdown.total_ps) * per;
    for (std::size_t p = 0; p < workloads::k_breakdown_parts; ++p) {
        out[workloads::part_name(static_cast<workloads::breakdown_part>(p))] =
            static_cast<double>(r.breakdown.ps[p]) * per;
    }
    return out;
}

}  // namespace trainvp::test
