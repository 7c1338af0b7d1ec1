#include "platform/registry.h"

#include <stdexcept>

namespace trainvp {

registry& registry::global() {
    static registry r;
    return r;
}

void registry::add(type_info info) {
    if (m_types.count(info.name)) {
        throw std::logic_error("IP type '" + info.name + "' is registered twice");
    }
    for (const auto& p : info.params) {
        for (const char* reserved :
             {"type", "template", "count", "override", "components", "connections"}) {
            if (p.name == reserved) {
                throw std::logic_error("IP type '" + info.name + "' declares a param named '" +
                                       p.name + "', which configs use for structure");
            }
        }
    }
    std::string name = info.name;
    m_types.emplace(std::move(name), std::move(info));
}

const type_info* registry::find(const std::string& name) const {
    auto it = m_types.find(name);
    return it == m_types.end() ? nullptr : &it->second;
}

std::vector<std::string> registry::names() const {
    std::vector<std::string> out;
    for (const auto& kv : m_types) out.push_back(kv.first);
    return out;
}

const param_decl* type_info::find_param(const std::string& n) const {
    for (const auto& p : params) {
        if (p.name == n) return &p;
    }
    return nullptr;
}

const port_decl* type_info::find_port(const std::string& n) const {
    for (const auto& p : ports) {
        if (p.name == n) return &p;
    }
    return nullptr;
}

}  // namespace trainvp
