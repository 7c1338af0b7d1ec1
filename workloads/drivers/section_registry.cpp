#include "workloads/drivers/section_registry.h"

#include <stdexcept>

namespace trainvp::drivers {

section_registry& section_registry::global() {
    static section_registry r;
    return r;
}

void section_registry::add(section_info info) {
    const std::string name = info.name;
    if (!m_sections.emplace(name, std::move(info)).second) {
        throw std::logic_error("workload section '" + name + "' registered twice");
    }
}

const section_info* section_registry::find(const std::string& name) const {
    auto it = m_sections.find(name);
    return it == m_sections.end() ? nullptr : &it->second;
}

std::vector<std::string> section_registry::names() const {
    std::vector<std::string> out;
    for (const auto& kv : m_sections) out.push_back(kv.first);
    return out;
}

}  // namespace trainvp::drivers
