// pcie.link against closed forms written from the PCI Express Base Specification: effective
// write and read bandwidth, the latency of one small read, credit-limited throughput, the TLP
// and byte counts, and the checks of its params.  Each TEST elaborates SystemC and so runs in
// its own process.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "platform/platform_loader.h"
#include "tests/support/sim_fixture.h"
#include "tests/unit/pcie/dma_test_blocks.h"

namespace trainvp {
namespace {

// ---- The hand formulas, term by term -----------------------------------------------------

// Raw signalling rate per lane, GT/s (PCIe Base Spec rev 3.0 §4.2; rev 4.0: 16; rev 5.0: 32).
double raw_gts(int gen) {
    const double r[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0};
    return r[gen];
}
// Line-encoding efficiency: 8b/10b for 2.5 and 5 GT/s, 128b/130b from 8 GT/s on.
double encoding(int gen) { return gen <= 2 ? 8.0 / 10.0 : 128.0 / 130.0; }
// Bytes per second the link moves after encoding: lanes * GT/s * encoding / 8.
double effective_raw_rate(int gen, int lanes) {
    return lanes * raw_gts(gen) * 1e9 * encoding(gen) / 8.0;
}
// Request TLP overhead with 64-bit addresses: framing token incl. sequence number 4 B + 4-DW
// header 16 B + LCRC 4 B.
constexpr double k_request_overhead = 4 + 16 + 4;
// Completion TLP overhead: framing 4 B + 3-DW header 12 B + LCRC 4 B.
constexpr double k_completion_overhead = 4 + 12 + 4;
// DLLP share per TLP: (Ack 8 B + UpdateFC 8 B) per 4 TLPs.
constexpr double k_dllp_per_tlp = (8.0 + 8.0) / 4.0;

// Streaming bandwidth of data in TLPs of `mps` bytes with `overhead` bytes each.
double tlp_stream_bandwidth(int gen, int lanes, double mps, double overhead) {
    return effective_raw_rate(gen, lanes) * mps / (mps + overhead + k_dllp_per_tlp);
}

// Time one TLP of `wire` bytes (DLLP share included) occupies the link, rounded to the ps as
// the model does.
std::uint64_t tlp_ps(int gen, int lanes, double wire) {
    return static_cast<std::uint64_t>(std::llround(wire * 1e12 / effective_raw_rate(gen, lanes)));
}

// ---- Platforms ----------------------------------------------------------------------------

// A dma_channel driver writing or reading through a link into a fast memory: 256 GB/s, so that
// a 256 B TLP takes exactly 1 ns there and memory never limits the link.
std::string dma_platform(int gen, int lanes, const std::string& command, const std::string& bytes) {
    return R"(
components:
  drv:  {type: test.dma_driver, command: )" +
           command + ", bytes: " + bytes + R"(, burst: 4KiB, outstanding: 64}
  link: {type: pcie.link, gen: )" +
           std::to_string(gen) + ", lanes: " + std::to_string(lanes) + R"(}
  mem:  {type: memory, bandwidth: 256GB/s, latency: 80ns, size: 1TiB}
connections:
  - drv.out -> link.dev
  - link.host -> mem.target
)";
}

// A traffic generator (single messages) through a link into the default memory
// (25.6 GB/s, 80 ns).
const std::string k_gen_link_mem = R"(
components:
  gen:  {type: traffic.generator, message_size: 64B, messages: 1}
  link: {type: pcie.link}
  mem:  {type: memory}
connections:
  - gen.out -> link.dev
  - link.host -> mem.target
)";

struct run_out {
    run_result r;
    nlohmann::json stats;
};

run_out run(const std::string& yaml, const std::vector<std::string>& sets = {}) {
    auto sim = test::make_sim(yaml, sets);
    sim->elaborate();
    run_out o;
    o.r = sim->run();
    EXPECT_EQ(o.r.status, run_status::FINISHED);
    o.stats = nlohmann::json::parse(sim->stats_json(o.r));
    return o;
}

const nlohmann::json& link_stat(const run_out& o, const std::string& name) {
    return o.stats["blocks"]["link"]["stats"][name];
}

struct bw_case {
    const char* name;
    int gen;
    int lanes;
};
void PrintTo(const bw_case& c, std::ostream* os) { *os << c.name; }

class pcie_bandwidth : public ::testing::TestWithParam<bw_case> {};

// A 64 MiB DMA write streams at R * MPS / (MPS + TLP overhead + DLLP share).
TEST_P(pcie_bandwidth, large_dma_write_matches_the_hand_formula) {
    const bw_case& c = GetParam();
    const std::uint64_t bytes = 64ull << 20;
    auto sim = test::make_sim(dma_platform(c.gen, c.lanes, "write", "64MiB"));
    sim->elaborate();
    const run_result r = sim->run();
    ASSERT_EQ(r.status, run_status::FINISHED);
    auto* drv = dynamic_cast<test::dma_driver*>(sim->block("drv"));
    ASSERT_NE(drv, nullptr);
    const dma_channel::result& res = drv->result();
    const double seconds = (res.done - res.first_issue).to_seconds();
    const double simulated = static_cast<double>(bytes) / seconds;

    const double hand = tlp_stream_bandwidth(c.gen, c.lanes, 256, k_request_overhead);
    std::printf("%s write: hand %.4f GB/s, simulated %.4f GB/s (%+.4f%%)\n", c.name, hand / 1e9,
                simulated / 1e9, (simulated / hand - 1) * 100);
    EXPECT_NEAR(simulated / hand, 1.0, 0.01);

    // Exactly: N back-to-back TLPs, the last one's flight, and memory taking it
    // (256 B at 256 GB/s = 1 ns, then 80 ns).
    const std::uint64_t n = bytes / 256;
    const std::uint64_t t_tlp = tlp_ps(c.gen, c.lanes, 256 + k_request_overhead + k_dllp_per_tlp);
    EXPECT_EQ((res.done - res.first_issue).value(), n * t_tlp + 200000 + 1000 + 80000);

    const nlohmann::json stats = nlohmann::json::parse(sim->stats_json(r));
    const auto& s = stats["blocks"]["link"]["stats"];
    EXPECT_EQ(s["up_tlps"]["value"], n);
    EXPECT_EQ(s["up_credit_stalls"]["value"], 0);
    EXPECT_NEAR(s["up_efficiency"]["value"].get<double>(), 256.0 / 284.0, 1e-12);
}

// A 64 MiB DMA read streams its completions at R * MPS / (MPS + completion overhead + DLLP);
// the 28-byte read requests upstream never limit it.
TEST_P(pcie_bandwidth, large_dma_read_matches_the_hand_formula) {
    const bw_case& c = GetParam();
    const std::uint64_t bytes = 64ull << 20;
    auto sim = test::make_sim(dma_platform(c.gen, c.lanes, "read", "64MiB"));
    sim->elaborate();
    ASSERT_EQ(sim->run().status, run_status::FINISHED);
    auto* drv = dynamic_cast<test::dma_driver*>(sim->block("drv"));
    const dma_channel::result& res = drv->result();
    const double simulated = static_cast<double>(bytes) / (res.done - res.first_issue).to_seconds();
    const double hand = tlp_stream_bandwidth(c.gen, c.lanes, 256, k_completion_overhead);
    std::printf("%s read: hand %.4f GB/s, simulated %.4f GB/s (%+.4f%%)\n", c.name, hand / 1e9,
                simulated / 1e9, (simulated / hand - 1) * 100);
    EXPECT_NEAR(simulated / hand, 1.0, 0.01);
}

INSTANTIATE_TEST_SUITE_P(links, pcie_bandwidth,
                         ::testing::Values(bw_case{"gen3x8", 3, 8}, bw_case{"gen4x16", 4, 16},
                                           bw_case{"gen1x1", 1, 1}, bw_case{"gen5x16", 5, 16}),
                         [](const ::testing::TestParamInfo<bw_case>& i) {
                             return std::string(i.param.name);
                         });

// Worked numbers for the report: Gen3 x8 moves 7.877 GB/s after encoding; 256 B TLPs carry
// 256 of 284 bytes.
TEST(pcie_link, hand_formula_values) {
    EXPECT_NEAR(effective_raw_rate(3, 8), 7.876923e9, 1e3);
    EXPECT_NEAR(tlp_stream_bandwidth(3, 8, 256, k_request_overhead), 7.100325e9, 1e3);
    EXPECT_NEAR(effective_raw_rate(4, 16), 31.507692e9, 1e3);
    EXPECT_NEAR(tlp_stream_bandwidth(4, 16, 256, k_request_overhead), 28.401300e9, 1e3);
}

// One 64 B read: request TLP up, flight, memory, one completion TLP down, flight.
TEST(pcie_link, small_read_latency_closed_form) {
    const run_out o = run(k_gen_link_mem, {"gen.command=read"});
    const std::uint64_t request = tlp_ps(3, 8, 0 + k_request_overhead + k_dllp_per_tlp);
    const std::uint64_t completion = tlp_ps(3, 8, 64 + k_completion_overhead + k_dllp_per_tlp);
    const std::uint64_t memory = 2500 + 80000;  // 64 B at 25.6 GB/s, then 80 ns
    const std::uint64_t latency = 200000;
    EXPECT_EQ(request, 3555u);      // 28 B at 7.877 GB/s
    EXPECT_EQ(completion, 11172u);  // 88 B
    EXPECT_EQ(o.r.end_time.value(), request + latency + memory + completion + latency);
    EXPECT_EQ(link_stat(o, "up_tlps")["value"], 1);
    EXPECT_EQ(link_stat(o, "down_tlps")["value"], 1);
    EXPECT_EQ(link_stat(o, "read_latency")["max"].get<double>(),
              static_cast<double>(o.r.end_time.value()) / 1000.0);
}

// One 256 B write: one TLP, its flight, memory (256 B at 25.6 GB/s = 10 ns, then 80 ns).
TEST(pcie_link, small_write_latency_closed_form) {
    const run_out o = run(k_gen_link_mem, {"gen.message_size=256B"});
    EXPECT_EQ(o.r.end_time.value(),
              tlp_ps(3, 8, 256 + k_request_overhead + k_dllp_per_tlp) + 200000 + 10000 + 80000);
}

// 8b/10b: a Gen1 x1 lane moves 250 MB/s, so a 284-byte TLP takes exactly 1136 ns.
TEST(pcie_link, gen1_uses_8b10b) {
    const run_out o = run(k_gen_link_mem, {"gen.message_size=256B", "link.gen=1", "link.lanes=1"});
    EXPECT_EQ(o.r.end_time.value(), 1136000u + 200000 + 10000 + 80000);
}

// Gen2 x4 moves 4 x 5 GT/s x 8/10 / 8 = 2 GB/s: 142 ns per 284-byte TLP.
TEST(pcie_link, gen2_uses_8b10b) {
    const run_out o = run(k_gen_link_mem, {"gen.message_size=256B", "link.gen=2", "link.lanes=4"});
    EXPECT_EQ(o.r.end_time.value(), 142000u + 200000 + 10000 + 80000);
}

// Few credits and a long flight: TLP i waits for TLP i-C's credit (arrival + latency), so the
// TLPs go in groups of C every t + 2*latency:
//   T = (N/C - 1) * (t + 2*latency) + C*t + latency + memory,
// and the stream runs at C * MPS / (t + 2*latency) instead of MPS / t.
TEST(pcie_link, credit_limited_throughput_closed_form) {
    const std::uint64_t credits = 4, n = 256, latency = 1000000;
    const run_out o =
        run(k_gen_link_mem, {"gen.message_size=64KiB", "link.credits=4", "link.latency=1us"});
    const std::uint64_t t = tlp_ps(3, 8, 256 + k_request_overhead + k_dllp_per_tlp);
    const std::uint64_t period = t + 2 * latency;
    ASSERT_LT(credits * t, period) << "the case must be credit-bound";
    EXPECT_EQ(o.r.end_time.value(),
              (n / credits - 1) * period + credits * t + latency + 10000 + 80000);
    // Every group but the first waits for credits with the wire idle.
    EXPECT_EQ(link_stat(o, "up_credit_stalls")["value"], n / credits - 1);
    EXPECT_NEAR(link_stat(o, "up_credit_stall_time")["value"].get<double>(),
                static_cast<double>((n / credits - 1) * (period - credits * t)) / 1000.0, 1e-6);
    const double throughput = 65536.0 / (static_cast<double>(o.r.end_time.value()) * 1e-12);
    const double bound = credits * 256.0 / (static_cast<double>(period) * 1e-12);
    EXPECT_NEAR(throughput / bound, 1.0, 0.02);  // the last group's tail is the difference
}

// service_order: time serves TLPs made in time order exactly as call order does: the same
// credit-bound closed form (credits counted at each TLP's start: C TLPs hold theirs until
// arrival + latency), the same stalls; and the 64 B read of small_read_latency_closed_form.
TEST(pcie_link, time_order_keeps_the_credit_bound_closed_form) {
    const std::uint64_t credits = 4, n = 256, latency = 1000000;
    const run_out o =
        run(k_gen_link_mem, {"gen.message_size=64KiB", "link.credits=4", "link.latency=1us",
                             "link.service_order=time", "mem.service_order=time"});
    const std::uint64_t t = tlp_ps(3, 8, 256 + k_request_overhead + k_dllp_per_tlp);
    const std::uint64_t period = t + 2 * latency;
    EXPECT_EQ(o.r.end_time.value(),
              (n / credits - 1) * period + credits * t + latency + 10000 + 80000);
    EXPECT_EQ(link_stat(o, "up_credit_stalls")["value"], n / credits - 1);
    EXPECT_NEAR(link_stat(o, "up_credit_stall_time")["value"].get<double>(),
                static_cast<double>((n / credits - 1) * (period - credits * t)) / 1000.0, 1e-6);
}

TEST(pcie_link, time_order_keeps_the_small_read_closed_form) {
    const run_out r = run(
        k_gen_link_mem, {"gen.command=read", "link.service_order=time", "mem.service_order=time"});
    const std::uint64_t request = tlp_ps(3, 8, 0 + k_request_overhead + k_dllp_per_tlp);
    const std::uint64_t completion = tlp_ps(3, 8, 64 + k_completion_overhead + k_dllp_per_tlp);
    EXPECT_EQ(r.r.end_time.value(), request + 200000 + 2500 + 80000 + completion + 200000);
}

// TLP and byte accounting: a 64 KiB write is 256 MWr TLPs of 256 B.
TEST(pcie_link, write_tlp_and_byte_counts) {
    const run_out w = run(k_gen_link_mem, {"gen.message_size=64KiB"});
    EXPECT_EQ(link_stat(w, "up_tlps")["value"], 256);
    EXPECT_EQ(link_stat(w, "up_payload")["value"], 65536);
    EXPECT_EQ(link_stat(w, "up_wire_bytes")["value"], 256 * 284);
    EXPECT_EQ(link_stat(w, "down_tlps")["value"], 0);
    EXPECT_EQ(link_stat(w, "bytes_written")["value"], 65536);
    EXPECT_EQ(w.stats["blocks"]["mem"]["stats"]["writes"]["value"], 256);
}

// A 64 KiB read is 128 MRd requests (512 B each) up and 256 completions down.
TEST(pcie_link, read_tlp_and_byte_counts) {
    const run_out r = run(k_gen_link_mem, {"gen.message_size=64KiB", "gen.command=read"});
    EXPECT_EQ(link_stat(r, "up_tlps")["value"], 128);
    EXPECT_EQ(link_stat(r, "up_payload")["value"], 0);
    EXPECT_EQ(link_stat(r, "up_wire_bytes")["value"], 128 * 28);
    EXPECT_EQ(link_stat(r, "down_tlps")["value"], 256);
    EXPECT_EQ(link_stat(r, "down_wire_bytes")["value"], 256 * 280);
    EXPECT_NEAR(link_stat(r, "down_efficiency")["value"].get<double>(), 256.0 / 280.0, 1e-12);
    EXPECT_EQ(r.stats["blocks"]["mem"]["stats"]["reads"]["value"], 128);
    EXPECT_EQ(link_stat(r, "bytes_read")["value"], 65536);
}

// A larger max_payload amortises the overhead: 1 KiB TLPs carry 1024 of 1052 bytes.
TEST(pcie_link, max_payload_sets_the_tlp_size) {
    const run_out o =
        run(k_gen_link_mem, {"gen.message_size=64KiB", "link.max_payload=1KiB", "link.credits=8"});
    EXPECT_EQ(link_stat(o, "up_tlps")["value"], 64);
    EXPECT_EQ(link_stat(o, "up_wire_bytes")["value"], 64 * 1052);
}

// A host-memory error reaches the device as the response of its request.
TEST(pcie_link, a_device_address_beyond_host_memory_is_refused_before_the_run) {
    // The validation phase follows the link to the memory behind it (peer_view::memory_behind).
    EXPECT_EQ(test::elaboration_error(k_gen_link_mem, {"gen.address=2MiB", "mem.size=1MiB"}),
              "--set gen.address: error: gen.address: the messages reach address 2097215, beyond "
              "mem (the memory gen.out reaches through link), which holds 1048576 B (addresses "
              "0..1048575)");
}

TEST(pcie_link, host_memory_error_is_returned_to_the_device) {
    // A DMA whose addresses only the run knows (the test driver's bursts, 0..64 KiB) into a
    // 16 KiB memory: the memory's address error comes back through the link to the device.
    auto sim = test::make_sim(R"(
components:
  drv:  {type: test.dma_driver, bytes: 64KiB, burst: 1KiB, outstanding: 1, setup: 0ns}
  link: {type: pcie.link}
  mem:  {type: memory, size: 16KiB}
connections: [drv.out -> link.dev, link.host -> mem.target]
)",
                              {});
    sim->elaborate();
    const run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FAILED);
    EXPECT_NE(r.error.find("drv: transfer failed: "), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("TLM_ADDRESS_ERROR_RESPONSE"), std::string::npos) << r.error;
}

TEST(pcie_link, rejects_a_width_that_is_not_a_pcie_link_width) {
    EXPECT_EQ(test::elaboration_error(R"(
components:
  gen:  {type: traffic.generator, message_size: 64B}
  link: {type: pcie.link, lanes: 3}
  mem:  {type: memory}
connections: [gen.out -> link.dev, link.host -> mem.target]
)"),
              "t.yaml:4:34: error: link.lanes: '3' is not a PCIe link width; lanes must be 1, 2, "
              "4, 8 or 16");
}

TEST(pcie_link, rejects_generation_6) {
    EXPECT_EQ(test::elaboration_error(k_gen_link_mem, {"link.gen=6"}),
              "--set link.gen: error: link.gen: '6' is out of range [1, 5]");
}

TEST(pcie_link, rejects_a_max_payload_that_is_not_a_power_of_two) {
    EXPECT_EQ(test::elaboration_error(k_gen_link_mem, {"link.max_payload=384B"}),
              "--set link.max_payload: error: link.max_payload: '384B' is not a power of two; "
              "PCIe allows 128B, 256B, 512B, 1KiB, 2KiB or 4KiB");
}

TEST(pcie_link, rejects_a_max_read_request_above_4k) {
    EXPECT_EQ(test::elaboration_error(k_gen_link_mem, {"link.max_read_request=8KiB"}),
              "--set link.max_read_request: error: link.max_read_request: '8KiB' is out of range "
              "[128B, 4KiB]");
}

// The shipped example runs and streams at the Gen3 x8 write bandwidth.
TEST(pcie_link, example_config_runs) {
    platform_loader loader(registry::global());
    auto sim = std::make_unique<simulation>(loader.load("configs/examples/pcie_dma.yaml", {}),
                                            registry::global());
    sim->elaborate();
    const run_result r = sim->run();
    ASSERT_EQ(r.status, run_status::FINISHED);
    const nlohmann::json s = nlohmann::json::parse(sim->stats_json(r));
    const double throughput = s["blocks"]["dev"]["stats"]["throughput"]["value"].get<double>();
    EXPECT_NEAR(throughput / tlp_stream_bandwidth(3, 8, 256, k_request_overhead), 1.0, 0.01);
}

}  // namespace
}  // namespace trainvp
