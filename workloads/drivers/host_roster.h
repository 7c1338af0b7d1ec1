// The hosts a workload section names, resolved through the platform_query: a path or a pattern
// with [*] becomes hosts (blocks that run ops and have a node id) with their node ids, their
// workload_sink and their NIC.  A name that is no block, or a block that is no host, is an
// input error at the place the config named it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config_node.h"
#include "workloads/drivers/platform_query.h"

namespace trainvp::drivers {

// A host of a section: where the config named it, its node id, what it runs and sends through.
struct host {
    std::string path;
    source_loc loc;
    std::uint32_t node_id = 0;
    workload_sink* sink = nullptr;
    std::optional<nic_facts> nic;
};

class host_roster {
public:
    explicit host_roster(const platform_query& platform) : m_platform(platform) {}

    // The host at `path`, named at `loc` under `key`.
    host find(const std::string& path, const source_loc& loc, const std::string& key) const;
    // The hosts `text` names: one path, or a pattern with [*] taking the matching blocks in
    // config order and leaving out `except` (so that node[*].host can name the workers of a
    // cluster whose last node aggregates).  A pattern that matches nothing is an error.
    std::vector<host> resolve(const std::string& text, const source_loc& loc,
                              const std::string& key, const std::string& except = {}) const;
    // A job's ranks, rank r the r-th host: `hosts` (a path, a [*] pattern or a list of them,
    // the value of key `key`) when given (non-null), else every block that runs ops and has a
    // node_id, in node-id order (a chiplet package's chiplets among them; an error at `loc`
    // when there is none).  Two ranks on one node id are an error.
    std::vector<host> ranks(const config_node* hosts, const source_loc& loc,
                            const std::string& key) const;

private:
    const platform_query& m_platform;
};

}  // namespace trainvp::drivers
