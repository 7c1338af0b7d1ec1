#include "kit/registry.h"

#include <cstring>
#include <stdexcept>

namespace trainvp {

registry& registry::global() {
    static registry r;
    return r;
}

void registry::add(type_info info) {
    if (m_types.count(info.name)) {
        if (m_loading) {
            throw std::logic_error("IP type '" + info.name + "' is already registered (" +
                                   origin(info.name) + ")");
        }
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
    if (m_loading) {
        m_origins[name] = "from plugin " + m_loading_origin;
        m_report.added.push_back(name);
    }
    m_types.emplace(std::move(name), std::move(info));
}

std::string registry::origin(const std::string& name) const {
    auto it = m_origins.find(name);
    return it == m_origins.end() ? "built in" : it->second;
}

void registry::defer_error(const std::string& e) {
    if (m_loading) {
        m_report.errors.push_back(e);
    } else {
        m_deferred.push_back(e);
    }
}

const char* registry::abi_tag() noexcept { return TRAINVP_ABI_TAG; }

bool registry::accept_abi(const char* tag, const char* type_name) noexcept {
    registry& r = global();
    if (r.m_loading) ++r.m_report.registrations;
    if (tag != nullptr && std::strcmp(tag, abi_tag()) == 0) return true;
    try {
        r.defer_error("IP type '" + std::string(type_name ? type_name : "?") +
                      "' was built against " + (tag ? tag : "an unknown trainvp") +
                      ", but this is " + abi_tag() + "; rebuild it against this trainvp");
    } catch (...) {
        // Out of memory while reporting: the type is refused all the same.
    }
    return false;
}

void registry::begin_load(const std::string& origin) {
    m_loading = true;
    m_loading_origin = origin;
    m_report = load_report{};
}

registry::load_report registry::end_load() {
    m_loading = false;
    load_report r = std::move(m_report);
    m_report = load_report{};
    if (!r.errors.empty()) {
        for (const auto& n : r.added) {
            m_types.erase(n);
            m_origins.erase(n);
        }
    }
    return r;
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
