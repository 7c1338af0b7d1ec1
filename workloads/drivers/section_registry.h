// Workload sections by their key under `workload:`.  Each section registers itself at the end
// of its .cpp with TRAINVP_REGISTER_WORKLOAD(class, "key"); nothing lists the keys by hand: the
// config's check, `trainvp describe` and docs/ip-reference.md read them here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "workloads/drivers/workload_section.h"

namespace trainvp::drivers {

class section_registry {
public:
    // The process-wide registry that TRAINVP_REGISTER_WORKLOAD fills.
    static section_registry& global();

    // Adds a section.  A second section with the same key is a std::logic_error.
    void add(section_info info);
    const section_info* find(const std::string& name) const;
    std::vector<std::string> names() const;  // sorted
    const std::map<std::string, section_info>& sections() const { return m_sections; }

private:
    std::map<std::string, section_info> m_sections;
};

// Builds a section_info from T::declare and registers it.
template <typename T>
class section_registrar {
public:
    explicit section_registrar(const char* name) {
        section_info info;
        info.name = name;
        section_decl<T> d(info);
        T::declare(d);
        d.finish();
        info.create = []() -> std::unique_ptr<workload_section> { return std::make_unique<T>(); };
        section_registry::global().add(std::move(info));
    }
};

}  // namespace trainvp::drivers

// Registers CLASS as the workload section NAME (its key under `workload:`).
#define TRAINVP_REGISTER_WORKLOAD(CLASS, NAME) \
    static const ::trainvp::drivers::section_registrar<CLASS> trainvp_section_##CLASS { NAME }
