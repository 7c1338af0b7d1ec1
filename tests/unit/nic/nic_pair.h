// Two NICs of one type wired back to back (no link, no switch), each with a test driver and
// its own memory (12.8 GB/s, 100 ns: one 256 B burst takes 20 ns + 100 ns).  Node 0 sends one
// message of `bytes` to node 1, which expects it.  Shared by the NIC unit tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/sim_fixture.h"

namespace trainvp::test {

inline std::string nic_pair(const std::string& nic_type, const std::string& bytes,
                            const std::string& drv_extra, const std::string& nic_extra) {
    return R"(
templates:
  node:
    components:
      drv: {type: test.nic_driver, peer: 1, messages: 1, bytes: )" +
           bytes + drv_extra + R"(}
      nic: {type: )" +
           nic_type + R"(, node_id: "${index}", dma_burst: 4KiB )" + nic_extra +
           R"(}
      mem: {type: memory, bandwidth: 12.8GB/s, latency: 100ns}
    connections:
      - drv.nic -> nic.host
      - nic.notify -> drv.nic_notify
      - nic.pcie -> mem.target
components:
  n:
    template: node
    count: 2
    override:
      1: {drv: {peer: 0, messages: 0, expect: 1}}
connections:
  - n[0].nic.eth_tx -> n[1].nic.eth_rx
  - n[1].nic.eth_tx -> n[0].nic.eth_rx
)";
}

// Runs a platform to the end (it must finish) and returns its stats.json.
inline nlohmann::json run_stats(const std::string& yaml,
                                const std::vector<std::string>& sets = {}) {
    auto sim = make_sim(yaml, sets);
    sim->elaborate();
    run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FINISHED) << r.stall_report << r.error;
    return nlohmann::json::parse(sim->stats_json(r));
}

}  // namespace trainvp::test
