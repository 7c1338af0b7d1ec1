// The plain NIC on its own: two NICs wired back to back (no link, no switch), each DMAing
// from/to its own memory.  Closed forms are written out term by term.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ip/nic/nic_base.h"
#include "kit/registry.h"
#include "tests/support/sim_fixture.h"
#include "tests/unit/nic/nic_pair.h"

namespace trainvp {
namespace {

// A NIC as a plugin writes one: nic_base with a per-frame hook (1 us of processing per TX frame)
// and no train hooks.  It must send frame by frame at message granularity too (sends_trains is
// false unless a NIC says otherwise), or its middle frames would skip the hook.
class frame_hook_nic : public ip::nic_base {
public:
    frame_hook_nic(const sc_core::sc_module_name& name, const params& p) : nic_base(name, p) {
        p.apply(*this);
    }
    static void declare(type_decl<frame_hook_nic>& d) {
        d.describe("Test NIC: nic_base with 1 us of processing per TX frame (tests/unit/nic)");
        declare_common(d);
    }

protected:
    sc_core::sc_time tx_process(tx_frame& f) override {
        return f.ready + sc_core::sc_time(1, sc_core::SC_US);
    }
};
TRAINVP_REGISTER_IP(frame_hook_nic, "test.frame_hook_nic");

std::string pair(const std::string& bytes, const std::string& nic_extra = "") {
    return test::nic_pair("nic.basic", bytes, "", nic_extra);
}

nlohmann::json run(const std::string& yaml, const std::vector<std::string>& sets = {}) {
    return test::run_stats(yaml, sets);
}

std::uint64_t stat(const nlohmann::json& j, const std::string& block, const std::string& s) {
    return static_cast<std::uint64_t>(j["blocks"][block]["stats"][s]["value"].get<double>());
}

// One frame of 1000 B payload: wire = 1000 + 40 (IP+TCP) + 38 (Ethernet, preamble, gap).
//   DMA read at A:  1000 B / 12.8 GB/s = 78.125 ns -> 78125 ps, + 100 ns latency
//   MAC at 10 Gb/s: 1078 B * 8 / 10e9 = 862.4 ns
//   DMA write at B: 78125 ps + 100 ns
TEST(nic, one_frame_closed_form) {
    auto j = run(pair("1000B"));
    const std::uint64_t dma = 78125 + 100000;
    const std::uint64_t mac = 862400;
    EXPECT_EQ(stat(j, "n[0].drv", "last_send_done"), dma + mac);
    EXPECT_EQ(stat(j, "n[1].drv", "last_received"), dma + mac + dma);
    EXPECT_EQ(stat(j, "n[0].nic", "tx_frames"), 1u);
    EXPECT_EQ(stat(j, "n[0].nic", "tx_wire"), 1078u);
    EXPECT_EQ(stat(j, "n[1].nic", "rx_payload"), 1000u);
    EXPECT_EQ(stat(j, "n[1].mem", "bytes_written"), 1000u);
    EXPECT_EQ(stat(j, "n[0].mem", "bytes_read"), 1000u);
}

// A message of 100 full frames (1460 B payload each): the MAC is the bottleneck (1538 B at
// 10 Gb/s = 1230.4 ns per frame vs 214 ns of DMA), so the last frame leaves at
//   first frame fetched (1460 B / 12.8 GB/s + 100 ns = 214.0625 ns) + 100 x 1230.4 ns
// and arrives in B's memory one DMA write later.
TEST(nic, mac_bound_message_pipeline) {
    auto j = run(pair("146000B"));
    const std::uint64_t dma = 114063 + 100000;  // 1460/12.8e9 = 114.0625 ns, rounded to ps
    const std::uint64_t mac = 1230400;
    EXPECT_EQ(stat(j, "n[0].drv", "last_send_done"), dma + 100 * mac);
    EXPECT_EQ(stat(j, "n[1].drv", "last_received"), dma + 100 * mac + dma);
    EXPECT_EQ(stat(j, "n[0].nic", "tx_frames"), 100u);
    EXPECT_EQ(stat(j, "n[1].nic", "rx_messages"), 1u);
}

// efficiency 0.21 (the VC709 reference design's ~2.1 Gb/s): each frame takes 1230.4 / 0.21 ns.
TEST(nic, efficiency_below_line_rate) {
    auto j = run(pair("146000B", ", efficiency: 0.21"));
    const std::uint64_t dma = 114063 + 100000;
    const std::uint64_t mac = 5859048;  // 1538*8 / (10e9*0.21) s = 5859.0476 ns
    EXPECT_EQ(stat(j, "n[0].drv", "last_send_done"), dma + 100 * mac);
}

// Costs per message and per frame add where they sit in the pipeline.
TEST(nic, message_and_frame_costs) {
    auto j = run(pair("1000B", ", message_cost: 5us, tx_frame_cost: 300ns, rx_frame_cost: 200ns"));
    const std::uint64_t dma = 78125 + 100000;
    EXPECT_EQ(stat(j, "n[1].drv", "last_received"), 5000000 + dma + 300000 + 862400 + 200000 + dma);
}

// 100 full frames, each ready 1 us after its DMA: the first leaves at dma + 1 us, the rest
// follow at the MAC's 1230.4 ns, at packet and at message granularity alike (one elaboration
// per process: one TEST each).
void expect_frame_by_frame(const std::string& grain) {
    auto j = run(test::nic_pair("test.frame_hook_nic", "146000B", "", ""),
                 {"simulation.granularity=" + grain});
    const std::uint64_t dma = 114063 + 100000, hook = 1000000, mac = 1230400;
    EXPECT_EQ(stat(j, "n[0].drv", "last_send_done"), dma + hook + 100 * mac);
    EXPECT_EQ(stat(j, "n[1].drv", "last_received"), dma + hook + 100 * mac + dma);
}

TEST(nic, a_nic_with_only_frame_hooks_at_packet_granularity) { expect_frame_by_frame("packet"); }

TEST(nic, a_nic_with_only_frame_hooks_sends_frame_by_frame_at_message_granularity) {
    expect_frame_by_frame("message");
}

}  // namespace
}  // namespace trainvp
