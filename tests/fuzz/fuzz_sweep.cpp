// Fuzz target: arbitrary bytes as a sweep file (sc_main/sweep_spec.h) through the sweep reader:
// the YAML parser, `base:`, `set:`, the grid's axes and zips, and every point's edits loaded
// against a small base config.  Any input must end in a sweep or an input_error: never a crash,
// a hang, an out-of-bounds read or another exception.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/config_node.h"
#include "core/error.h"
#include "kit/registry.h"
#include "sc_main/sweep_spec.h"

namespace {

const std::string* g_work = nullptr;

// The sweep file goes to a private folder beside a small base config (`base: base.yaml`, a
// copy of configs/examples/traffic_to_memory.yaml).
const std::string& work_dir() {
    static const std::string dir = [] {
        namespace fs = std::filesystem;
        const fs::path d =
            fs::temp_directory_path() / ("trainvp_fuzz_sweep." + std::to_string(getpid()));
        fs::create_directories(d);
        // Removed when the process exits (libFuzzer's runs end with exit()); the path outlives
        // every static (never freed).
        g_work = new std::string(d.string());
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(*g_work, ec);
        });
        fs::copy_file(TRAINVP_SOURCE_DIR "/configs/examples/traffic_to_memory.yaml",
                      d / "base.yaml", fs::copy_options::overwrite_existing);
        return d.string();
    }();
    return dir;
}

// Each point loads the base config: a grid of thousands of points is legitimate and slow, not
// what this target looks for.
constexpr std::size_t k_most_points = 64;

std::size_t grid_points(const trainvp::config_node& doc) {
    const trainvp::config_node* grid = doc.is_map() ? doc.find("grid") : nullptr;
    if (grid == nullptr || !grid->is_seq()) return 1;
    std::size_t total = 1;
    for (const auto& axis : grid->items()) {
        if (!axis.is_map()) continue;
        for (const auto& e : axis.entries()) {
            std::size_t n = 1;
            if (e.value.is_seq()) n = e.value.items().size();
            if (e.value.is_map()) {
                for (const auto& z : e.value.entries()) {
                    if (z.value.is_seq()) n = std::max(n, z.value.items().size());
                }
            }
            total *= std::max<std::size_t>(n, 1);
            if (total > k_most_points) return total;
        }
    }
    return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        if (grid_points(trainvp::config_node::parse(text, "sweep.yaml")) > k_most_points) return 0;
    } catch (const trainvp::input_error&) {
    }
    const std::string file = work_dir() + "/sweep.yaml";
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
    }
    try {
        (void)trainvp::sweep_spec::load(file, trainvp::registry::global());
    } catch (const trainvp::input_error&) {
    }
    return 0;
}
