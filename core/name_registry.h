// Things registered by name, in registration order, with where each came from ("built in" or
// "from plugin FILE") and the bookkeeping of a plugin load (what one dlopen registered, and
// rolling it back when it clashed).  The collective and codec registries are this over their
// info types; Info needs a `std::string name`.  Pure C++, header only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace trainvp {

template <typename Info>
class name_registry {
public:
    // `what` names one entry in messages ("codec", "collective").
    explicit name_registry(std::string what) : m_what(std::move(what)) {}

    // Adds `info`.  Throws std::logic_error when its name is empty or taken.
    void add(Info info) {
        if (info.name.empty()) throw std::logic_error("a " + m_what + " needs a name");
        if (find(info.name) != nullptr) {
            throw std::logic_error(m_what + " '" + info.name + "' is already registered (" +
                                   origin(info.name) + ")");
        }
        entry e;
        e.origin = m_loading ? "from plugin " + m_loading_origin : "built in";
        if (m_loading) m_report.added.push_back(info.name);
        e.info = std::make_shared<const Info>(std::move(info));
        m_entries.push_back(std::move(e));
    }
    const Info* find(const std::string& name) const {
        for (const auto& e : m_entries) {
            if (e.info->name == name) return e.info.get();
        }
        return nullptr;
    }
    // In registration order.
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& e : m_entries) out.push_back(e.info->name);
        return out;
    }
    std::size_t size() const { return m_entries.size(); }
    const Info& at(std::size_t i) const { return *m_entries.at(i).info; }
    // "built in", or "from plugin FILE" ("" for an unknown name).
    std::string origin(const std::string& name) const {
        for (const auto& e : m_entries) {
            if (e.info->name == name) return e.origin;
        }
        return "";
    }

    // Plugin loads (platform/plugin_loader): what one plugin's static initialisers registered.
    struct load_report {
        std::vector<std::string> added;
        std::vector<std::string> errors;  // clashes; the load's additions are then removed
        int registrations = 0;            // registrars that ran
    };
    void begin_load(const std::string& origin) {
        m_loading = true;
        m_loading_origin = origin;
        m_report = load_report{};
    }
    load_report end_load() {
        m_loading = false;
        load_report r = std::move(m_report);
        m_report = load_report{};
        if (!r.errors.empty()) {
            m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(),
                                           [&r](const entry& e) {
                                               return std::find(r.added.begin(), r.added.end(),
                                                                e.info->name) != r.added.end() &&
                                                      e.origin != "built in";
                                           }),
                            m_entries.end());
        }
        return r;
    }
    // Registration errors outside a plugin load (a registrar must not throw).
    const std::vector<std::string>& deferred_errors() const { return m_deferred; }
    void defer_error(const std::string& e) {
        if (m_loading) {
            m_report.errors.push_back(e);
        } else {
            m_deferred.push_back(e);
        }
    }
    void count_registration() {
        if (m_loading) ++m_report.registrations;
    }

private:
    struct entry {
        std::shared_ptr<const Info> info;
        std::string origin;
    };
    std::string m_what;
    std::vector<entry> m_entries;
    std::vector<std::string> m_deferred;
    bool m_loading = false;
    std::string m_loading_origin;
    load_report m_report;
};

// What a registrar (a static initialiser in a plugin) does: adds `make_info()` to `r`, recording
// an error instead of throwing (the plugin loader reports it).  R::add may add its own checks.
template <typename R, typename Info>
void register_noexcept(R& r, Info (*make_info)()) noexcept {
    try {
        r.count_registration();
        try {
            r.add(make_info());
        } catch (const std::exception& e) {
            r.defer_error(e.what());
        }
    } catch (...) {
        // Out of memory while registering or reporting: nothing is registered.
    }
}

}  // namespace trainvp
