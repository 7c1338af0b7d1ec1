#include "workloads/drivers/host_roster.h"

#include "core/did_you_mean.h"
#include "core/error.h"

namespace trainvp::drivers {

host host_roster::find(const std::string& path, const source_loc& loc,
                       const std::string& key) const {
    const std::optional<block_facts> b = m_platform.block(path);
    if (!b) {
        throw input_error(loc, key,
                          "no block '" + path + "'" + did_you_mean(path, m_platform.paths()));
    }
    if (b->sink == nullptr || !b->node_id) {
        throw input_error(loc, key,
                          "block '" + path + "' (" + b->type +
                              ") is not a host: training runs on blocks that run ops and have a "
                              "node_id (host.cpu)");
    }
    return host{path, loc, *b->node_id, b->sink, b->nic};
}

std::vector<host> host_roster::resolve(const std::string& text, const source_loc& loc,
                                       const std::string& key, const std::string& except) const {
    if (text.find("[*]") == std::string::npos) return {find(text, loc, key)};
    std::vector<host> hosts;
    for (const std::string& path : m_platform.matching(text)) {
        if (!except.empty() && path == except) continue;
        hosts.push_back(find(path, loc, key));
    }
    if (hosts.empty()) throw input_error(loc, key, "no block matches '" + text + "'");
    return hosts;
}

}  // namespace trainvp::drivers
