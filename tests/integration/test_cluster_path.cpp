// One message of S bytes from node 0's memory to node 1's memory through the whole cluster
// path of configs/examples/two_nodes.yaml:
//   DMA read -> PCIe (Gen2 x8) -> NIC -> 10 GbE link -> switch (store-and-forward) -> link
//   -> NIC -> PCIe -> DMA write into memory.
// The expected time is written out term by term below from the blocks' documented timing; the
// simulation must agree within 1 % (the bound) for S from 64 B to 64 MB.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "tests/support/sim_fixture.h"
#include "tests/support/test_util.h"

namespace trainvp {
namespace {

// Parameters of configs/examples/cluster_node.yaml and the blocks' defaults.
constexpr double k_pcie_rate = 8 * 5e9 * 8.0 / 10.0 / 8.0;  // Gen2 x8: lanes*GT/s*8b/10b / 8
constexpr std::uint64_t k_pcie_lat = 200000;                // pcie.link latency, ps
constexpr std::uint64_t k_req_overhead = 24, k_cpl_overhead = 20, k_dllp = 4;  // bytes/TLP
constexpr std::uint64_t k_mps = 256;                                           // max payload
constexpr double k_mem_bw = 59.7e9;                // memory bandwidth, B/s
constexpr std::uint64_t k_mem_lat = 80000;         // memory latency, ps
constexpr std::uint64_t k_dma_burst = 256;         // nic.basic dma_burst
constexpr std::uint64_t k_mss = 1500 - 40;         // MTU - IPv4 - TCP
constexpr std::uint64_t k_l2 = 38;                 // Eth hdr+FCS+preamble+gap
constexpr std::uint64_t k_ps_per_wire_byte = 800;  // 8 bits at 10 Gb/s
constexpr std::uint64_t k_prop = 10000;            // link propagation, ps
constexpr std::uint64_t k_switch_lat = 1000000;    // switch port-to-port, ps

std::uint64_t round_ps(double seconds_times_1e12) {
    return static_cast<std::uint64_t>(std::llround(seconds_times_1e12));
}
std::uint64_t tlp_ps(std::uint64_t payload, std::uint64_t overhead) {
    return round_ps(static_cast<double>(payload + overhead + k_dllp) * 1e12 / k_pcie_rate);
}
std::uint64_t mem_ps(std::uint64_t bytes) {
    return round_ps(static_cast<double>(bytes) * 1e12 / k_mem_bw);
}

// DMA read of `len` bytes from host memory, issued at 0: one read request per DMA burst (a
// burst fits one request), requests serialised on the upstream wire, each served by the
// memory channel after it arrives, its completion TLPs serialised on the downstream wire.
std::uint64_t dma_read_ps(std::uint64_t len) {
    std::uint64_t up_free = 0, mem_free = 0, down_free = 0, done = 0;
    for (std::uint64_t off = 0; off < len; off += k_dma_burst) {
        const std::uint64_t r = std::min(k_dma_burst, len - off);
        up_free += tlp_ps(0, k_req_overhead);
        const std::uint64_t arrival = up_free + k_pcie_lat;
        mem_free = std::max(arrival, mem_free) + mem_ps(r);
        const std::uint64_t mem_done = mem_free + k_mem_lat;
        for (std::uint64_t c = 0; c < r; c += k_mps) {
            down_free =
                std::max(down_free, mem_done) + tlp_ps(std::min(k_mps, r - c), k_cpl_overhead);
            done = std::max(done, down_free + k_pcie_lat);
        }
    }
    return done;
}

// DMA write of `len` bytes issued at 0: posted write TLPs serialised upstream, each written to
// memory when it arrives.
std::uint64_t dma_write_ps(std::uint64_t len) {
    std::uint64_t up_free = 0, mem_free = 0, done = 0;
    for (std::uint64_t off = 0; off < len; off += k_dma_burst) {
        const std::uint64_t w = std::min(k_dma_burst, len - off);
        for (std::uint64_t c = 0; c < w; c += k_mps) {
            up_free += tlp_ps(std::min(k_mps, w - c), k_req_overhead);
            mem_free = std::max(up_free + k_pcie_lat, mem_free) + mem_ps(std::min(k_mps, w - c));
            done = std::max(done, mem_free + k_mem_lat);
        }
    }
    return done;
}

// Wire time of a frame carrying `payload` bytes, padded to the 84 B minimum.
std::uint64_t wire_ps(std::uint64_t payload) {
    return std::max<std::uint64_t>(payload + 40 + k_l2, 84) * k_ps_per_wire_byte;
}

// Time the DMA write of `len` bytes occupies the upstream PCIe wire.
std::uint64_t write_wire_ps(std::uint64_t len) {
    std::uint64_t t = 0;
    for (std::uint64_t off = 0; off < len; off += k_mps)
        t += tlp_ps(std::min(k_mps, len - off), k_req_overhead);
    return t;
}

// The 10 GbE wire is the slowest stage (a 1460 B frame takes 1230.4 ns on it, its DMA read
// about 0.5 us, and the NIC prefetches 8 frames), and node 0's link and the switch's egress
// link run at the same rate, so once frame 0 is out both links stay busy:
//   egress starts  = fetch(frame 0) + wire(frame 0) + propagation + switch latency (SAF)
//   last bit out   = egress starts + sum over frames of wire time
//   arrives at 1   = last bit out + propagation
//   its DMA write  starts at arrival, or when the previous frame's write TLPs have left the
//                  PCIe wire if the last frame followed too closely (a short last frame)
//   T              = write start + DMA write of the last frame's payload
std::uint64_t expected_ps(std::uint64_t bytes) {
    const std::uint64_t frames = std::max<std::uint64_t>(1, (bytes + k_mss - 1) / k_mss);
    const std::uint64_t last = bytes - (frames - 1) * k_mss;
    const std::uint64_t first = std::min(bytes, k_mss);
    const std::uint64_t egress = dma_read_ps(first) + wire_ps(first) + k_prop + k_switch_lat;
    const std::uint64_t out = egress + (frames - 1) * wire_ps(k_mss) + wire_ps(last);
    const std::uint64_t arrival = out + k_prop;
    std::uint64_t write_start = arrival;
    if (frames > 1) {
        const std::uint64_t previous_arrival = arrival - wire_ps(last);
        write_start = std::max(arrival, previous_arrival + write_wire_ps(k_mss));
    }
    return write_start + dma_write_ps(last);
}

class cluster_path : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(cluster_path, one_message_matches_the_stage_by_stage_formula) {
    const std::uint64_t bytes = GetParam();
    const std::string config =
        test::read_file(std::string(TRAINVP_SOURCE_DIR) + "/configs/examples/two_nodes.yaml");
    const std::string node =
        test::read_file(std::string(TRAINVP_SOURCE_DIR) + "/configs/examples/cluster_node.yaml");
    // The include is resolved by writing both files side by side.
    auto dir = test::temp_dir("path");
    test::write_file(dir / "cluster_node.yaml", node);
    test::write_file(dir / "two_nodes.yaml", config);
    platform_loader loader(registry::global());
    const std::string b = std::to_string(bytes) + "B";
    platform_desc d = loader.load((dir / "two_nodes.yaml").string(),
                                  {"workload.ops.\"node[0].host\"[0].bytes=" + b,
                                   "workload.ops.\"node[1].host\"[0].bytes=" + b});
    simulation sim(std::move(d), registry::global());
    sim.elaborate();
    run_result r = sim.run();
    ASSERT_EQ(r.status, run_status::FINISHED) << r.stall_report;
    const double expected = static_cast<double>(expected_ps(bytes));
    const double got = static_cast<double>(r.end_time.value());
    // Each stage above mirrors the model's timing, so only picosecond rounding separates the
    // two; the bound is the 1 %.
    EXPECT_NEAR(got, expected, 0.01 * expected) << "bytes=" << bytes;
    RecordProperty("relative_error", std::to_string((got - expected) / expected));
    auto j = nlohmann::json::parse(sim.stats_json(r));
    EXPECT_EQ(j["blocks"]["node[1].mem"]["stats"]["bytes_written"]["value"], bytes);
    EXPECT_EQ(j["blocks"]["node[0].nic"]["stats"]["tx_payload"]["value"], bytes);
    EXPECT_EQ(j["blocks"]["node[1].nic"]["stats"]["rx_payload"]["value"], bytes);
}

INSTANTIATE_TEST_SUITE_P(sizes, cluster_path,
                         ::testing::Values(1, 64, 1000, 1460, 1461, 4096, 65536, 1000000, 64000000),
                         [](const ::testing::TestParamInfo<std::uint64_t>& i) {
                             return std::to_string(i.param) + "B";
                         });

}  // namespace
}  // namespace trainvp
