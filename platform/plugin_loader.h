// Loads IP plugins: shared libraries whose blocks register themselves with
// TRAINVP_REGISTER_IP exactly like the built-in ones (docs/adding-ip.md).  A config names them in
// its top-level `plugins:` list (paths relative to the file that lists them); the command line
// with `--plugin PATH`.  Every failure is an input_error at the place the plugin was named.
#pragma once

#include <string>
#include <vector>

#include "core/config_node.h"
#include "core/error.h"
#include "kit/registry.h"

namespace trainvp {

class plugin_loader {
public:
    explicit plugin_loader(registry& reg) : m_registry(reg) {}

    // Loads the library at `path` (as given; relative to the working directory) named at
    // `where` under `key` ("plugins" or "--plugin").  Loading the same file twice is a no-op.
    // Errors: missing file, not a shared library, not a trainvp plugin (registers no IP type),
    // built against another trainvp (ABI tag), a type name that is already registered.
    void load(const std::string& path, const source_loc& where, const std::string& key);

    // Loads every entry of a config's `plugins:` list (a list of file names), each relative to
    // the directory of the file it is written in.
    void load_listed(const config_node& list);

    // The plugins loaded so far, as absolute paths, in load order (for config.resolved.yaml).
    const std::vector<std::string>& loaded() const { return m_loaded; }

private:
    registry& m_registry;
    std::vector<std::string> m_loaded;
};

}  // namespace trainvp
