#include "workloads/drivers/host_roster.h"

#include <map>

#include "core/did_you_mean.h"
#include "core/error.h"
#include "core/param_decl.h"

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

std::vector<host> host_roster::ranks(const config_node* hv, const source_loc& loc,
                                     const std::string& key) const {
    std::vector<host> hosts;
    if (hv != nullptr) {
        std::vector<std::pair<config_node, std::string>> items;
        if (hv->is_seq()) {
            for (std::size_t i = 0; i < hv->items().size(); ++i) {
                items.emplace_back(hv->items()[i], key + "[" + std::to_string(i) + "]");
            }
        } else {
            items.emplace_back(*hv, key);
        }
        for (const auto& [v, k] : items) {
            param_decl pd;
            pd.name = "hosts";
            pd.kind = param_kind::STRING;
            for (host& h : resolve(param_parse::to_string(v, pd, k), v.loc(), k)) {
                hosts.push_back(std::move(h));
            }
        }
    } else {
        const std::string base = key.substr(0, key.rfind('.'));
        std::map<std::uint32_t, std::string> by_id;
        for (const std::string& p : m_platform.paths()) {
            const std::optional<block_facts> b = m_platform.block(p);
            if (b && b->sink != nullptr && b->node_id) by_id.emplace(*b->node_id, p);
        }
        for (const auto& [id, p] : by_id) hosts.push_back(find(p, loc, base));
        // (A chiplet package's chiplets are among them: noc.chiplet[c], node id c.)
        if (hosts.empty()) {
            throw input_error(loc, base, "the platform has no block that runs ops");
        }
    }
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (hosts[j].node_id == hosts[i].node_id) {
                throw input_error(hosts[i].loc, key,
                                  hosts[i].path + " has node_id " +
                                      std::to_string(hosts[i].node_id) + ", as has " +
                                      hosts[j].path + ": every rank needs its own node id");
            }
        }
    }
    return hosts;
}

}  // namespace trainvp::drivers
