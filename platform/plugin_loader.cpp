#include "platform/plugin_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "ip/codecs/codec_registry.h"
#include "workloads/collectives/collective_registry.h"

namespace trainvp {

namespace fs = std::filesystem;

void plugin_loader::load(const std::string& path, const source_loc& where, const std::string& key) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        throw input_error(where, key, "cannot open plugin '" + path + "': no such file");
    }
    {
        char magic[4] = {};
        std::ifstream in(path, std::ios::binary);
        in.read(magic, sizeof magic);
        if (!in || magic[0] != 0x7f || magic[1] != 'E' || magic[2] != 'L' || magic[3] != 'F') {
            throw input_error(where, key,
                              "'" + path + "' is not a trainvp plugin (not a shared library)");
        }
    }
    const std::string abs = fs::weakly_canonical(fs::absolute(path)).string();
    if (std::find(m_loaded.begin(), m_loaded.end(), abs) != m_loaded.end()) return;

    // The plugin's static initialisers (its TRAINVP_REGISTER_IP lines) run inside dlopen.  A
    // plugin is never unloaded: its types' code must outlive every block made from them.
    // A plugin may also register collectives and codecs (docs/adding-a-collective-or-codec.md).
    auto& collective_reg = collectives::collective_registry::global();
    auto& codec_reg = codecs::codec_registry::global();
    m_registry.begin_load(path);
    collective_reg.begin_load(path);
    codec_reg.begin_load(path);
    void* handle = dlopen(abs.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char* dl_error = handle ? nullptr : dlerror();
    registry::load_report report = m_registry.end_load();
    const auto collective_report = collective_reg.end_load();
    const auto codec_report = codec_reg.end_load();
    for (const auto* more : {&collective_report.errors, &codec_report.errors}) {
        report.errors.insert(report.errors.end(), more->begin(), more->end());
    }
    report.registrations += collective_report.registrations + codec_report.registrations;
    if (handle == nullptr) {
        std::string why = dl_error ? dl_error : "unknown error";
        // dlerror() starts with the path it was given; the message names it already.
        if (why.rfind(abs + ": ", 0) == 0) why = why.substr(abs.size() + 2);
        std::string hint;
        if (why.find("undefined symbol") != std::string::npos) {
            hint = " (built against another trainvp? rebuild it against this one)";
        }
        throw input_error(where, key, "cannot load plugin '" + path + "': " + why + hint);
    }
    if (!report.errors.empty()) {
        std::string msg = "plugin '" + path + "': " + report.errors.front();
        if (report.errors.size() > 1) {
            msg += " (and " + std::to_string(report.errors.size() - 1) + " more)";
        }
        throw input_error(where, key, msg);
    }
    if (report.registrations == 0) {
        throw input_error(where, key,
                          "'" + path +
                              "' is not a trainvp plugin: it registers no IP type "
                              "(TRAINVP_REGISTER_IP)");
    }
    m_loaded.push_back(abs);
}

void plugin_loader::load_listed(const config_node& list) {
    if (!list.is_seq()) {
        throw input_error(list.loc(), "plugins", "expected a list of plugin files");
    }
    for (const auto& item : list.items()) {
        if (!item.is_scalar() || item.scalar().empty()) {
            throw input_error(item.loc(), "plugins", "expected a plugin file name");
        }
        fs::path p(item.scalar());
        if (p.is_relative() && !item.loc().file.empty()) {
            p = fs::path(item.loc().file).parent_path() / p;
        }
        load(p.lexically_normal().string(), item.loc(), "plugins");
    }
}

}  // namespace trainvp
