#include "workloads/iteration/parallel_training_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

#include "workloads/collectives/collective_registry.h"
#include "workloads/collectives/communicator_groups.h"
#include "workloads/iteration/collective_ops.h"
#include "workloads/iteration/gradient_buckets.h"
#include "workloads/iteration/op_frontier.h"
#include "workloads/iteration/training_builder.h"

namespace trainvp::workloads {

using ops::op;
using ops::op_kind;
using ops::op_unit;

namespace {

std::uint64_t align_up(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }

op with_after(op o, std::vector<std::size_t> after) {
    std::sort(after.begin(), after.end());
    after.erase(std::unique(after.begin(), after.end()), after.end());
    o.after = after;
    return o;
}

// One rank's iteration list under construction: every collective gets the next free tags, in
// the same order on every rank, so that the tags of two collectives never meet.
struct list_writer {
    std::vector<op>& list;
    std::size_t first;
    const std::vector<std::uint32_t>& nodes;
    std::uint32_t tag;
    std::uint32_t element_bytes;
    std::uint8_t tos;

    std::size_t push(op o) {
        list.push_back(std::move(o));
        return first + list.size() - 1;
    }

    // `algorithm` (a registry name) over the world ranks `members` on `elements` elements at
    // `address`; returns the ops that end it on `rank` (start_after when the rank is not a
    // member or has no steps).
    std::vector<std::size_t> collective(const std::string& algorithm,
                                        const std::vector<int>& members, std::uint64_t elements,
                                        std::uint64_t address, std::size_t rank,
                                        const std::vector<std::size_t>& start_after,
                                        const std::string& prefix) {
        collectives::collective_args a;
        a.ranks = static_cast<int>(members.size());
        a.elements = elements;
        const collectives::schedule g =
            collectives::collective_registry::global().make(algorithm, a);
        const collectives::schedule s =
            collectives::on_group(g, members, static_cast<int>(nodes.size()));
        collective_op_options co;
        co.element_bytes = element_bytes;
        co.base_address = address;
        co.tag_base = tag;
        co.tos = tos;
        co.name_prefix = prefix;
        co.index_base = first + list.size();
        co.start_after = start_after;
        tag += max_tag(g) + 1;
        const std::size_t base = list.size();
        append_collective_ops(list, s, static_cast<int>(rank), nodes, co);
        if (list.size() == base) return start_after;
        return op_frontier(list, first, base);
    }
};

// The writer of iteration `it` of a rank's list (each scheme's: sharded, tensor, pipeline): its
// collectives' tags start at the iteration's.
list_writer writer_for(std::vector<op>& list, std::size_t first, const parallel_options& o, int it,
                       std::uint32_t tags_per_iteration, std::uint64_t bytes_per_value) {
    return list_writer{list,
                       first,
                       o.workers,
                       static_cast<std::uint32_t>(it) * tags_per_iteration,
                       static_cast<std::uint32_t>(bytes_per_value),
                       o.tos};
}

std::vector<int> iota_ranks(std::size_t n) {
    std::vector<int> r(n);
    std::iota(r.begin(), r.end(), 0);
    return r;
}

}  // namespace

parallel_training_builder::parallel_training_builder(const models::model& m, parallel_options o)
    : m_model(m), m_options(std::move(o)) {
    const std::string what = "parallel_training_builder";
    const auto& layers = m_model.layers();
    const std::size_t n = layers.size();
    const std::size_t N = m_options.workers.size();
    const int schemes = (m_options.sharding != sharding_mode::NONE ? 1 : 0) +
                        (m_options.tensor_parallel > 1 ? 1 : 0) +
                        (m_options.pipeline_stages > 1 ? 1 : 0);
    if (schemes == 0) {
        throw std::invalid_argument(what +
                                    ": none of sharding, tensor_parallel (> 1) and "
                                    "pipeline_stages (> 1) is set");
    }
    if (schemes > 1) {
        throw std::invalid_argument(
            "sharding, tensor_parallel and pipeline_stages do not combine yet: set one of them");
    }
    if (N < 2) {
        throw std::invalid_argument(
            "sharding, tensor_parallel and pipeline_stages need at "
            "least 2 workers, got " +
            std::to_string(N));
    }
    if (m_options.iterations < 1) throw std::invalid_argument(what + ": iterations < 1");
    if (m_options.tensor_parallel < 1) {
        throw std::invalid_argument("tensor_parallel must be >= 1, got " +
                                    std::to_string(m_options.tensor_parallel));
    }
    if (N % static_cast<std::size_t>(m_options.tensor_parallel) != 0) {
        throw std::invalid_argument("tensor_parallel " + std::to_string(m_options.tensor_parallel) +
                                    " does not divide the " + std::to_string(N) + " workers");
    }
    if (m_options.pipeline_stages < 1) {
        throw std::invalid_argument("pipeline_stages must be >= 1, got " +
                                    std::to_string(m_options.pipeline_stages));
    }
    if (m_options.micro_batches < 1) {
        throw std::invalid_argument("micro_batches must be >= 1, got " +
                                    std::to_string(m_options.micro_batches));
    }
    const std::size_t S = static_cast<std::size_t>(m_options.pipeline_stages);
    if (S > n) {
        throw std::invalid_argument("pipeline_stages " + std::to_string(S) + " exceeds the " +
                                    std::to_string(n) + " layers of model " + m_model.name());
    }
    if (N % S != 0) {
        throw std::invalid_argument("pipeline_stages " + std::to_string(S) +
                                    " does not divide the " + std::to_string(N) + " workers");
    }
    if (m_model.batch() % m_options.micro_batches != 0) {
        throw std::invalid_argument("micro_batches " + std::to_string(m_options.micro_batches) +
                                    " does not divide the batch " +
                                    std::to_string(m_model.batch()));
    }

    // Per-layer costs: the zoo's totals (as training_builder: forward reads the weights and
    // writes the output; backward reads weights, activations and the output gradient and
    // writes the weight gradient), or measured times split by FLOPs.
    m_costs.resize(n);
    std::vector<double> fwd, bwd;
    for (std::size_t l = 0; l < n; ++l) {
        const auto& L = layers[l];
        m_costs[l].forward_flops = static_cast<double>(L.forward_flops);
        m_costs[l].backward_flops = static_cast<double>(L.backward_flops());
        m_costs[l].forward_bytes = static_cast<std::uint64_t>(L.weight_bytes + L.activation_bytes);
        m_costs[l].backward_bytes = static_cast<std::uint64_t>(
            L.weight_bytes + L.weight_grad_bytes + 2 * L.activation_bytes);
        fwd.push_back(m_costs[l].forward_flops);
        bwd.push_back(m_costs[l].backward_flops);
    }
    if (m_options.forward_ps) {
        const auto d = split_proportionally(*m_options.forward_ps, fwd);
        for (std::size_t l = 0; l < n; ++l) m_costs[l].forward_ps = d[l];
    }
    if (m_options.backward_ps) {
        const auto d = split_proportionally(*m_options.backward_ps, bwd);
        for (std::size_t l = 0; l < n; ++l) m_costs[l].backward_ps = d[l];
    }
    std::uint64_t grads = 0;
    for (const auto& L : layers) grads += static_cast<std::uint64_t>(L.weight_grad_bytes);
    if (grads == 0) {
        throw std::invalid_argument(what + ": model " + m_model.name() +
                                    " has no parameters to train");
    }

    // Pipeline stages: the contiguous split into S non-empty stages whose largest stage cost
    // (forward + backward FLOPs, or measured time when given) is smallest (linear partition by
    // dynamic programming; among equal splits the one with the earliest cuts).
    m_stage_bounds = {0, n};
    if (S > 1) {
        std::vector<long double> prefix(n + 1, 0);
        for (std::size_t l = 0; l < n; ++l) {
            const long double c =
                (m_options.forward_ps || m_options.backward_ps)
                    ? static_cast<long double>(m_costs[l].forward_ps + m_costs[l].backward_ps)
                    : static_cast<long double>(m_costs[l].forward_flops +
                                               m_costs[l].backward_flops);
            prefix[l + 1] = prefix[l] + c;
        }
        const long double inf = std::numeric_limits<long double>::infinity();
        // best[k][i]: the smallest largest stage of layers [0, i) in k stages; cut[k][i]: where
        // its last stage starts.
        std::vector<std::vector<long double>> best(S + 1, std::vector<long double>(n + 1, inf));
        std::vector<std::vector<std::size_t>> cut(S + 1, std::vector<std::size_t>(n + 1, 0));
        best[0][0] = 0;
        for (std::size_t k = 1; k <= S; ++k) {
            for (std::size_t i = k; i <= n; ++i) {
                for (std::size_t j = k - 1; j < i; ++j) {
                    const long double c = std::max(best[k - 1][j], prefix[i] - prefix[j]);
                    if (c < best[k][i]) {
                        best[k][i] = c;
                        cut[k][i] = j;
                    }
                }
            }
        }
        m_stage_bounds.assign(S + 1, 0);
        m_stage_bounds[S] = n;
        for (std::size_t k = S; k > 0; --k) m_stage_bounds[k - 1] = cut[k][m_stage_bounds[k]];
        // Only the previous stage's last output crosses a cut (it is what is sent).
        std::map<std::string, std::size_t> index;
        for (std::size_t l = 0; l < n; ++l) index[layers[l].name] = l;
        for (std::size_t k = 0; k < S; ++k) {
            for (std::size_t l = m_stage_bounds[k]; l < m_stage_bounds[k + 1]; ++l) {
                for (const std::string& in : layers[l].inputs) {
                    const auto it = index.find(in);
                    const bool ok = it == index.end()
                                        ? k == 0
                                        : it->second >= m_stage_bounds[k] ||
                                              (k > 0 && it->second + 1 == m_stage_bounds[k]);
                    if (!ok) {
                        throw std::invalid_argument(
                            "pipeline_stages " + std::to_string(S) + ": layer " + layers[l].name +
                            " of stage " + std::to_string(k) + " reads " + in +
                            " from an earlier stage; only the previous stage's last output "
                            "crosses a cut");
                    }
                }
            }
        }
    }

    // The tags of one iteration: the largest any rank uses, + 1 (every rank's iteration has
    // the same collectives in the same order, so this is the same number on all of them).
    m_tags_per_iteration = 0;
    for (std::size_t r = 0; r < N; ++r) {
        for (const op& x : build_iteration(r, 0, 0)) {
            m_tags_per_iteration = std::max(m_tags_per_iteration, x.tag + 1);
        }
    }
}

std::vector<int> parallel_training_builder::one_f_one_b(int stage) const {
    const int S = m_options.pipeline_stages, M = m_options.micro_batches;
    const int warm = std::min(S - 1 - stage, M);
    std::vector<int> order;
    for (int m = 0; m < warm; ++m) order.push_back(m);
    for (int i = 0; i < M - warm; ++i) {
        order.push_back(warm + i);
        order.push_back(-(i + 1));
    }
    for (int m = M - warm; m < M; ++m) order.push_back(-(m + 1));
    return order;
}

std::vector<op> parallel_training_builder::worker_ops(std::size_t rank) const {
    if (rank >= ranks()) {
        throw std::invalid_argument("parallel_training_builder: rank " + std::to_string(rank) +
                                    " is not in 0.." + std::to_string(ranks() - 1));
    }
    std::vector<op> list;
    std::size_t begin = 0;  // the previous iteration's first op
    for (int it = 0; it < m_options.iterations; ++it) {
        std::vector<op> part = build_iteration(rank, it, list.size());
        // The next iteration starts when this one is done on the rank (its first ops wait for
        // the previous iteration's last ones).
        if (!list.empty()) {
            const std::vector<std::size_t> prev = op_frontier(list, 0, begin);
            for (op& x : part) {
                bool inner = false;
                for (std::size_t a : x.after) inner = inner || a >= list.size();
                if (inner) continue;
                std::vector<std::size_t> after(x.after.begin(), x.after.end());
                after.insert(after.end(), prev.begin(), prev.end());
                x = with_after(std::move(x), std::move(after));
            }
        }
        begin = list.size();
        list.insert(list.end(), std::make_move_iterator(part.begin()),
                    std::make_move_iterator(part.end()));
    }
    return list;
}

op parallel_training_builder::compute_op(std::size_t layer, bool forward, double share,
                                         const std::string& prefix, int micro) const {
    const auto& L = m_model.layers()[layer];
    const layer_cost& c = m_costs[layer];
    op x;
    x.name = prefix + (forward ? "fwd_" : "bwd_") + L.name +
             (micro >= 0 ? "_mb" + std::to_string(micro) : std::string());
    x.unit = op_unit::CPU;
    x.phase = forward ? ops::op_phase::FORWARD : ops::op_phase::BACKWARD;
    const bool measured =
        forward ? m_options.forward_ps.has_value() : m_options.backward_ps.has_value();
    if (measured) {
        x.kind = op_kind::DELAY;
        x.delay_ps = static_cast<std::uint64_t>(
            std::llround(static_cast<double>(forward ? c.forward_ps : c.backward_ps) * share));
    } else {
        x.kind = op_kind::COMPUTE;
        x.flops = (forward ? c.forward_flops : c.backward_flops) * share;
        x.bytes = static_cast<std::uint64_t>(std::llround(
            static_cast<double>(forward ? c.forward_bytes : c.backward_bytes) * share));
        x.address = training_builder::k_weight_base;
    }
    return x;
}

std::vector<op> parallel_training_builder::build_iteration(std::size_t rank, int it,
                                                           std::size_t first) const {
    std::vector<op> list;
    if (m_options.sharding != sharding_mode::NONE) {
        sharded(list, rank, it, first);
    } else if (m_options.tensor_parallel > 1) {
        tensor(list, rank, it, first);
    } else {
        pipeline(list, rank, it, first);
    }
    return list;
}

namespace {

std::string iteration_prefix(int iterations, int it) {
    return iterations > 1 ? "i" + std::to_string(it) + "_" : std::string();
}

op update_op(const std::string& name, std::uint64_t bytes, std::uint64_t address) {
    op u;
    u.name = name;
    u.kind = op_kind::UPDATE;
    u.unit = op_unit::CPU;
    u.bytes = bytes;
    u.address = address;
    return u;
}

}  // namespace

// ZeRO-2 / ZeRO-3 (README.md, "Modern parallelism").
void parallel_training_builder::sharded(std::vector<op>& list, std::size_t rank, int it,
                                        std::size_t first) const {
    const auto& layers = m_model.layers();
    const std::size_t n = layers.size();
    const std::size_t N = ranks();
    const std::uint64_t bpv = static_cast<std::uint64_t>(m_model.bytes_per_value());
    const bool full = m_options.sharding == sharding_mode::FULL;
    const std::string prefix = iteration_prefix(m_options.iterations, it);
    list_writer w = writer_for(list, first, m_options, it, m_tags_per_iteration, bpv);
    const std::vector<int> all = iota_ranks(N);

    std::vector<std::uint64_t> offset(n, 0);
    std::uint64_t grads = 0;
    for (std::size_t l = 0; l < n; ++l) {
        offset[l] = grads;
        grads += static_cast<std::uint64_t>(layers[l].weight_grad_bytes);
    }
    const std::uint64_t weights = training_builder::k_weight_base;
    const std::uint64_t grad_base = weights + align_up(grads, 4096);

    std::vector<gradient_bucket> buckets;
    if (m_options.bucket_bytes == 0 && !m_options.per_layer_buckets) {
        gradient_bucket b{"all", 0, 0, grads, {}};
        for (std::size_t l = n; l-- > 0;) {
            if (layers[l].weight_grad_bytes > 0) b.layers.push_back(l);
        }
        buckets.push_back(b);
    } else {
        buckets = bucket_gradients(layers, m_options.bucket_bytes);
    }

    // ZeRO-3: layer l's parameters, gathered from every rank's shard.
    auto gather_params = [&](std::size_t l, const std::vector<std::size_t>& start,
                             const std::string& what) {
        return w.collective(
            "ring_allgather", all, static_cast<std::uint64_t>(layers[l].weight_grad_bytes) / bpv,
            weights + offset[l], rank, start, prefix + "ag_" + what + "_" + layers[l].name + ".");
    };

    // Forward: (ZeRO-3) each layer waits for its gathered parameters; the comm unit gathers
    // ahead while the cpu computes.
    std::size_t last = 0;
    bool any = false;
    for (std::size_t l = 0; l < n; ++l) {
        std::vector<std::size_t> after;
        if (full && layers[l].weight_grad_bytes > 0) after = gather_params(l, {}, "fwd");
        if (any) after.push_back(last);
        last = w.push(with_after(compute_op(l, true, 1.0, prefix), after));
        any = true;
    }
    const std::size_t last_forward = last;

    // Backward: (ZeRO-3) the parameters are gathered again, one layer with parameters ahead of
    // the cpu; each bucket is reduce-scattered when its last gradient is computed, the rank
    // updates its shard, and (ZeRO-2) the bucket's parameters are all-gathered back.
    auto next_param_layer_below = [&](std::size_t l) -> std::ptrdiff_t {
        for (std::size_t k = l; k-- > 0;) {
            if (layers[k].weight_grad_bytes > 0) return static_cast<std::ptrdiff_t>(k);
        }
        return -1;
    };
    std::map<std::size_t, std::vector<std::size_t>> gathered;  // layer -> its gather's end
    if (full) {
        const std::ptrdiff_t top = next_param_layer_below(n);
        gathered[static_cast<std::size_t>(top)] =
            gather_params(static_cast<std::size_t>(top), {last_forward}, "bwd");
    }
    std::size_t next_bucket = 0;
    for (std::size_t l = n; l-- > 0;) {
        std::vector<std::size_t> after = {last};
        if (full && gathered.count(l)) {
            after.insert(after.end(), gathered[l].begin(), gathered[l].end());
        }
        last = w.push(with_after(compute_op(l, false, 1.0, prefix), after));
        if (full && layers[l].weight_grad_bytes > 0) {
            const std::ptrdiff_t below = next_param_layer_below(l);
            if (below >= 0) {
                gathered[static_cast<std::size_t>(below)] =
                    gather_params(static_cast<std::size_t>(below), {last_forward}, "bwd");
            }
        }
        while (next_bucket < buckets.size() && buckets[next_bucket].close_layer == l) {
            const gradient_bucket& b = buckets[next_bucket++];
            const std::uint64_t elements = b.bytes / bpv;
            const std::vector<std::size_t> reduced =
                w.collective("ring_reduce_scatter", all, elements, grad_base + b.offset, rank,
                             {last}, prefix + "rs_" + b.name + ".");
            // ring_reduce_scatter leaves block `rank` of partition(elements, N) on the rank.
            const collectives::chunk mine = collectives::partition(elements, N)[rank];
            const std::size_t u =
                w.push(with_after(update_op(prefix + "update_" + b.name, mine.count * bpv,
                                            weights + b.offset + mine.offset * bpv),
                                  reduced));
            if (!full) {
                w.collective("ring_allgather", all, elements, weights + b.offset, rank, {u},
                             prefix + "ag_" + b.name + ".");
            }
        }
    }
}

// Megatron-style tensor parallelism (README.md, "Modern parallelism").
void parallel_training_builder::tensor(std::vector<op>& list, std::size_t rank, int it,
                                       std::size_t first) const {
    const auto& layers = m_model.layers();
    const std::size_t n = layers.size();
    const int T = m_options.tensor_parallel;
    const int D = static_cast<int>(ranks()) / T;
    const std::uint64_t bpv = static_cast<std::uint64_t>(m_model.bytes_per_value());
    const std::string prefix = iteration_prefix(m_options.iterations, it);
    list_writer w = writer_for(list, first, m_options, it, m_tags_per_iteration, bpv);
    const collectives::parallel_groups g = collectives::make_parallel_groups(T, D);
    const std::vector<int>& tp = g.tensor_parallel[rank / static_cast<std::size_t>(T)];
    const std::vector<int>& dp = g.data_parallel[rank % static_cast<std::size_t>(T)];
    const std::uint64_t weights = training_builder::k_weight_base;
    const std::uint64_t acts = weights + (1ull << 30);
    const double share = 1.0 / T;

    std::vector<std::size_t> pending;
    for (std::size_t l = 0; l < n; ++l) {
        const bool split = layers[l].weight_grad_bytes > 0;
        const std::size_t f =
            w.push(with_after(compute_op(l, true, split ? share : 1.0, prefix), pending));
        pending = {f};
        if (split) {
            // The partial outputs summed within the group (Megatron's f/g operators).
            pending = w.collective("ring", tp,
                                   static_cast<std::uint64_t>(layers[l].activation_bytes) / bpv,
                                   acts, rank, pending, prefix + "tp_fwd_" + layers[l].name + ".");
        }
    }
    std::uint64_t shard = 0;  // this rank's parameter bytes: ceil(params / T) per split layer
    for (std::size_t l = n; l-- > 0;) {
        const bool split = layers[l].weight_grad_bytes > 0;
        const std::size_t b =
            w.push(with_after(compute_op(l, false, split ? share : 1.0, prefix), pending));
        pending = {b};
        if (split) {
            shard += (static_cast<std::uint64_t>(layers[l].params) + T - 1) / T * bpv;
            if (l > 0) {
                // The partial input gradients summed within the group.
                pending = w.collective(
                    "ring", tp, static_cast<std::uint64_t>(layers[l - 1].activation_bytes) / bpv,
                    acts, rank, pending, prefix + "tp_bwd_" + layers[l].name + ".");
            }
        }
    }
    // The gradients of this rank's shard, all-reduced over the ranks holding the same shard.
    std::vector<std::size_t> reduced = pending;
    if (D > 1) {
        reduced = w.collective("ring", dp, shard / bpv, weights + (1ull << 29), rank, pending,
                               prefix + "dp_all.");
    }
    w.push(with_after(update_op(prefix + "update_all", shard, weights), reduced));
}

// 1F1B pipeline (README.md, "Modern parallelism").
void parallel_training_builder::pipeline(std::vector<op>& list, std::size_t rank, int it,
                                         std::size_t first) const {
    const auto& layers = m_model.layers();
    const int S = m_options.pipeline_stages;
    const int M = m_options.micro_batches;
    const int D = static_cast<int>(ranks()) / S;
    const int s = static_cast<int>(rank) % S;
    const std::uint64_t bpv = static_cast<std::uint64_t>(m_model.bytes_per_value());
    const std::string prefix = iteration_prefix(m_options.iterations, it);
    list_writer w = writer_for(list, first, m_options, it, m_tags_per_iteration, bpv);
    const std::size_t lo = m_stage_bounds[static_cast<std::size_t>(s)];
    const std::size_t hi = m_stage_bounds[static_cast<std::size_t>(s) + 1];
    const std::uint64_t weights = training_builder::k_weight_base;
    const std::uint64_t acts = weights + (1ull << 30);
    const double share = 1.0 / M;
    // What crosses the cut below stage k (k >= 1): the output of stage k-1's last layer, one
    // micro-batch's worth.
    auto cut_bytes = [&](std::size_t k) {
        return static_cast<std::uint64_t>(layers[m_stage_bounds[k] - 1].activation_bytes) /
               static_cast<std::uint64_t>(M);
    };
    const std::uint32_t base_tag = w.tag;
    const std::uint32_t prev_node = s > 0 ? m_options.workers[rank - 1] : 0;
    const std::uint32_t next_node = s < S - 1 ? m_options.workers[rank + 1] : 0;
    auto p2p = [&](op_kind kind, std::uint32_t peer, std::uint64_t bytes, std::uint32_t tag,
                   const std::string& name, std::vector<std::size_t> after) {
        op x;
        x.name = name;
        x.kind = kind;
        x.unit = op_unit::COMM;
        x.peer = peer;
        x.bytes = bytes;
        x.tag = tag;
        x.address = acts;
        x.phase = ops::op_phase::COMM;
        return w.push(with_after(x, std::move(after)));
    };

    std::size_t last = 0;
    bool any = false;
    for (int step : one_f_one_b(s)) {
        const bool forward = step >= 0;
        const int m = forward ? step : -step - 1;
        const std::string mb = "_mb" + std::to_string(m);
        std::vector<std::size_t> after;
        if (any) after.push_back(last);
        if (forward && s > 0) {
            after.push_back(p2p(op_kind::RECV, prev_node, cut_bytes(static_cast<std::size_t>(s)),
                                base_tag + static_cast<std::uint32_t>(m), prefix + "recv_act" + mb,
                                {}));
        }
        if (!forward && s < S - 1) {
            after.push_back(
                p2p(op_kind::RECV, next_node, cut_bytes(static_cast<std::size_t>(s) + 1),
                    base_tag + static_cast<std::uint32_t>(M + m), prefix + "recv_grad" + mb, {}));
        }
        if (forward) {
            for (std::size_t l = lo; l < hi; ++l) {
                last = w.push(with_after(compute_op(l, true, share, prefix, m), after));
                after = {last};
            }
            if (s < S - 1) {
                p2p(op_kind::SEND, next_node, cut_bytes(static_cast<std::size_t>(s) + 1),
                    base_tag + static_cast<std::uint32_t>(m), prefix + "send_act" + mb, {last});
            }
        } else {
            for (std::size_t l = hi; l-- > lo;) {
                last = w.push(with_after(compute_op(l, false, share, prefix, m), after));
                after = {last};
            }
            if (s > 0) {
                p2p(op_kind::SEND, prev_node, cut_bytes(static_cast<std::size_t>(s)),
                    base_tag + static_cast<std::uint32_t>(M + m), prefix + "send_grad" + mb,
                    {last});
            }
        }
        any = true;
    }
    w.tag = base_tag + 2 * static_cast<std::uint32_t>(M);

    std::uint64_t stage_grads = 0;
    for (std::size_t l = lo; l < hi; ++l) {
        stage_grads += static_cast<std::uint64_t>(layers[l].weight_grad_bytes);
    }
    if (stage_grads == 0) return;
    std::vector<std::size_t> reduced = {last};
    if (D > 1) {
        // The stage's replicas: ranks s, s + S, ... (make_parallel_groups(S, D)).
        const collectives::parallel_groups g = collectives::make_parallel_groups(S, D);
        reduced = w.collective("ring", g.data_parallel[static_cast<std::size_t>(s)],
                               stage_grads / bpv, weights + (1ull << 29), rank, reduced,
                               prefix + "dp_stage" + std::to_string(s) + ".");
    }
    w.push(with_after(update_op(prefix + "update_stage" + std::to_string(s), stage_grads, weights),
                      reduced));
}

}  // namespace trainvp::workloads
