// The built platform as the workload sections see it (drivers::platform_query): blocks by
// path, whether each runs ops (workload_sink), its node id as configured, the NIC its `nic`
// socket is connected to (nic_capabilities), and whether it runs chiplet training
// (chiplet_training_sink).  A block with units of its own that run ops (workload_units:
// noc.interposer's chiplets) adds each unit as a block at its path (noc.chiplet[3]) with the
// owner's type, its node id and its sink.  The simulation makes one after binding and hands
// the `workload:` section out through it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kit/ip_module.h"
#include "platform/platform_desc.h"
#include "workloads/drivers/platform_query.h"

namespace trainvp {

class block_index : public drivers::platform_query {
public:
    block_index(const std::map<std::string, ip_module*>& by_path, const platform_desc& desc);

    std::vector<std::string> paths() const override;
    std::optional<drivers::block_facts> block(const std::string& path) const override;
    std::vector<std::string> matching(const std::string& pattern) const override;

private:
    const std::map<std::string, ip_module*>& m_by_path;
    const platform_desc& m_desc;
    std::map<std::string, const instance_desc*> m_instances;
    // The units of blocks that have them (workload_units), by their paths, in block order.
    std::map<std::string, drivers::block_facts> m_units;
    std::vector<std::string> m_unit_order;
    // A block's `nic` socket -> the path of the block its first connection reaches.
    std::map<std::string, std::string> m_nic_of;
};

}  // namespace trainvp
