// Training iterations of the modern parallel schemes, as every rank's op list: sharded data
// parallelism (ZeRO-2 / ZeRO-3-FSDP), tensor parallelism within groups of consecutive workers
// (Megatron-LM) and pipeline parallelism with the 1F1B schedule (PipeDream-Flush).  Each
// collective is a schedule of the collective registry (ring, ring_allgather,
// ring_reduce_scatter) over its communicator group (collectives::on_group), expanded by
// append_collective_ops.  README.md in this folder ("Modern parallelism") has the op
// structure of each.  Pure C++ (no SystemC).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/collectives/schedule.h"
#include "workloads/models/model.h"
#include "workloads/ops/op.h"

namespace trainvp::workloads {

// Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
// SC'20, §5 (stages P_os+g and P_os+g+p).
enum class sharding_mode {
    NONE,       // plain data parallelism (the training_builder's exchange)
    GRADIENTS,  // ZeRO-2: gradients reduce-scattered per bucket, each rank updates its 1/N
                // shard, then the bucket's parameters are all-gathered (2 (N-1)/N x P sent)
    FULL,       // ZeRO-3 / FSDP: parameters all-gathered before each layer's forward and again
                // before its backward, gradients reduce-scattered, 1/N updated (3 (N-1)/N x P)
};

struct parallel_options {
    std::vector<std::uint32_t> workers;  // node ids: rank r = workers[r]
    sharding_mode sharding = sharding_mode::NONE;
    // Sharding: a bucket closes when it holds at least this many gradient bytes (walking the
    // layers backwards; gradient_buckets); 0: one bucket of all gradients after backward.
    std::uint64_t bucket_bytes = 0;
    bool per_layer_buckets = false;  // sharding with overlap_layers and bucket 0: one per layer
    // Tensor parallelism: ranks in groups of this many consecutive workers (1: off).
    int tensor_parallel = 1;
    // Pipeline parallelism: stages (1: off) and micro-batches per iteration.
    int pipeline_stages = 1;
    int micro_batches = 1;
    // Measured phase times per iteration (training_options::forward_ps): DELAY ops split over
    // the layers by their FLOPs.
    std::optional<std::uint64_t> forward_ps;
    std::optional<std::uint64_t> backward_ps;
    int iterations = 1;
    std::uint8_t tos = 0;  // of the gradient and parameter collectives' sends
};

class parallel_training_builder {
public:
    // Throws std::invalid_argument on options that cannot form an iteration (the messages
    // name the option: tensor_parallel not dividing the workers, more stages than layers, a
    // batch the micro-batches do not divide, a pipeline cut crossed by a skip connection, two
    // schemes at once, ...).
    parallel_training_builder(const models::model& m, parallel_options o);

    std::size_t ranks() const { return m_options.workers.size(); }
    // The op list of rank `rank`, every iteration.
    std::vector<ops::op> worker_ops(std::size_t rank) const;

    // Pipeline: the first layer of each stage, then the layer count (S + 1 entries).
    const std::vector<std::size_t>& stage_bounds() const { return m_stage_bounds; }
    // The 1F1B order of stage s: +m for micro-batch m's forward, -(m + 1) for its backward.
    std::vector<int> one_f_one_b(int stage) const;

private:
    struct layer_cost {
        double forward_flops = 0, backward_flops = 0;
        std::uint64_t forward_bytes = 0, backward_bytes = 0;
        std::uint64_t forward_ps = 0, backward_ps = 0;  // measured: DELAY ops
    };
    std::vector<ops::op> build_iteration(std::size_t rank, int it, std::size_t first) const;
    void sharded(std::vector<ops::op>& list, std::size_t rank, int it, std::size_t first) const;
    void tensor(std::vector<ops::op>& list, std::size_t rank, int it, std::size_t first) const;
    void pipeline(std::vector<ops::op>& list, std::size_t rank, int it, std::size_t first) const;
    ops::op compute_op(std::size_t layer, bool forward, double share, const std::string& prefix,
                       int micro = -1) const;

    models::model m_model;
    parallel_options m_options;
    std::vector<layer_cost> m_costs;
    std::vector<std::size_t> m_stage_bounds;
    std::uint32_t m_tags_per_iteration = 0;
};

}  // namespace trainvp::workloads
