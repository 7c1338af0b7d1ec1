// The NoC training tests' reference: a ring all-reduce of `bytes` over a 4x4 mesh's 16 routers
// (ring_mapping, 68 B/cycle links, 8-flit packets), and its duration run alone on an idle
// network from cycle 0 (which does not depend on the start cycle).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "noc/collective/collective_traffic.h"
#include "noc/network/noc_network.h"
#include "noc/topology/noc_topology.h"
#include "noc/topology/route_table.h"
#include "workloads/collectives/collectives.h"

namespace trainvp::noc::test {

constexpr int k_ring_k = 4;

inline std::unique_ptr<collective_traffic> ring(std::uint64_t bytes) {
    return std::make_unique<collective_traffic>(
        collectives::ring_allreduce(k_ring_k * k_ring_k, bytes / 4), ring_mapping(k_ring_k), 68.0,
        8);
}

inline std::uint64_t alone(std::uint64_t bytes) {
    const auto t = noc_topology::mesh(k_ring_k);
    const auto rt = route_table::dimension_order(t);
    noc_network net(t, rt, network_config{});
    auto c = ring(bytes);
    c->attach(net);
    net.set_source(c.get());
    net.run_until(100000000);
    EXPECT_TRUE(c->done());
    return c->finish_cycle();
}

}  // namespace trainvp::noc::test
