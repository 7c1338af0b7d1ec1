// A data-parallel training iteration of one model, as the op list of every rank: forward and
// backward per layer, the gradient exchange (a collective schedule expanded by collective_ops)
// and the weight update, under one of two policies (README.md in this folder has the op
// structure of each).  Pure C++ (no SystemC).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule.h"
#include "workloads/collectives/worker_aggregator.h"
#include "workloads/iteration/gradient_buckets.h"
#include "workloads/models/layer_cost_model.h"
#include "workloads/models/model.h"
#include "workloads/ops/op.h"

namespace trainvp::workloads {

// The gradient exchange is chosen by name (training_options::algorithm): a collective of
// collectives::collective_registry that runs on hosts (collectives::fabric::HOST: ring,
// worker_aggregator, binomial_tree, halving_doubling, double_binary_tree, or a plugin's), one
// that only a fabric runs handed over whole (collectives::fabric::FLOW with `offload`: ring_2d,
// hierarchical_ring, ...), or one of these two, which are not schedules the hosts run:
//   smartnic.md §IV-A: each bucket is one non-blocking `allreduce` op (comm unit) that the
//   node's smart NIC (fpga.allreduce) runs as a pipelined ring; every worker updates.
inline constexpr const char* k_fpga_ring = "fpga_ring";
//   No exchange: each worker trains alone (the single-node baselines: paleo.md Table 1,
//   smartnic.md Fig. 4b's one node); a GPU worker updates on the GPU.
inline constexpr const char* k_no_exchange = "none";

// The names `algorithm` accepts, in listing order: the host collectives in registration order,
// the fabric-only ones, then fpga_ring and none.
std::vector<std::string> exchange_algorithm_names();

// True when `algorithm` ends with the sum on every worker, each updating its own weights (all
// but an aggregator collective, inceptionn.md §II-B, and none).
bool is_allreduce(const std::string& algorithm);
// True for a collective whose schedule adds aggregator ranks (worker_aggregator): the
// aggregator sums, updates and returns the weights.
bool needs_aggregator(const std::string& algorithm);

enum class exchange_policy {
    // inceptionn.md Alg. 1: one exchange of all gradients after the whole backward pass.
    AFTER_BACKWARD,
    // smartnic.md Fig. 3b: each bucket's exchange starts when the backward op that produces its
    // last gradient ends, on the comm unit, while the backward pass continues.
    OVERLAP_LAYERS,
};

enum class compute_placement {
    CPU,  // compute ops on the host's cpu unit
    GPU,  // gpu_compute ops, plus the gradient and weight copies of inceptionn.md Table II
};

struct training_options {
    std::vector<std::uint32_t> workers;       // node ids, in ring order (rank r = workers[r])
    std::optional<std::uint32_t> aggregator;  // node id; required by worker_aggregator only
    // A host collective's registry name, fpga_ring or none (exchange_algorithm_names()).
    std::string algorithm = "ring";
    exchange_policy policy = exchange_policy::AFTER_BACKWARD;
    // OVERLAP_LAYERS: a bucket closes when it holds at least this many gradient bytes (walking
    // the layers backwards); 0 gives one bucket per layer with parameters.
    std::uint64_t bucket_bytes = 0;
    compute_placement compute = compute_placement::CPU;
    // Where a worker that holds its weights (ring, halving_doubling, ... or none) updates them
    // when compute is GPU: CPU (the update on the host, then the weights to the GPU) or GPU
    // (the reduced gradients to the GPU, then the update as a kernel there).  A
    // worker-aggregator's aggregator always updates on its host.
    // The exchange is handed to the network whole: one ALLREDUCE op per bucket to the host's
    // `nic`, which runs `algorithm` itself (fabric.flow).  fpga_ring always is.
    bool offload = false;
    compute_placement update = compute_placement::CPU;
    // Measured phase times per iteration (inceptionn.md Table II's forward and backward rows):
    // when set, the phase is DELAY ops of these times split across layers by their FLOPs.
    std::optional<std::uint64_t> forward_ps;
    std::optional<std::uint64_t> backward_ps;
    // Set: a layer's compute ops carry the layer cost model's FLOPs and bytes (paleo.md §3:
    // forward; backward = backward-data + backward-filter) instead of the zoo's totals.
    std::optional<models::layer_cost_options> layer_costs;
    // paleo.md §4.2.3, Krizhevsky's "one weird trick" (hybrid parallelism): the layers from
    // this index on run model-parallel.  Each of the K workers holds 1/K of the output channels
    // (features) of every conv or fc layer there and computes its slice for all K x batch
    // samples: the activations are all-gathered (collectives direct_allgather) before each such
    // layer and after the last one, and the gradients w.r.t. them reduce-scattered back
    // (direct_reduce_scatter); each worker updates its slices alone.  Only the layers before it
    // are data-parallel, their gradients exchanged by `algorithm`.  Unset: all data-parallel.
    // Needs an all-reduce algorithm, after_backward, computed (not measured) phases, a chain of
    // layers from that index on, and output channels that K divides.
    std::optional<std::size_t> model_parallel_from;
    int iterations = 1;
    // Of the gradient sends (both directions of a ring; a worker-aggregator's workers only: the
    // aggregator returns weights, which are never marked).
    std::uint8_t tos = 0;
    // Grid collectives (ring_2d, concentrated_multi_tree): ranks per row (0: the whole-number
    // square root of the worker count); hierarchical_ring: levels of equal size.
    int group = 0;
    int levels = 2;
    // worker_aggregator: how the weights get back (TREE with one aggregator: it sends to each
    // worker; BINOMIAL: a binomial broadcast through the workers, as MPI_Bcast does and as
    // inceptionn.md §VIII-D's log p return term assumes).
    collectives::aggregator_return wa_return = collectives::aggregator_return::TREE;
};

class training_builder {
public:
    // Throws std::invalid_argument on options that cannot form an iteration (an algorithm that
    // is not registered or does not run on hosts, fewer than 2 ring workers, no workers, a
    // missing or extra aggregator, repeated node ids, iterations < 1, a model without
    // parameters).
    training_builder(const models::model& m, training_options o);

    const std::vector<gradient_bucket>& buckets() const { return m_buckets; }
    std::size_t ranks() const { return m_options.workers.size(); }
    // The gradient buffer every rank all-reduces: its host address and size.
    std::uint64_t gradient_address() const { return m_grad_base; }
    std::uint64_t gradient_bytes() const { return m_grad_bytes; }

    // The op list of worker `rank` (0-based, in ring order).
    std::vector<ops::op> worker_ops(std::size_t rank) const;
    // The aggregator's op list (an aggregator collective only; empty otherwise).
    std::vector<ops::op> aggregator_ops() const;

    // Iteration `it` alone of the list of `rank` (rank ranks(): the aggregator): the ops that
    // worker_ops / aggregator_ops hold from index `first` on, where `first` is the number of
    // ops of the iterations before it.  `weights_ready` (one entry per bucket) holds what the
    // previous iteration left: the ops its next forward ops wait for (empty before the first);
    // it is updated for the next.  Every iteration has the same ops in the same order; only
    // names (i<it>_), tags and indices differ (iteration_source relies on it).  names = false
    // leaves the collectives' ops unnamed (collective_op_options::names).
    std::vector<ops::op> build_iteration(std::size_t rank, bool aggregator, int it,
                                         std::size_t first,
                                         std::vector<std::vector<std::size_t>>& weights_ready,
                                         bool names = true) const;
    int iterations() const { return m_options.iterations; }

    // Bucket k's exchange steps of `rank`.  A collective with rank_steps (the ring) has its
    // steps made when asked for: the builder never holds a ring's whole schedule.
    std::vector<collectives::step> rank_steps(std::size_t k, std::size_t rank) const;

    // Where the buffers live in host memory (weights, then gradients, then activations); the
    // addresses only have to be distinct and inside the host's memory.
    static constexpr std::uint64_t k_weight_base = 1ull << 30;

private:
    std::vector<ops::op> build(std::size_t rank, bool aggregator) const;
    std::uint32_t tags_per_iteration() const;
    // True when bucket k's steps are made per rank (collective_info::rank_steps).
    bool generates_steps(std::size_t k) const;

    models::model m_model;
    training_options m_options;
    // The registry's entry for the algorithm; null for fpga_ring and none.
    const collectives::collective_info* m_collective = nullptr;
    bool m_fpga = false;      // fpga_ring
    bool m_offload = false;   // fpga_ring, or `offload`: one ALLREDUCE op per bucket
    bool m_none = false;      // no exchange
    bool m_allreduce = true;  // is_allreduce(algorithm)
    // Per bucket, the same every iteration (a ring's without steps: generates_steps).
    std::vector<collectives::schedule> m_schedules;
    std::vector<std::uint32_t> m_tags_of_bucket;  // per bucket: max_tag(schedule) + 1
    // Per bucket: range_bounds(schedule, 0) (collective_op_options::bounds).
    std::vector<std::vector<std::uint64_t>> m_bounds_of_bucket;
    // At least the ops of one iteration of any rank (its list is reserved once).
    std::size_t m_ops_per_rank_hint = 0;
    std::vector<gradient_bucket> m_buckets;
    std::vector<std::ptrdiff_t> m_bucket_of_layer;  // -1 for a layer without parameters
    std::vector<std::uint64_t> m_layer_offset;      // gradient/weight offset of each layer
    std::vector<std::uint64_t> m_activation_offset;
    std::uint64_t m_grad_base = 0;
    std::uint64_t m_grad_bytes = 0;
    std::uint64_t m_activation_base = 0;
    std::vector<std::uint64_t> m_forward_delay_ps;   // per layer, when forward_ps is set
    std::vector<std::uint64_t> m_backward_delay_ps;  // per layer, when backward_ps is set
    std::vector<models::layer_costs> m_layer_costs;  // per layer, when layer_costs is set

    // Hybrid parallelism (model_parallel_from): one worker's op costs of each layer from
    // m_mp_first on (a sliced conv/fc at K x batch; another kind as data-parallel), and the
    // activation exchanges in forward order.
    struct mp_cost {
        double forward_flops = 0, backward_flops = 0;
        std::uint64_t forward_bytes = 0, backward_bytes = 0;
        std::uint64_t weight_bytes = 0;  // of the slice (its update)
    };
    struct mp_exchange {
        std::size_t layer = 0;  // gathered before this layer's forward op (after it: `after`)
        bool after = false;
        std::uint64_t block_bytes = 0;  // one worker's share
        collectives::schedule gather, scatter;
    };
    bool hybrid() const { return m_mp_first < m_model.layers().size(); }
    std::size_t m_mp_first = 0;
    std::vector<mp_cost> m_mp_costs;
    std::vector<mp_exchange> m_mp_exchanges;
    std::uint64_t m_exchange_base = 0;
};

// `total` split over parts in proportion to `weights`, in integers that sum to `total` exactly
// (cumulative rounding); equal parts when every weight is 0.
std::vector<std::uint64_t> split_proportionally(std::uint64_t total,
                                                const std::vector<double>& weights);

}  // namespace trainvp::workloads
