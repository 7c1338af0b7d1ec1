// Runs one platform config in-process and reports how fast it simulated:
//   platform_bench CONFIG.yaml STAT [--set K=V ...]
// STAT names a statistic summed over every block that has it (e.g. tx_frames): the report gives
// its count per wall second.  Output: one JSON line.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "kit/registry.h"
#include "platform/allocator_tuning.h"
#include "platform/platform_loader.h"
#include "platform/simulation.h"

// libsystemc prints its banner before sc_main; a static initialiser runs earlier still.
static const bool g_quiet_banner = [] {
    return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
}();

int sc_main(int argc, char* argv[]) {
    trainvp::tune_allocator();  // as the trainvp command does
    if (argc < 3) {
        std::fprintf(stderr, "usage: platform_bench CONFIG.yaml STAT [--set K=V ...]\n");
        return 2;
    }
    const std::string config = argv[1], stat = argv[2];
    std::vector<std::string> sets;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (std::string(argv[i]) == "--set") sets.push_back(argv[i + 1]);
    }
    try {
        const auto t0 = std::chrono::steady_clock::now();
        trainvp::platform_loader loader(trainvp::registry::global());
        trainvp::simulation sim(loader.load(config, sets), trainvp::registry::global());
        sim.elaborate();
        // Loading, expanding, building op lists and elaborating: before the first event.
        const double setup_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        trainvp::run_result r = sim.run();
        auto j = nlohmann::json::parse(sim.stats_json(r));
        double total = 0;
        for (auto& [path, b] : j["blocks"].items()) {
            if (b["stats"].contains(stat)) total += b["stats"][stat]["value"].get<double>();
        }
        rusage ru{};
        getrusage(RUSAGE_SELF, &ru);
        std::printf(
            "{\"bench\":\"%s\",\"status\":\"%s\",\"sim_s\":%.6g,\"wall_s\":%.4f,"
            "\"sim_s_per_wall_s\":%.4g,\"stat\":\"%s\",\"count\":%.0f,\"per_wall_s\":%.4g,"
            "\"peak_rss_mb\":%.1f,\"setup_s\":%.4f}\n",
            config.c_str(), trainvp::run_status_name(r.status), r.end_time.to_seconds(),
            r.wall_seconds, r.end_time.to_seconds() / r.wall_seconds, stat.c_str(), total,
            total / r.wall_seconds, static_cast<double>(ru.ru_maxrss) / 1024.0, setup_s);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "platform_bench: %s\n", e.what());
        return 1;
    }
}
