// Training iterations pipelined layer by layer (noc/chiplet/layer_pipeline_traffic), ASTRA-sim
// 1.0's data-parallel loop, against hand timelines.  T(b) is the all-reduce of b bytes run
// alone on an idle network from cycle 0 (its duration does not depend on the start cycle, so
// the expectations are exact).  A bucket's all-reduce starts the cycle its layer's backward
// pass ends (or the cycle after the previous all-reduce's last delivery), and a forward pass
// waiting for an all-reduce starts the cycle after its last delivery.
#include <gtest/gtest.h>

#include "noc/chiplet/layer_pipeline_traffic.h"
#include "noc/network/noc_network.h"
#include "tests/unit/noc/ring_alone.h"
#include "workloads/collectives/collectives.h"

namespace trainvp::noc {
namespace {

constexpr int k = test::k_ring_k;
using test::alone;
using test::ring;

struct result {
    std::uint64_t period, run_end, compute, communication;
    std::vector<gradient_bucket_plan> last;
};

network_config level(bool message) {
    network_config cfg;
    cfg.message_level = message;
    return cfg;
}

result run(std::vector<pipeline_layer> layers, std::vector<gradient_bucket_plan> buckets,
           int iterations, layer_pipeline_traffic::policy p, bool message = false) {
    const auto t = noc_topology::mesh(k);
    const auto rt = route_table::dimension_order(t);
    noc_network net(t, rt, level(message));
    // At message level a message is one flow, as noc.interposer's make_traffic hands it.
    layer_pipeline_traffic tr(std::move(layers), std::move(buckets), iterations, p,
                              [message](std::uint64_t bytes) {
                                  auto c = ring(bytes);
                                  c->whole_messages(message);
                                  return c;
                              });
    tr.attach(net);
    net.set_source(&tr);
    net.run_until(100000000);
    EXPECT_TRUE(tr.done()) << tr.pending();
    return {tr.period(), tr.run_end(), tr.compute_cycles(), tr.communication_cycles(),
            tr.last_buckets()};
}

// Two layers, each its own bucket (bucket 0 is layer 1's, closed first).  Iteration 0:
// forward F0 + F1, backward B1 (bucket 0 ready at e1 = F0 + F1 + B1), B0 (bucket 1 ready at
// e0 = e1 + B0 > e1 + T(X), so bucket 0 is done).  end(0) = e0 + T(Y).  Iteration 1's forward
// of layer 0 waits for bucket 1: it starts at e0 + T(Y) + 1, and the rest repeats, so
//   period = end(1) - end(0) = C + T(Y) + 1,   C = F0 + F1 + B0 + B1.
TEST(layer_pipeline, the_lowest_layers_allreduce_delays_the_next_forward_pass) {
    const std::uint64_t x = 64 * 1024, y = 16 * 1024;
    const std::uint64_t tx = alone(x), ty = alone(y);
    const std::uint64_t f0 = 300, f1 = 200, b1 = 400, b0 = tx + 1000;
    const auto r = run({{f0, b0, 1}, {f1, b1, 0}}, {{"l1", x}, {"l0", y}}, 2,
                       layer_pipeline_traffic::policy::LIFO);
    const std::uint64_t c = f0 + f1 + b0 + b1;
    EXPECT_EQ(r.compute, c);
    EXPECT_EQ(r.period, c + ty + 1);
    // The last iteration's buckets: ready when their backward ends, started at once.
    const std::uint64_t start1 = c + ty + 1;  // iteration 1's forward starts
    EXPECT_EQ(r.last[0].ready, start1 + f0 + f1 + b1);
    EXPECT_EQ(r.last[0].finish, start1 + f0 + f1 + b1 + tx);
    EXPECT_EQ(r.last[1].start, start1 + c);
    EXPECT_EQ(r.run_end, start1 + c + ty);
    EXPECT_EQ(r.communication, tx + ty);
}

// With one iteration there is no next forward pass: the iteration ends with its last
// all-reduce, e0 + T(Y).
TEST(layer_pipeline, one_iteration_ends_with_its_last_allreduce) {
    const std::uint64_t y = 16 * 1024, ty = alone(y);
    const auto r = run({{100, 200, 0}}, {{"l0", y}}, 1, layer_pipeline_traffic::policy::LIFO);
    EXPECT_EQ(r.period, 300 + ty);
}

// Three layers with 1-cycle backward passes: buckets 1 and 2 are queued while bucket 0's
// all-reduce runs.  LIFO serves bucket 2 (layer 0, produced last) next; FIFO bucket 1.
TEST(layer_pipeline, lifo_serves_the_last_produced_bucket_first) {
    const std::uint64_t b = 16 * 1024, t = alone(b);
    const std::vector<pipeline_layer> layers{{10, 1, 2}, {10, 1, 1}, {10, 1, 0}};
    const std::vector<gradient_bucket_plan> buckets{{"l2", b}, {"l1", b}, {"l0", b}};
    const std::uint64_t ready0 = 30 + 1;  // forward 3 x 10, backward of layer 2
    const auto lifo = run(layers, buckets, 1, layer_pipeline_traffic::policy::LIFO);
    EXPECT_EQ(lifo.last[0].start, ready0);
    EXPECT_EQ(lifo.last[2].start, ready0 + t + 1);
    EXPECT_EQ(lifo.last[1].start, ready0 + 2 * (t + 1));
    const auto fifo = run(layers, buckets, 1, layer_pipeline_traffic::policy::FIFO);
    EXPECT_EQ(fifo.last[1].start, ready0 + t + 1);
    EXPECT_EQ(fifo.last[2].start, ready0 + 2 * (t + 1));
}

// An all-reduce that runs while the backward pass goes on takes its time alone, at both
// levels: the plan wakes the network at the end of every layer's backward pass, and a wake-up
// between two of the network's own events must not cost the messages in flight anything.
// Layer 40 closes bucket 0 (1 MiB, T = 29,339 cycles at 4x4); the 40 layers below it take 997
// cycles of backward pass each (39,880 cycles, so bucket 0 ends under them) and close bucket 1
// at layer 0.  Exact: T alone is the same run on an idle network.  (Before session 18's fix
// the message level lost the flits sent between a ring step's last event and each wake-up:
// bucket 0 took 29,877 cycles instead of 29,339.)
TEST(layer_pipeline, an_allreduce_under_the_backward_pass_takes_its_time_alone) {
    const std::uint64_t x = 1 << 20, y = 16 * 1024;
    for (const bool message : {false, true}) {
        SCOPED_TRACE(message ? "message level" : "flit level");
        const auto alone_at = [&](std::uint64_t bytes) {
            const auto t = noc_topology::mesh(k);
            const auto rt = route_table::dimension_order(t);
            noc_network net(t, rt, level(message));
            auto c = ring(bytes);
            c->whole_messages(message);
            c->attach(net);
            net.set_source(c.get());
            net.run_until(100000000);
            EXPECT_TRUE(c->done());
            return c->finish_cycle();
        };
        const std::uint64_t tx = alone_at(x), ty = alone_at(y);
        std::vector<pipeline_layer> layers(41, pipeline_layer{10, 997, -1});
        layers[0].bucket = 1;
        layers[40] = {10, 5, 0};
        ASSERT_LT(tx, 40u * 997);
        const auto r = run(layers, {{"top", x}, {"bottom", y}}, 1,
                           layer_pipeline_traffic::policy::LIFO, message);
        const std::uint64_t ready0 = 41 * 10 + 5;
        EXPECT_EQ(r.last[0].start, ready0);
        EXPECT_EQ(r.last[0].finish, ready0 + tx);
        EXPECT_EQ(r.last[1].start, ready0 + 40 * 997);
        EXPECT_EQ(r.last[1].finish, ready0 + 40 * 997 + ty);
    }
}

}  // namespace
}  // namespace trainvp::noc
