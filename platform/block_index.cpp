#include "platform/block_index.h"

#include <algorithm>

#include "core/param_decl.h"
#include "core/params.h"
#include "platform/platform_loader.h"
#include "workloads/drivers/chiplet_training_sink.h"
#include "workloads/drivers/workload_units.h"

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
    for (const instance_desc& inst : desc.instances) {
        auto it = by_path.find(inst.path);
        if (it == by_path.end()) continue;
        auto* units = dynamic_cast<workload_units*>(it->second);
        if (units == nullptr) continue;
        for (const workload_units::unit& u : units->units()) {
            drivers::block_facts f;
            f.path = inst.path + "." + u.name;
            f.type = it->second->type().name;
            f.sink = u.sink;
            f.node_id = u.node_id;
            m_unit_order.push_back(f.path);
            m_units.emplace(f.path, std::move(f));
        }
    }
}

std::vector<std::string> block_index::paths() const {
    std::vector<std::string> names;
    for (const auto& kv : m_by_path) names.push_back(kv.first);
    for (const auto& kv : m_units) names.push_back(kv.first);
    std::sort(names.begin(), names.end());
    return names;
}

std::optional<drivers::block_facts> block_index::block(const std::string& path) const {
    auto it = m_by_path.find(path);
    if (it == m_by_path.end()) {
        auto u = m_units.find(path);
        if (u == m_units.end()) return std::nullopt;
        return u->second;
    }
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
    for (const std::string& p : m_unit_order) {
        if (path_matches(pattern, p)) out.push_back(p);
    }
    return out;
}

}  // namespace trainvp
