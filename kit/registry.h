// IP types by name.  Each type registers itself at the end of its .cpp with
// TRAINVP_REGISTER_IP(class, "name"); there is no if/else factory anywhere.  Built-in types
// register when libtrainvp_ip.so is loaded; a plugin's types when plugin_loader dlopens it,
// into this same registry (docs/adding-ip.md).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <sysc/kernel/sc_ver.h>  // SC_VERSION_*: part of the ABI tag

#include "kit/ip_type.h"
#include "kit/version.h"

#define TRAINVP_STRINGIFY_(X) #X
#define TRAINVP_STRINGIFY(X) TRAINVP_STRINGIFY_(X)
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define TRAINVP_STDLIB_ABI_ "libstdc++ cxx11abi=" TRAINVP_STRINGIFY(_GLIBCXX_USE_CXX11_ABI)
#elif defined(_LIBCPP_VERSION)
#define TRAINVP_STDLIB_ABI_ "libc++ abi=" TRAINVP_STRINGIFY(_LIBCPP_ABI_VERSION)
#else
#define TRAINVP_STDLIB_ABI_ "unknown-stdlib"
#endif
// The tag each registration carries: what the translation unit was compiled against.  A plugin
// is loaded only if its tag equals the one libtrainvp_platform.so was built with.
#ifndef TRAINVP_ABI_TAG
#define TRAINVP_ABI_TAG \
    "trainvp " TRAINVP_VERSION " abi " TRAINVP_STRINGIFY(TRAINVP_ABI_VERSION) ", SystemC " \
        TRAINVP_STRINGIFY(SC_VERSION_MAJOR) "." TRAINVP_STRINGIFY(                         \
            SC_VERSION_MINOR) "." TRAINVP_STRINGIFY(SC_VERSION_PATCH) ", " TRAINVP_STDLIB_ABI_
#endif

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

    // Where a type comes from: "built in", or "from plugin FILE".
    std::string origin(const std::string& name) const;

    // Errors recorded during static initialisation (where throwing would abort the process).
    // While a plugin loads they are the load's errors instead (end_load).
    const std::vector<std::string>& deferred_errors() const { return m_deferred; }
    void defer_error(const std::string& e);

    // Called by every registrar, before anything else, with the tag its translation unit was
    // compiled with (TRAINVP_ABI_TAG).  False (with the error recorded) when it is not this
    // library's tag: the registrar then touches nothing whose layout may differ.  Plain C
    // types, so that the check itself survives an incompatible build.
    static bool accept_abi(const char* tag, const char* type_name) noexcept;
    // This library's tag.
    static const char* abi_tag() noexcept;

    // What happened while one plugin's static initialisers ran (plugin_loader).
    struct load_report {
        std::vector<std::string> added;   // types it registered
        std::vector<std::string> errors;  // clashes, ABI mismatches
        int registrations = 0;            // registrars that ran, accepted or not
    };
    void begin_load(const std::string& origin);
    // Ends the load; on errors the types it added are removed again.
    load_report end_load();

private:
    std::map<std::string, type_info> m_types;
    std::map<std::string, std::string> m_origins;  // plugin types only
    std::vector<std::string> m_deferred;
    bool m_loading = false;
    std::string m_loading_origin;
    load_report m_report;
};

// Builds a type_info from T::declare and registers it.
template <typename T>
class registrar {
public:
    registrar(const char* name, const char* abi_tag) {
        if (!registry::accept_abi(abi_tag, name)) return;
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

// Registers CLASS under NAME (the key configs use in `type:`), stamped with the ABI tag of the
// headers it was compiled against.
#define TRAINVP_REGISTER_IP(CLASS, NAME) \
    static const ::trainvp::registrar<CLASS> trainvp_registrar_##CLASS { NAME, TRAINVP_ABI_TAG }
