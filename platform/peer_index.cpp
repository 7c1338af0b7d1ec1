#include "platform/peer_index.h"

#include <algorithm>

#include "core/error.h"

namespace trainvp {

peer_index::peer_index(const std::map<std::string, ip_module*>& by_path, const platform_desc& desc)
    : m_by_path(by_path) {
    for (const connection_desc& c : desc.connections) {
        // The target's block: the path without its socket (and the socket's index).
        const std::size_t dot = c.to.rfind('.');
        if (dot == std::string::npos) continue;
        m_target_block.emplace(c.from, c.to.substr(0, dot));
    }
    // In config order, so that the second of two blocks with one id is the one reported.
    const block_index blocks(by_path, desc);
    std::map<std::uint32_t, std::string> owner;
    for (const instance_desc& inst : desc.instances) {
        if (auto it = by_path.find(inst.path); it != by_path.end()) m_blocks.push_back(it->second);
        const std::optional<drivers::block_facts> f = blocks.block(inst.path);
        if (!f || f->sink == nullptr || !f->node_id) continue;
        m_node_ids.push_back(*f->node_id);
        // A block without a NIC is reached by no message, whatever its id.
        if (!f->nic) continue;
        if (f->nic->takes_allreduce_ops()) m_allreduce_node_ids.push_back(*f->node_id);
        const auto [it, fresh] = owner.emplace(*f->node_id, inst.path);
        if (!fresh) {
            source_loc at = inst.loc;
            for (const param_value& p : inst.params) {
                if (p.name == "node_id") at = p.value.loc();
            }
            throw input_error(at, inst.path + ".node_id",
                              "node id " + std::to_string(*f->node_id) + " is already " +
                                  it->second + "'s; every block that runs ops and has a " +
                                  "NIC answers to a node id of its own (sends name it in `to`)");
        }
    }
    std::sort(m_node_ids.begin(), m_node_ids.end());
    m_node_ids.erase(std::unique(m_node_ids.begin(), m_node_ids.end()), m_node_ids.end());
    std::sort(m_allreduce_node_ids.begin(), m_allreduce_node_ids.end());
}

namespace {

std::string count_text(std::size_t n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

void peer_index::check_messages(const std::vector<ip_module*>& blocks) const {
    ops::message_pairing pairs;
    for (const ip_module* b : blocks) b->declare_messages(pairs);
    const std::optional<ops::message_pairing::mismatch> m =
        pairs.first_mismatch(m_allreduce_node_ids);
    if (!m) return;
    using problem = ops::message_pairing::problem;
    const auto site = [](const ops::message_pairing::entry& e, const char* field) {
        return static_cast<const ip_module*>(e.owner)->site_of_message(e.index, field);
    };
    const ops::message_pairing::entry& e = m->recv ? *m->recv : *m->send;
    const std::string src = "node " + std::to_string(e.src);
    const std::string dst = "node " + std::to_string(e.dst);
    const std::string tag = " with tag " + std::to_string(e.tag);
    switch (m->kind) {
        case problem::UNANSWERED_RECV: {
            const ip_module::message_site r = site(*m->recv, "from");
            throw input_error(r.where, r.key,
                              r.what + " waits for a message from " + src + tag + ", but " + src +
                                  "'s ops send " + count_text(m->sends, "message") + " to " + dst +
                                  tag + " and " + dst + "'s ops receive " +
                                  std::to_string(m->recvs) +
                                  ": no send is left for this receive, which would wait for ever");
        }
        case problem::UNTAKEN_SEND: {
            const ip_module::message_site s = site(*m->send, "to");
            throw input_error(s.where, s.key,
                              s.what + " sends to " + dst + tag + ", but " + dst +
                                  "'s ops receive " + count_text(m->recvs, "message") + " from " +
                                  src + tag + " and " + src + "'s ops send " +
                                  std::to_string(m->sends) + ": no receive is left for this send");
        }
        case problem::SIZE: {
            const ip_module::message_site r = site(*m->recv, "bytes");
            const ip_module::message_site s = site(*m->send, "bytes");
            throw input_error(r.where, r.key,
                              r.what + " receives " + std::to_string(m->recv->bytes) +
                                  " B, but the message it takes, from " + s.what + " of " + src +
                                  " (" + s.key + "), has " + std::to_string(m->send->bytes) +
                                  " B; a receive takes the sends of its node and tag in order, " +
                                  "and its size must be the message's");
        }
        case problem::ALLREDUCE_MISSING: {
            const ip_module::message_site s = site(*m->send, "tag");
            throw input_error(s.where, s.key,
                              s.what + " posts the all-reduce with tag " + std::to_string(e.tag) +
                                  ", which " + count_text(m->sends, "node") +
                                  (m->sends == 1 ? " posts" : " post") + " but node " +
                                  std::to_string(m->missing) +
                                  "'s ops never do: every node whose NIC runs all-reduces takes "
                                  "part in each, so the others would wait for ever");
        }
        case problem::ALLREDUCE_TWICE:
        case problem::ALLREDUCE_SIZE: {
            const bool twice = m->kind == problem::ALLREDUCE_TWICE;
            const ip_module::message_site r = site(*m->recv, twice ? "tag" : "bytes");
            const ip_module::message_site s = site(*m->send, twice ? "tag" : "bytes");
            throw input_error(
                r.where, r.key,
                r.what + (twice ? " posts the all-reduce with tag " + std::to_string(e.tag) +
                                      " a second time on node " + std::to_string(e.src) +
                                      " (first: " + s.key + "); give each all-reduce its own tag"
                                : " all-reduces " + std::to_string(m->recv->bytes) +
                                      " B with tag " + std::to_string(e.tag) + ", but " + s.key +
                                      " posts it with " + std::to_string(m->send->bytes) +
                                      " B; every node all-reduces the same size"));
        }
    }
}

const ip_module* peer_index::target_of(const ip_module& self, const std::string& socket) const {
    auto it = m_target_block.find(self.path() + "." + socket);
    if (it == m_target_block.end()) return nullptr;
    auto b = m_by_path.find(it->second);
    return b == m_by_path.end() ? nullptr : b->second;
}

}  // namespace trainvp
