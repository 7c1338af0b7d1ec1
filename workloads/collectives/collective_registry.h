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

#include "core/name_registry.h"
#include "workloads/collectives/collective_info.h"

namespace trainvp::collectives {

class collective_registry : public name_registry<collective_info> {
public:
    // The process-wide registry: the built-in algorithms (registered on first use, in the
    // order of builtin_collectives.cpp), then those of plugins in load order.
    static collective_registry& global();

    // Adds an algorithm.  Throws std::logic_error when the name is taken or empty or the
    // factory is missing.
    void add(collective_info info);
    // find(), or std::invalid_argument naming the known algorithms.
    const collective_info& get(const std::string& name) const;
    // The names that `f` can run, in registration order (a config's choice list).
    std::vector<std::string> names_for(fabric f) const;

    // The schedule of `name` on `args`: checks the collective's needs (std::invalid_argument
    // saying which), then calls its factory (whose std::invalid_argument passes through).
    schedule make(const std::string& name, const collective_args& args) const;
    // make()'s checks alone (a consumer checking its configuration before any bytes are known).
    void check(const std::string& name, const collective_args& args) const;

private:
    collective_registry() : name_registry("collective") {}
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
