// Closed-form timing of the traffic generator writing into the memory.  Each case elaborates
// SystemC and so runs in its own process.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "tests/support/sim_fixture.h"

namespace trainvp {
namespace {

struct traffic_case {
    const char* name;
    std::uint64_t messages;
    const char* size;
    std::uint64_t size_bytes;
    const char* bandwidth;
    double bytes_per_s;
    const char* latency;
    std::uint64_t latency_ps;
};

void PrintTo(const traffic_case& c, std::ostream* os) { *os << c.name; }

class traffic_closed_form : public ::testing::TestWithParam<traffic_case> {};

std::string platform(const traffic_case& c) {
    return std::string(R"(
components:
  gen: {type: traffic.generator, message_size: )") +
           c.size + ", messages: " + std::to_string(c.messages) + R"(}
  mem: {type: memory, bandwidth: )" +
           c.bandwidth + ", latency: " + c.latency + R"(}
connections: [gen.out -> mem.target]
)";
}

// Serialisation time of one message in whole picoseconds.  The cases are chosen so that it is
// exact (S/bandwidth has no fraction of a picosecond); the assertion is then exact, too.
std::uint64_t xfer_ps(const traffic_case& c) {
    const double ps = static_cast<double>(c.size_bytes) * 1e12 / c.bytes_per_s;
    EXPECT_NEAR(ps, std::round(ps), 1e-6) << "case must have an exact serialisation time";
    return static_cast<std::uint64_t>(std::llround(ps));
}

std::uint64_t run_and_get_end(const std::string& yaml, const std::vector<std::string>& sets,
                              nlohmann::json* stats = nullptr) {
    auto sim = test::make_sim(yaml, sets);
    sim->elaborate();
    run_result r = sim->run();
    EXPECT_EQ(r.status, run_status::FINISHED);
    if (stats) *stats = nlohmann::json::parse(sim->stats_json(r));
    return r.end_time.value();
}

// Posted writes (no limit in flight): the memory's data channel serialises them back to back
// and the last completes one latency after its data: T = latency + N*S/bandwidth.
TEST_P(traffic_closed_form, posted_writes_complete_at_latency_plus_n_s_over_bw) {
    const traffic_case& c = GetParam();
    nlohmann::json stats;
    const std::uint64_t end = run_and_get_end(platform(c), {}, &stats);
    EXPECT_EQ(end, c.latency_ps + c.messages * xfer_ps(c));
    EXPECT_EQ(stats["blocks"]["mem"]["stats"]["bytes_written"]["value"], c.messages * c.size_bytes);
    EXPECT_EQ(stats["blocks"]["gen"]["stats"]["messages"]["value"], c.messages);
}

// One message in flight: each waits for the previous one: T = N*(S/bandwidth + latency).
TEST_P(traffic_closed_form, one_outstanding_pays_latency_per_message) {
    const traffic_case& c = GetParam();
    const std::uint64_t end = run_and_get_end(platform(c), {"gen.outstanding=1"});
    EXPECT_EQ(end, c.messages * (xfer_ps(c) + c.latency_ps));
}

// Paced slower than the memory: issue every S/rate; the last one is issued at (N-1)*S/rate and
// finds the channel free: T = (N-1)*S/rate + S/bandwidth + latency.  The rate is a quarter of
// the memory bandwidth.
TEST_P(traffic_closed_form, paced_issue_is_rate_bound) {
    const traffic_case& c = GetParam();
    const double rate = c.bytes_per_s / 4.0;
    const std::string rate_text = std::to_string(static_cast<long long>(rate)) + "B/s";
    const std::uint64_t end = run_and_get_end(platform(c), {"gen.rate=" + rate_text});
    EXPECT_EQ(end, (c.messages - 1) * 4 * xfer_ps(c) + xfer_ps(c) + c.latency_ps);
}

INSTANTIATE_TEST_SUITE_P(
    cases, traffic_closed_form,
    ::testing::Values(
        traffic_case{"one_small", 1, "64B", 64, "25.6GB/s", 25.6e9, "80ns", 80000},
        traffic_case{"pages", 1000, "4KiB", 4096, "25.6GB/s", 25.6e9, "80ns", 80000},
        traffic_case{"frames_10g", 37, "1500B", 1500, "10Gb/s", 1.25e9, "100ns", 100000},
        traffic_case{"many_lines", 100000, "64B", 64, "64GB/s", 64e9, "0ns", 0},
        traffic_case{"big_blocks", 16, "64MiB", 67108864, "64GiB/s", 68719476736.0, "10ns", 10000}),
    [](const ::testing::TestParamInfo<traffic_case>& i) { return std::string(i.param.name); });

TEST(memory, access_beyond_size_is_refused_before_the_run) {
    EXPECT_EQ(test::elaboration_error(R"(
components:
  gen: {type: traffic.generator, message_size: 4KiB, messages: 4, region: 8KiB,
        address: 1MiB}
  mem: {type: memory, size: 1MiB}
connections: [gen.out -> mem.target]
)"),
              "t.yaml:4:18: error: gen.address: the messages reach address 1056767, beyond mem "
              "(the memory gen.out reaches), which holds 1048576 B (addresses 0..1048575)");
}

// Behind a PCIe link the validation phase follows the link to the memory
// (peer_view::memory_behind).  An address only the run knows (a DMA's) still fails the run with
// the memory's error: tests/unit/pcie pcie_link.host_memory_error_is_returned_to_the_device.
TEST(memory, access_beyond_size_behind_a_pcie_link_is_refused_before_the_run) {
    EXPECT_EQ(test::elaboration_error(R"(
components:
  gen: {type: traffic.generator, message_size: 4KiB, messages: 4, region: 8KiB,
        address: 1MiB}
  pcie: {type: pcie.link}
  mem: {type: memory, size: 1MiB}
connections: [gen.out -> pcie.dev, pcie.host -> mem.target]
)"),
              "t.yaml:4:18: error: gen.address: the messages reach address 1056767, beyond mem "
              "(the memory gen.out reaches through pcie), which holds 1048576 B (addresses "
              "0..1048575)");
}

}  // namespace
}  // namespace trainvp
