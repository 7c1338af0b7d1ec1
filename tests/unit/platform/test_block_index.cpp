// platform/block_index: the built platform as the workload sections see it (a block's node id as
// configured, whether it runs ops, the NIC its `nic` socket reaches and what that NIC can do),
// and patterns in config order.  Elaborates SystemC: one TEST per process.
#include <gtest/gtest.h>

#include "kit/registry.h"
#include "platform/block_index.h"
#include "platform/platform_loader.h"
#include "platform/simulation.h"

namespace trainvp {
namespace {

TEST(block_index, answers_for_hosts_their_node_id_sink_and_nic) {
    platform_loader loader(registry::global());
    simulation sim(loader.load("configs/examples/training_ring.yaml", {"node[2].host.node_id=7"}),
                   registry::global());
    sim.elaborate();
    std::map<std::string, ip_module*> by_path;
    for (ip_module* b : sim.blocks()) by_path.emplace(b->path(), b);
    const block_index index(by_path, sim.desc());

    const auto host = index.block("node[2].host");
    ASSERT_TRUE(host.has_value());
    EXPECT_EQ(host->type, "host.cpu");
    EXPECT_NE(host->sink, nullptr);
    EXPECT_EQ(host->node_id, 7u);
    ASSERT_TRUE(host->nic.has_value());
    EXPECT_EQ(host->nic->path, "node[2].nic");
    EXPECT_EQ(host->nic->type, "nic.basic");
    EXPECT_FALSE(host->nic->compresses_tos(k_tos_compressible));

    const auto mem = index.block("node[0].mem");
    ASSERT_TRUE(mem.has_value());
    EXPECT_EQ(mem->sink, nullptr);
    EXPECT_FALSE(mem->node_id.has_value());
    EXPECT_FALSE(index.block("node[9].host").has_value());

    EXPECT_EQ(
        index.matching("node[*].host"),
        (std::vector<std::string>{"node[0].host", "node[1].host", "node[2].host", "node[3].host"}));
}

TEST(block_index, a_compression_nic_says_what_it_compresses) {
    platform_loader loader(registry::global());
    simulation sim(loader.load("configs/papers/inceptionn/inc_c_hdc.yaml"), registry::global());
    sim.elaborate();
    std::map<std::string, ip_module*> by_path;
    for (ip_module* b : sim.blocks()) by_path.emplace(b->path(), b);
    const auto host = block_index(by_path, sim.desc()).block("node[1].host");
    ASSERT_TRUE(host.has_value() && host->nic.has_value());
    EXPECT_EQ(host->node_id, 1u);
    EXPECT_EQ(host->nic->type, "nic.inceptionn");
    EXPECT_TRUE(host->nic->compresses_tos(k_tos_compressible));
    EXPECT_FALSE(host->nic->compresses_tos(0));
}

}  // namespace
}  // namespace trainvp
