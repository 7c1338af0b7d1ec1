// One data-parallel training iteration on the chiplet package (aries.md §V-B): every chiplet
// is one rank holding a model replica and its share of the batch; all run the forward pass,
// then the backward pass layer by layer in reverse; a gradient bucket becomes ready when the
// backward pass of its last (lowest) layer ends, and its all-reduce runs on the NoC while the
// backward pass goes on ("a pipeline to overlap the latency between communication and
// computation", §V-B).  The all-reduces run one after another in bucket order (one
// collective stream, as NCCL and PyTorch DDP do).  The compute never waits for the network
// within the iteration: the iteration ends when both the backward pass and the last all-reduce
// have finished.  Pure C++.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "noc/collective/collective_traffic.h"
#include "noc/network/traffic_source.h"

namespace trainvp::noc {

struct gradient_bucket_plan {
    std::string name;          // the bucket's lowest layer
    std::uint64_t bytes = 0;   // gradient bytes all-reduced
    std::uint64_t ready = 0;   // cycle the backward pass has produced all of them
    std::uint64_t start = 0;   // filled by the run: cycle the all-reduce started
    std::uint64_t finish = 0;  // cycle its last message arrived
};

class training_traffic : public traffic_source {
public:
    // Makes the collective of one bucket (bytes per rank).
    using collective_maker = std::function<std::unique_ptr<collective_traffic>(std::uint64_t)>;

    // `compute_end`: cycle the backward pass ends.  Buckets in the order they become ready.
    training_traffic(std::vector<gradient_bucket_plan> buckets, std::uint64_t compute_end,
                     collective_maker make);

    void attach(noc_network& net) { m_net = &net; }
    std::uint64_t next_cycle() const override;
    void generate(std::uint64_t now, noc_network& net) override;

    bool done() const;
    // Cycle the last all-reduce finished (0 without buckets).
    std::uint64_t communication_end() const;
    std::uint64_t compute_end() const { return m_compute_end; }
    // max(compute end, communication end).
    std::uint64_t iteration_end() const;
    // Cycles at least one all-reduce was running.
    std::uint64_t communication_cycles() const;
    const std::vector<gradient_bucket_plan>& buckets() const { return m_buckets; }
    std::string pending() const;

private:
    // Cycle the next bucket's all-reduce may start (UINT64_MAX: none left).
    std::uint64_t next_start() const;

    std::vector<gradient_bucket_plan> m_buckets;
    std::uint64_t m_compute_end;
    collective_maker m_make;
    noc_network* m_net = nullptr;
    std::unique_ptr<collective_traffic> m_current;
    std::size_t m_next = 0;  // index of the next bucket to start
};

}  // namespace trainvp::noc
