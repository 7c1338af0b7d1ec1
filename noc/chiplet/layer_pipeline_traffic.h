// Training iterations pipelined layer by layer, as ASTRA-sim 1.0's data-parallel loop runs
// them (the framework aries.md §V extended: astra-sim/astra-sim, `Workload` DATA loop; its
// system files set `scheduling-policy: LIFO`, inputs/system/sample_torus_sys.txt): every
// chiplet runs the forward pass layer by layer, then the backward pass in reverse; a gradient
// bucket is all-reduced on the NoC once the backward pass has produced it, one all-reduce at
// a time, the most recently produced first (LIFO) or in order (FIFO); and the forward pass of
// layer l in the next iteration waits until the all-reduce of l's bucket from this iteration
// has finished.  So communication overlaps the backward pass *and* the next forward pass
// ("a pipeline to overlap the latency between communication and computation", aries.md §V-B),
// and with communication longer than compute the iteration is as long as its communication.
//
// It runs `iterations` iterations; the steady-state iteration time is the period between the
// last two iterations' ends, end(i) = max(backward end of i, last all-reduce of i).  All
// iterations are alike, so the first's compute has no waits and the second sees the first's
// communication.  Pure C++.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "noc/chiplet/training_traffic.h"
#include "noc/collective/collective_traffic.h"
#include "noc/network/traffic_source.h"

namespace trainvp::noc {

struct pipeline_layer {
    std::uint64_t forward = 0, backward = 0;  // cycles
    int bucket = -1;                          // gradient bucket it belongs to (-1: none)
};

class layer_pipeline_traffic : public traffic_source {
public:
    enum class policy { LIFO, FIFO };

    // `buckets[b].ready` is unused (the run decides it); a bucket becomes ready when the
    // backward pass of its lowest layer ends.
    layer_pipeline_traffic(std::vector<pipeline_layer> layers,
                           std::vector<gradient_bucket_plan> buckets, int iterations, policy p,
                           training_traffic::collective_maker make);

    void attach(noc_network& net) { m_net = &net; }
    std::uint64_t next_cycle() const override;
    void generate(std::uint64_t now, noc_network& net) override;

    bool done() const;
    std::string pending() const;
    int iterations() const { return m_iterations; }
    // Cycle the whole run ends (last compute or all-reduce).
    std::uint64_t run_end() const;
    // The steady-state iteration: end(N-1) - end(N-2) (end(0) with one iteration).
    std::uint64_t period() const;
    // Forward + backward cycles of one iteration without waits.
    std::uint64_t compute_cycles() const;
    // Cycles at least one all-reduce of the last iteration ran (sum of their durations).
    std::uint64_t communication_cycles() const;
    // The last iteration's buckets (ready, start, finish filled).
    std::vector<gradient_bucket_plan> last_buckets() const;

private:
    struct slot {
        std::uint64_t ready = 0, start = 0, finish = 0;
        bool queued = false, done = false;
    };
    slot& at(int it, int b) {
        return m_slots[static_cast<std::size_t>(it) * m_buckets.size() +
                       static_cast<std::size_t>(b)];
    }
    const slot& at(int it, int b) const {
        return m_slots[static_cast<std::size_t>(it) * m_buckets.size() +
                       static_cast<std::size_t>(b)];
    }
    // The next op is a forward pass whose gradient is still being all-reduced.
    bool blocked() const;
    // Runs the compute as far as its dependencies allow by `now`.
    void advance_compute(std::uint64_t now);
    std::uint64_t iteration_end(int it) const;

    std::vector<pipeline_layer> m_layers;
    std::vector<gradient_bucket_plan> m_buckets;
    std::vector<int> m_close;  // per bucket: its lowest layer
    int m_iterations;
    policy m_policy;
    training_traffic::collective_maker m_make;
    noc_network* m_net = nullptr;

    // Compute: op index within an iteration (0..L-1 forward, L..2L-1 backward, layer 2L-1-op).
    int m_it = 0, m_op = 0;
    bool m_running = false;                     // the current op has started
    std::uint64_t m_op_end = 0;                 // its end cycle
    std::uint64_t m_free_at = 0;                // the compute unit is free from this cycle
    std::vector<std::uint64_t> m_backward_end;  // per iteration

    std::vector<slot> m_slots;                 // per iteration x bucket
    std::vector<std::pair<int, int>> m_queue;  // ready all-reduces (iteration, bucket)
    std::unique_ptr<collective_traffic> m_current;
    std::pair<int, int> m_current_id{-1, -1};
};

}  // namespace trainvp::noc
