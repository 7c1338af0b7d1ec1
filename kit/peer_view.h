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
    // Every block of the platform, in config order (a block that must find its like: the
    // cards of a ring).
    virtual const std::vector<const ip_module*>& blocks() const = 0;

    // The memory that requests leaving `self` by `socket` land in: the block the socket
    // reaches, followed through blocks that pass requests on (a PCIe link passes what arrives
    // from its device to `host`: ip_module::passes_requests_to), up to one that serves
    // addresses (ip_module::address_space); null when the chain ends elsewhere.  `via` (when
    // given) gets the blocks passed on the way, "node[0].pcie".
    const ip_module* memory_behind(const ip_module& self, const std::string& socket,
                                   std::string* via = nullptr) const;
};

}  // namespace trainvp
