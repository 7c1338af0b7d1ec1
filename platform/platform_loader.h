// YAML config -> platform_desc: includes, templates, node arrays with per-index overrides,
// --set overrides, `[*]` connections.  Every error names file:line:column and the full key.
#pragma once

#include <string>
#include <vector>

#include "kit/registry.h"
#include "platform/platform_desc.h"

namespace trainvp {

class platform_loader {
public:
    explicit platform_loader(const registry& reg) : m_registry(reg) {}

    // Loads `path`, applies `sets` ("path=value"; a path starting with a section name such
    // as `simulation.seed` edits the document, any other path names instance params such as
    // `node[*].mem.latency`), and expands the result.
    platform_desc load(const std::string& path, const std::vector<std::string>& sets = {}) const;

    // Same, from a document already in memory (tests, fuzzing).
    platform_desc load_document(config_node doc, const std::string& name,
                                const std::vector<std::string>& sets = {}) const;

    // The top-level sections a config may have.
    static const std::vector<std::string>& sections();

private:
    const registry& m_registry;
};

// "node[*].host" matches "node[3].host": each [*] of the pattern stands for one [<index>].
bool path_matches(const std::string& pattern, const std::string& path);

// The fully expanded config, loadable as is: every array unrolled, every group inline, every
// param with its value (defaults included).
std::string resolved_yaml(const platform_desc& desc, const registry& reg);

}  // namespace trainvp
