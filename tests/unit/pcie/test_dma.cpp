// dma_channel and dma.engine against closed forms on a memory target.  A memory channel of
// bandwidth BW and latency L answers a burst of b bytes after x = b/BW (plus queueing) + L.
// Each TEST elaborates SystemC and so runs in its own process.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/sim_fixture.h"
#include "tests/unit/pcie/dma_test_blocks.h"

namespace trainvp {
namespace {

// ---- dma_channel --------------------------------------------------------------------------

// 1 TB/s moves a 1 KiB burst in exactly x = 1024 ps; the latency is 1 us.
const std::string k_channel = R"(
components:
  drv: {type: test.dma_driver, bytes: 64KiB, burst: 1KiB, outstanding: 4, setup: 50ns}
  mem: {type: memory, bandwidth: 1TB/s, latency: 1us}
connections: [drv.out -> mem.target]
)";

struct channel_run {
    dma_channel::result res;
    std::uint64_t bursts = 0, bytes = 0;
    distribution latency;
};

channel_run run_channel(const std::vector<std::string>& sets) {
    auto sim = test::make_sim(k_channel, sets);
    sim->elaborate();
    EXPECT_EQ(sim->run().status, run_status::FINISHED);
    auto* drv = dynamic_cast<test::dma_driver*>(sim->block("drv"));
    channel_run c;
    c.res = drv->result();
    c.bursts = drv->channel().bursts.value();
    c.bytes = drv->channel().bytes_moved.value();
    c.latency = drv->channel().burst_latency_ns;
    return c;
}

// Latency-bound: W bursts issue together, the memory serialises them, and burst W waits for
// burst 0.  Group g of W bursts completes at g*(x + L) + (j+1)*x + L, so with n = m*W bursts
//   T = setup + (m-1)*(x + L) + W*x + L,
// and the throughput tends to W * b / (x + L): the window, not the memory, sets it.
TEST(dma_channel, outstanding_window_limits_throughput_against_latency) {
    const channel_run c = run_channel({});
    const std::uint64_t x = 1024, lat = 1000000, w = 4, n = 64, m = n / w, setup = 50000;
    EXPECT_EQ(c.res.first_issue.value(), setup);
    EXPECT_EQ(c.res.done.value(), setup + (m - 1) * (x + lat) + w * x + lat);
    EXPECT_EQ(c.bursts, n);
    EXPECT_EQ(c.bytes, 65536u);
    // The first window queues at the memory; later bursts find it free.
    EXPECT_DOUBLE_EQ(c.latency.min(), (x + lat) / 1000.0);
    EXPECT_DOUBLE_EQ(c.latency.max(), (w * x + lat) / 1000.0);
    const double throughput = 65536.0 / ((c.res.done - c.res.first_issue).value() * 1e-12);  // B/s
    const double bound = w * 1024.0 / ((x + lat) * 1e-12);
    EXPECT_NEAR(throughput / bound, 1.0, 0.001);
    EXPECT_LT(throughput, 1e12 / 100);  // far below the memory's 1 TB/s
}

// Doubling the window doubles the latency-bound throughput.
TEST(dma_channel, throughput_scales_with_outstanding) {
    const channel_run c = run_channel({"drv.outstanding=8"});
    const std::uint64_t x = 1024, lat = 1000000, w = 8, n = 64, m = n / w, setup = 50000;
    EXPECT_EQ(c.res.done.value(), setup + (m - 1) * (x + lat) + w * x + lat);
}

// Bandwidth-bound: with a window as large as the transfer every burst issues at once, so
// T = setup + n*x + L.
TEST(dma_channel, large_window_is_bandwidth_bound) {
    const channel_run c = run_channel({"drv.outstanding=64"});
    EXPECT_EQ(c.res.done.value(), 50000u + 64u * 1024u + 1000000u);
}

// A window that covers the round trip (W*x >= x + L) keeps the memory busy although the
// transfer is 16 windows long: T = setup + n*x + L.
TEST(dma_channel, window_covering_the_round_trip_is_bandwidth_bound) {
    const channel_run c = run_channel({"mem.latency=2ns"});
    ASSERT_GE(4u * 1024u, 1024u + 2000u);
    EXPECT_EQ(c.res.done.value(), 50000u + 64u * 1024u + 2000u);
}

// A partial last burst, and reads behave like writes against the memory.
TEST(dma_channel, partial_last_burst_and_reads) {
    const channel_run c = run_channel({"drv.bytes=2500B", "drv.command=read", "drv.setup=0ns"});
    EXPECT_EQ(c.bursts, 3u);  // 1024 + 1024 + 452
    EXPECT_EQ(c.bytes, 2500u);
    EXPECT_EQ(c.res.done.value(), 2500u + 1000000u);  // all three in one window
}

// ---- dma.engine ---------------------------------------------------------------------------

// 10 GB/s moves a 256 B burst in exactly x = 25.6 ns; L = 100 ns.
const std::string k_engine = R"(
components:
  cpu: {type: test.dma_submitter, bytes: 64KiB}
  dma: {type: dma.engine, burst: 256B, outstanding: 8, queue_depth: 16, setup: 100ns}
  mem: {type: memory, bandwidth: 10GB/s, latency: 100ns}
connections:
  - cpu.ctrl -> dma.ctrl
  - dma.mem -> mem.target
)";
constexpr std::uint64_t k_x = 25600, k_lat = 100000, k_setup = 100000, k_n = 256;

struct engine_run {
    std::vector<test::dma_submitter::record> records;
    nlohmann::json stats;
};

engine_run run_engine(const std::vector<std::string>& sets) {
    auto sim = test::make_sim(k_engine, sets);
    sim->elaborate();
    const run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FINISHED);
    engine_run e;
    e.records = dynamic_cast<test::dma_submitter*>(sim->block("cpu"))->records();
    e.stats = nlohmann::json::parse(sim->stats_json(r))["blocks"]["dma"]["stats"];
    return e;
}

// With enough buffers to cover a burst's round trip (W*x >= x + L), reads of later bursts
// overlap writes of earlier ones and the memory channel never idles: every byte crosses it
// twice, so T = setup + 2*B/BW + L.
TEST(dma_engine, copy_is_memory_bandwidth_bound_with_enough_buffers) {
    const engine_run e = run_engine({});
    ASSERT_EQ(e.records.size(), 1u);
    ASSERT_GE(8 * k_x, k_x + k_lat);
    EXPECT_EQ(e.records[0].desc.data_start.value(), k_setup);
    EXPECT_EQ(e.records[0].desc.done.value(), k_setup + 2 * k_n * k_x + k_lat);
    EXPECT_EQ(e.stats["descriptors"]["value"], 1);
    EXPECT_EQ(e.stats["bytes"]["value"], 65536);
    EXPECT_EQ(e.stats["bursts"]["value"], k_n);
}

// One buffer: read, then write, then the next read: T = setup + n * 2 * (x + L).
TEST(dma_engine, one_buffer_serialises_read_and_write) {
    const engine_run e = run_engine({"dma.outstanding=1"});
    EXPECT_EQ(e.records[0].desc.done.value(), k_setup + k_n * 2 * (k_x + k_lat));
}

// Posted descriptors with a queue: the set-up of descriptor i+1 overlaps the data phase of i,
// so N descriptors take setup + N * D (D = 2*B/BW + L >= setup).
TEST(dma_engine, queued_descriptors_overlap_setup_with_data) {
    const engine_run e = run_engine({"cpu.descriptors=4"});
    const std::uint64_t d = 2 * k_n * k_x + k_lat;
    ASSERT_EQ(e.records.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(e.records[i].desc.accepted.value(), 0u);
        EXPECT_EQ(e.records[i].desc.done.value(), k_setup + (i + 1) * d) << i;
    }
    EXPECT_EQ(e.stats["queue_depth"]["max"], 4.0);
    EXPECT_EQ(e.stats["held"]["max"], 0.0);
}

// Queue depth 1 is back-pressure: descriptor i is accepted only when i-1 completed, so its
// set-up no longer overlaps: N * (setup + D), and the caller is held for the difference.
TEST(dma_engine, queue_depth_one_holds_the_caller) {
    const engine_run e = run_engine({"cpu.descriptors=4", "dma.queue_depth=1"});
    const std::uint64_t d = 2 * k_n * k_x + k_lat;
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(e.records[i].desc.accepted.value(), i * (k_setup + d)) << i;
        EXPECT_EQ(e.records[i].desc.done.value(), (i + 1) * (k_setup + d)) << i;
    }
    EXPECT_EQ(e.stats["queue_depth"]["max"], 1.0);
    EXPECT_DOUBLE_EQ(e.stats["held"]["max"].get<double>(), 3.0 * (k_setup + d) / 1000.0);
}

// A caller that waits for each completion gets no overlap whatever the queue depth.
TEST(dma_engine, blocking_caller_pays_setup_each_time) {
    const engine_run e = run_engine({"cpu.descriptors=3", "cpu.wait_each=true"});
    const std::uint64_t d = 2 * k_n * k_x + k_lat;
    EXPECT_EQ(e.records[2].desc.done.value(), 3 * (k_setup + d));
    EXPECT_DOUBLE_EQ(e.stats["utilisation"]["value"].get<double>(),
                     3.0 * d / (3.0 * (k_setup + d)));
}

// A transaction without a descriptor is a protocol error answered with an error response.
TEST(dma_engine, transaction_without_descriptor_fails) {
    auto sim = test::make_sim(k_engine, {"cpu.omit_descriptor=true"});
    sim->elaborate();
    const run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FAILED);
    EXPECT_NE(r.error.find("cpu: descriptor 0 failed: TLM_COMMAND_ERROR_RESPONSE"),
              std::string::npos)
        << r.error;
}

// The copy is exact through the burst buffer ring, with a partial last burst and reads and
// writes interleaved in time order.
TEST(dma_engine, copy_moves_the_bytes) {
    auto sim = test::make_sim(R"(
components:
  cpu: {type: test.dma_submitter, bytes: 10000B, src: 1000B, dst: 20000B}
  dma: {type: dma.engine, burst: 256B, outstanding: 3}
  mem: {type: test.data_memory, size: 64KiB, latency: 10ns}
connections:
  - cpu.ctrl -> dma.ctrl
  - dma.mem -> mem.target
)");
    sim->elaborate();
    auto& bytes = dynamic_cast<test::data_memory*>(sim->block("mem"))->bytes();
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 3);
    const std::vector<unsigned char> before = bytes;
    ASSERT_EQ(sim->run().status, run_status::FINISHED);
    for (std::size_t i = 0; i < 10000; ++i) ASSERT_EQ(bytes[20000 + i], before[1000 + i]) << i;
    EXPECT_EQ(bytes[19999], before[19999]);
    EXPECT_EQ(bytes[30000], before[30000]);
}

// dma.engine over a pcie.link: host-to-host copy; every byte crosses the link twice (read
// completions down, writes up), and the directions overlap.
TEST(dma_engine, copy_over_a_pcie_link_uses_both_directions) {
    auto sim = test::make_sim(R"(
components:
  cpu:  {type: test.dma_submitter, bytes: 1MiB}
  dma:  {type: dma.engine, burst: 256B, outstanding: 64, setup: 0ns}
  link: {type: pcie.link}
  mem:  {type: memory, bandwidth: 256GB/s}
connections:
  - cpu.ctrl -> dma.ctrl
  - dma.mem -> link.dev
  - link.host -> mem.target
)");
    sim->elaborate();
    const run_result r = sim->run();
    ASSERT_EQ(r.status, run_status::FINISHED);
    const auto s = nlohmann::json::parse(sim->stats_json(r))["blocks"]["link"]["stats"];
    EXPECT_EQ(s["bytes_read"]["value"], 1 << 20);
    EXPECT_EQ(s["bytes_written"]["value"], 1 << 20);
    // Each 256 B burst is one MWr (284 wire bytes) and one MRd (28) upstream and one
    // completion (280) downstream: the upstream direction bounds the copy at R * 256 / 312.
    const auto* cpu = dynamic_cast<test::dma_submitter*>(sim->block("cpu"));
    const double seconds = cpu->records()[0].desc.done.to_seconds();
    const double up_bound = 7.876923e9 * 256.0 / (284.0 + 28.0);
    EXPECT_NEAR((1 << 20) / seconds / up_bound, 1.0, 0.02);
}

}  // namespace
}  // namespace trainvp
