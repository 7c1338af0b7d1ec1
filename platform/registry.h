// IP types by name.  Each type registers itself at the end of its .cpp with
// TRAINVP_REGISTER_IP(class, "name"); there is no if/else factory anywhere.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "platform/ip_type.h"

namespace trainvp {

class registry {
public:
    // The process-wide registry that TRAINVP_REGISTER_IP fills.
    static registry& global();

    // Adds a type.  A second type with the same name is an error (std::logic_error), reported
    // by sc_main before anything runs when it comes from static registration.
    void add(type_info info);
    const type_info* find(const std::string& name) const;
    std::vector<std::string> names() const;
    const std::map<std::string, type_info>& types() const { return m_types; }

    // Errors recorded during static initialisation (where throwing would abort the process).
    const std::vector<std::string>& deferred_errors() const { return m_deferred; }
    void defer_error(const std::string& e) { m_deferred.push_back(e); }

private:
    std::map<std::string, type_info> m_types;
    std::vector<std::string> m_deferred;
};

// Builds a type_info from T::declare and registers it.
template <typename T>
class registrar {
public:
    explicit registrar(const char* name) {
        type_info info;
        info.name = name;
        type_decl<T> d(info);
        T::declare(d);
        d.finish();
        info.create = [](const sc_core::sc_module_name& n,
                         const params& p) -> std::unique_ptr<ip_module> {
            return std::make_unique<T>(n, p);
        };
        try {
            registry::global().add(std::move(info));
        } catch (const std::exception& e) {
            registry::global().defer_error(e.what());
        }
    }
};

}  // namespace trainvp

// Registers CLASS under NAME (the key configs use in `type:`).
#define TRAINVP_REGISTER_IP(CLASS, NAME) \
    static const ::trainvp::registrar<CLASS> trainvp_registrar_##CLASS { NAME }
