#include "platform/block_index.h"

#include "core/param_decl.h"
#include "core/params.h"
#include "platform/platform_loader.h"
#include "workloads/drivers/chiplet_training_sink.h"

namespace trainvp {

block_index::block_index(const std::map<std::string, ip_module*>& by_path,
                         const platform_desc& desc)
    : m_by_path(by_path), m_desc(desc) {
    for (const instance_desc& inst : desc.instances) m_instances.emplace(inst.path, &inst);
    for (const connection_desc& c : desc.connections) {
        const std::size_t dot = c.from.rfind('.');
        if (dot == std::string::npos || c.from.compare(dot, std::string::npos, ".nic") != 0) {
            continue;
        }
        m_nic_of.emplace(c.from.substr(0, dot), c.to.substr(0, c.to.rfind('.')));
    }
}

std::vector<std::string> block_index::paths() const {
    std::vector<std::string> names;
    for (const auto& kv : m_by_path) names.push_back(kv.first);
    return names;
}

std::optional<drivers::block_facts> block_index::block(const std::string& path) const {
    auto it = m_by_path.find(path);
    if (it == m_by_path.end()) return std::nullopt;
    ip_module& m = *it->second;
    drivers::block_facts f;
    f.path = path;
    f.type = m.type().name;
    f.sink = dynamic_cast<workload_sink*>(&m);
    f.chiplet_training = dynamic_cast<chiplet_training_sink*>(&m);
    // The node id is the node_id param as configured (else its default): the id the block's
    // NIC answers to, so that sends and receives of generated ops reach it.
    if (const param_decl* decl = m.type().find_param("node_id")) {
        config_node value = default_value(*decl);
        auto inst = m_instances.find(path);
        if (inst != m_instances.end()) {
            for (const param_value& p : inst->second->params) {
                if (p.name == "node_id") value = p.value;
            }
        }
        f.node_id =
            static_cast<std::uint32_t>(param_parse::to_int(value, *decl, path + ".node_id"));
    }
    // The NIC: the block the `nic` socket's first connection reaches.
    auto to = m_nic_of.find(path);
    if (to != m_nic_of.end()) {
        auto nic = m_by_path.find(to->second);
        if (nic != m_by_path.end()) {
            f.nic = drivers::nic_facts{nic->first, nic->second->type().name,
                                       dynamic_cast<const nic_capabilities*>(nic->second)};
        }
    }
    return f;
}

std::vector<std::string> block_index::matching(const std::string& pattern) const {
    std::vector<std::string> out;
    for (const instance_desc& inst : m_desc.instances) {
        if (path_matches(pattern, inst.path)) out.push_back(inst.path);
    }
    return out;
}

}  // namespace trainvp
