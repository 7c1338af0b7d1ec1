// What a block may ask of the other blocks of the assembled platform when it checks, before the
// run, that what it was given fits them (ip_module::validate_peers): the block an initiator
// socket of it reaches, and the node ids that blocks running ops answer to.  platform/
// implements it (platform/peer_index.h) after binding and the workload's hand-out, so `check`
// and `run` both see every such error before any simulated time passes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainvp {

class ip_module;

class peer_view {
public:
    virtual ~peer_view() = default;
    // The block that `self`'s initiator socket `socket` ("mem", "nic") is connected to, or null
    // when it is not connected.
    virtual const ip_module* target_of(const ip_module& self, const std::string& socket) const = 0;
    // The node ids (their `node_id` params) of the blocks that run ops, sorted, without repeats:
    // the ids a send can reach and a receive can hear from.
    virtual const std::vector<std::uint32_t>& op_node_ids() const = 0;
};

}  // namespace trainvp
