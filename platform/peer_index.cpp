#include "platform/peer_index.h"

#include <algorithm>

namespace trainvp {

peer_index::peer_index(const std::map<std::string, ip_module*>& by_path, const platform_desc& desc)
    : m_by_path(by_path) {
    for (const connection_desc& c : desc.connections) {
        // The target's block: the path without its socket (and the socket's index).
        const std::size_t dot = c.to.rfind('.');
        if (dot == std::string::npos) continue;
        m_target_block.emplace(c.from, c.to.substr(0, dot));
    }
    const block_index blocks(by_path, desc);
    for (const auto& kv : by_path) {
        const std::optional<drivers::block_facts> f = blocks.block(kv.first);
        if (f && f->sink != nullptr && f->node_id) m_node_ids.push_back(*f->node_id);
    }
    std::sort(m_node_ids.begin(), m_node_ids.end());
    m_node_ids.erase(std::unique(m_node_ids.begin(), m_node_ids.end()), m_node_ids.end());
}

const ip_module* peer_index::target_of(const ip_module& self, const std::string& socket) const {
    auto it = m_target_block.find(self.path() + "." + socket);
    if (it == m_target_block.end()) return nullptr;
    auto b = m_by_path.find(it->second);
    return b == m_by_path.end() ? nullptr : b->second;
}

}  // namespace trainvp
