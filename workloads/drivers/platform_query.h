// What a workload section may ask of the assembled platform, and all it may ask: the blocks by
// path, whether each runs ops and which node id it answers to, the NIC its `nic` socket
// reaches, and whether it is a chiplet package that runs a training plan.  platform/ implements it
// (platform/block_index.h) after binding; the sections never see a block, a connection or the
// config's instances.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/drivers/nic_capabilities.h"
#include "workloads/drivers/workload_sink.h"

namespace trainvp {
class chiplet_training_sink;  // workloads/drivers/chiplet_training_sink.h
}

namespace trainvp::drivers {

// The NIC a host sends through (the block its `nic` socket is connected to).
struct nic_facts {
    std::string path;
    std::string type;                                // its registered type, for messages
    const nic_capabilities* capabilities = nullptr;  // null: a block that declares none

    bool compresses_tos(std::uint8_t tos) const {
        return capabilities != nullptr && capabilities->compresses_tos(tos);
    }
    double functional_error_bound(std::uint8_t tos) const {
        return capabilities == nullptr ? 0.0 : capabilities->functional_error_bound(tos);
    }
    bool takes_allreduce_ops() const {
        return capabilities != nullptr && capabilities->takes_allreduce_ops();
    }
    bool runs_collective(const std::string& algorithm) const {
        return capabilities != nullptr && capabilities->runs_collective(algorithm);
    }
};

// One block as a workload sees it.
struct block_facts {
    std::string path;
    std::string type;               // its registered type, for messages
    workload_sink* sink = nullptr;  // null: it runs no ops
    // Its `node_id` param as configured, else its default (the id its NIC answers to); none
    // when its type declares no node_id.
    std::optional<std::uint32_t> node_id;
    std::optional<nic_facts> nic;  // none: its `nic` socket (if any) is not connected
    // The block as a chiplet package (noc.interposer); null: it runs no chiplet training.
    chiplet_training_sink* chiplet_training = nullptr;
};

class platform_query {
public:
    virtual ~platform_query() = default;
    // Every block's path, sorted (the candidates of a did-you-mean).
    virtual std::vector<std::string> paths() const = 0;
    // The block at `path`, or none.
    virtual std::optional<block_facts> block(const std::string& path) const = 0;
    // The paths a pattern with [*] matches ("node[*].host"), in config order.
    virtual std::vector<std::string> matching(const std::string& pattern) const = 0;
};

}  // namespace trainvp::drivers
