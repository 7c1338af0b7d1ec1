// The built platform as a block sees its peers in the validation phase (kit/peer_view.h): the
// connections' initiator sockets by path, and the node ids of the blocks that run ops.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "kit/ip_module.h"
#include "kit/peer_view.h"
#include "platform/block_index.h"
#include "platform/platform_desc.h"

namespace trainvp {

class peer_index : public peer_view {
public:
    // Throws input_error when two blocks that run ops answer to one node id (at the second's
    // `node_id`).
    peer_index(const std::map<std::string, ip_module*>& by_path, const platform_desc& desc);

    const ip_module* target_of(const ip_module& self, const std::string& socket) const override;
    const std::vector<std::uint32_t>& op_node_ids() const override { return m_node_ids; }
    const std::vector<const ip_module*>& blocks() const override { return m_blocks; }

    // The sends and receives of the op lists known before the run (ip_module::
    // declare_messages) paired across `blocks`: throws input_error at the first receive no
    // send answers, send no receive takes, or receive whose size is not its message's.
    // The nodes of an all-reduce handed to the network are the op-running blocks whose NIC
    // takes allreduce ops: each must post every tag once, with one size.
    void check_messages(const std::vector<ip_module*>& blocks) const;

private:
    const std::map<std::string, ip_module*>& m_by_path;
    // "node[0].host.mem" -> the block path its connection names ("node[0].mem").
    std::unordered_map<std::string, std::string> m_target_block;
    std::vector<std::uint32_t> m_node_ids;
    std::vector<const ip_module*> m_blocks;           // in config order
    std::vector<std::uint32_t> m_allreduce_node_ids;  // sorted
};

}  // namespace trainvp
