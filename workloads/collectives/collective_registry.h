// Collective algorithms by name.  A config selects one by the name it was registered under
// (`algorithm: ring`, `collective: multi_tree`); consumers make its schedule through make()
// and never switch over algorithms.  Built-in algorithms are listed once, in
// builtin_collectives.cpp (one line each); a plugin registers its own with
// TRAINVP_REGISTER_COLLECTIVE (docs/adding-a-collective-or-codec.md).  Pure C++ (no SystemC).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "workloads/collectives/collective_info.h"

namespace trainvp::collectives {

class collective_registry {
public:
    // The process-wide registry: the built-in algorithms (registered on first use, in the
    // order of builtin_collectives.cpp), then those of plugins in load order.
    static collective_registry& global();

    // Adds an algorithm.  Throws std::logic_error when the name is taken or empty or the
    // factory is missing.
    void add(collective_info info);
    const collective_info* find(const std::string& name) const;
    // find(), or std::invalid_argument naming the known algorithms.
    const collective_info& get(const std::string& name) const;
    // In registration order.
    std::vector<std::string> names() const;
    // The names that `f` can run, in registration order (a config's choice list).
    std::vector<std::string> names_for(fabric f) const;
    std::size_t size() const { return m_entries.size(); }
    const collective_info& at(std::size_t i) const { return *m_entries.at(i).info; }

    // The schedule of `name` on `args`: checks the collective's needs (std::invalid_argument
    // saying which), then calls its factory (whose std::invalid_argument passes through).
    schedule make(const std::string& name, const collective_args& args) const;

    // "built in", or "from plugin FILE".
    std::string origin(const std::string& name) const;

    // Plugin loads (platform/plugin_loader): what one plugin's static initialisers registered.
    struct load_report {
        std::vector<std::string> added;
        std::vector<std::string> errors;  // clashes; the load's additions are then removed
        int registrations = 0;            // registrars that ran
    };
    void begin_load(const std::string& origin);
    load_report end_load();
    // Registration errors outside a plugin load (a registrar must not throw).
    const std::vector<std::string>& deferred_errors() const { return m_deferred; }
    void defer_error(const std::string& e);
    void count_registration();

private:
    collective_registry() = default;
    struct entry {
        std::shared_ptr<const collective_info> info;
        std::string origin;
    };
    std::vector<entry> m_entries;
    std::vector<std::string> m_deferred;
    bool m_loading = false;
    std::string m_loading_origin;
    load_report m_report;
};

// Registers the result of `make_info()` (a function returning a collective_info) from a
// static initialiser: how a plugin adds an algorithm when dlopen runs it.  Errors are
// recorded, not thrown (the plugin loader reports them).
class collective_registrar {
public:
    explicit collective_registrar(collective_info (*make_info)()) noexcept;
};

}  // namespace trainvp::collectives

// One line at the end of a plugin's .cpp: TRAINVP_REGISTER_COLLECTIVE(my_collective_info).
#define TRAINVP_REGISTER_COLLECTIVE(MAKE_INFO)                \
    static const ::trainvp::collectives::collective_registrar \
        trainvp_collective_registrar_##MAKE_INFO {            \
        &MAKE_INFO                                            \
    }
