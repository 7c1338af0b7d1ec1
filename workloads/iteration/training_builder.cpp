#include "workloads/iteration/training_builder.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "workloads/collectives/collective_registry.h"
#include "workloads/iteration/collective_ops.h"
#include "workloads/iteration/op_frontier.h"
#include "workloads/models/layer_math.h"

namespace trainvp::workloads {

using ops::op;
using ops::op_kind;
using ops::op_unit;

namespace {

// A host UPDATE op as the kernel a GPU runs instead: the same name, FLOPs and memory bytes on
// the gpu unit (ops::work_flops, ops::memory_bytes).
op gpu_update_of(const op& u) {
    op g;
    g.name = u.name;
    g.kind = op_kind::GPU_COMPUTE;
    g.unit = op_unit::GPU;
    g.phase = ops::op_phase::UPDATE;
    g.flops = ops::work_flops(u);
    g.bytes = ops::memory_bytes(u);
    return g;
}

std::uint64_t align_up(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }

}  // namespace

std::vector<std::uint64_t> split_proportionally(std::uint64_t total,
                                                const std::vector<double>& weights) {
    std::vector<std::uint64_t> out(weights.size(), 0);
    if (weights.empty()) return out;
    long double sum = 0;
    for (double w : weights) sum += w;
    const bool equal = sum <= 0;
    if (equal) sum = static_cast<long double>(weights.size());
    // Cumulative rounding: part i is round(T * W_i / W) - round(T * W_{i-1} / W), so the parts
    // telescope to exactly T whatever the rounding of each.
    long double cum = 0;
    std::uint64_t prev = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        cum += equal ? 1.0L : static_cast<long double>(weights[i]);
        const std::uint64_t upto = i + 1 == weights.size()
                                       ? total
                                       : static_cast<std::uint64_t>(std::llround(
                                             static_cast<long double>(total) * cum / sum));
        out[i] = upto - prev;
        prev = upto;
    }
    return out;
}

std::vector<std::string> exchange_algorithm_names() {
    // The hosts' collectives, then those only a fabric runs handed over whole (offload).
    const auto& reg = collectives::collective_registry::global();
    std::vector<std::string> names = reg.names_for(collectives::fabric::HOST);
    for (const std::string& n : reg.names_for(collectives::fabric::FLOW)) {
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    names.push_back(k_fpga_ring);
    names.push_back(k_no_exchange);
    return names;
}

bool needs_aggregator(const std::string& algorithm) {
    const collectives::collective_info* c =
        collectives::collective_registry::global().find(algorithm);
    return c != nullptr && c->needs.aggregator;
}

bool is_allreduce(const std::string& algorithm) {
    return algorithm != k_no_exchange && !needs_aggregator(algorithm);
}

training_builder::training_builder(const models::model& m, training_options o)
    : m_model(m), m_options(std::move(o)) {
    const std::string what = "training_builder";
    m_fpga = m_options.algorithm == k_fpga_ring;
    m_offload = m_fpga || m_options.offload;
    m_none = m_options.algorithm == k_no_exchange;
    if (!m_fpga && !m_none) {
        const auto& reg = collectives::collective_registry::global();
        m_collective = reg.find(m_options.algorithm);
        if (m_collective == nullptr) {
            std::string known;
            for (const auto& name : exchange_algorithm_names()) {
                known += (known.empty() ? "" : ", ") + name;
            }
            throw std::invalid_argument(what + ": no exchange algorithm '" + m_options.algorithm +
                                        "'; known: " + known);
        }
        if (!m_options.offload && !m_collective->runs_on(collectives::fabric::HOST)) {
            throw std::invalid_argument(what + ": collective " + m_options.algorithm +
                                        " does not run on hosts; a fabric that runs it can "
                                        "(offload: true, fabric.flow with that collective)");
        }
    }
    m_allreduce = is_allreduce(m_options.algorithm);
    if (m_options.offload && !m_allreduce) {
        throw std::invalid_argument(what + ": offload runs all-reduces only, not " +
                                    m_options.algorithm);
    }
    const bool ring = m_allreduce;
    const bool none = m_none;
    if (m_options.workers.empty()) throw std::invalid_argument(what + ": no workers");
    if (ring && m_options.workers.size() < 2) {
        throw std::invalid_argument(what + ": an all-reduce needs at least 2 workers, got 1");
    }
    if (!ring && !none && !m_options.aggregator) {
        throw std::invalid_argument(what + ": " + m_options.algorithm + " needs an aggregator");
    }
    if (ring && m_options.aggregator) {
        throw std::invalid_argument(what + ": an all-reduce has no aggregator");
    }
    if (none && m_options.aggregator) {
        throw std::invalid_argument(what + ": training without an exchange has no aggregator");
    }
    std::set<std::uint32_t> ids(m_options.workers.begin(), m_options.workers.end());
    if (m_options.aggregator) ids.insert(*m_options.aggregator);
    if (ids.size() != m_options.workers.size() + (m_options.aggregator ? 1 : 0)) {
        throw std::invalid_argument(what + ": a node id appears twice among the ranks");
    }
    if (m_options.iterations < 1) throw std::invalid_argument(what + ": iterations < 1");

    const auto& layers = m_model.layers();
    const std::size_t n = layers.size();
    m_layer_offset.assign(n, 0);
    m_activation_offset.assign(n, 0);
    m_bucket_of_layer.assign(n, -1);
    std::uint64_t grads = 0, acts = 0;
    for (std::size_t l = 0; l < n; ++l) {
        m_layer_offset[l] = grads;
        m_activation_offset[l] = acts;
        grads += static_cast<std::uint64_t>(layers[l].weight_grad_bytes);
        acts += static_cast<std::uint64_t>(layers[l].activation_bytes);
    }
    if (grads == 0)
        throw std::invalid_argument(what + ": model " + m_model.name() +
                                    " has no parameters to exchange");
    m_grad_base = k_weight_base + align_up(grads, 4096);
    m_grad_bytes = grads;
    m_activation_base = m_grad_base + align_up(grads, 4096);
    m_exchange_base = m_activation_base + align_up(acts, 4096);

    // Hybrid parallelism: the layers from m_mp_first on are model-parallel.
    m_mp_first = n;
    if (m_options.model_parallel_from) {
        const std::size_t s = *m_options.model_parallel_from;
        const std::string h = what + ": hybrid parallelism (model_parallel_from)";
        if (s < 1 || s >= n) {
            throw std::invalid_argument(h + ": layer index " + std::to_string(s) +
                                        " is not in 1.." + std::to_string(n - 1));
        }
        if (!m_allreduce || m_offload || m_options.policy != exchange_policy::AFTER_BACKWARD) {
            throw std::invalid_argument(h + " needs a host all-reduce run after_backward");
        }
        if (m_options.forward_ps || m_options.backward_ps) {
            throw std::invalid_argument(h + " needs computed phases, not measured times");
        }
        for (std::size_t l = s; l < n; ++l) {
            if (layers[l].inputs.size() != 1 || layers[l].inputs[0] != layers[l - 1].name) {
                throw std::invalid_argument(h + ": layer " + layers[l].name +
                                            " does not take the previous layer's output alone");
            }
        }
        m_mp_first = s;
    }
    std::uint64_t dp_grads = 0;
    for (std::size_t l = 0; l < m_mp_first; ++l) {
        dp_grads += static_cast<std::uint64_t>(layers[l].weight_grad_bytes);
    }
    if (hybrid()) {
        if (dp_grads == 0) {
            throw std::invalid_argument(what + ": no data-parallel layer before " +
                                        layers[m_mp_first].name + " has parameters");
        }
        m_grad_bytes = dp_grads;
    }

    if (m_options.policy == exchange_policy::AFTER_BACKWARD) {
        // The data-parallel layers' gradients (all of them unless hybrid): the first bytes of
        // the buffer, which holds the layers in order.
        gradient_bucket b{"all", 0, 0, dp_grads, {}};
        for (std::size_t l = m_mp_first; l-- > 0;) {
            if (layers[l].weight_grad_bytes > 0) b.layers.push_back(l);
        }
        m_buckets.push_back(b);
    } else {
        m_buckets = bucket_gradients(layers, m_options.bucket_bytes);
    }
    for (std::size_t k = 0; k < m_buckets.size(); ++k) {
        for (std::size_t l : m_buckets[k].layers)
            m_bucket_of_layer[l] = static_cast<std::ptrdiff_t>(k);
    }

    const auto bpv = static_cast<std::uint64_t>(m_model.bytes_per_value());
    const int p = static_cast<int>(m_options.workers.size());
    for (const auto& b : m_buckets) {
        if (none) break;
        const std::uint64_t n = b.bytes / bpv;
        if (m_offload) {
            // The NIC runs the schedule (its FSM, or the fabric's loop); the host only needs
            // one tag per bucket.
            m_schedules.push_back(collectives::schedule{});
        } else if (m_collective->rank_steps) {
            // Every rank's steps are made when its list is (rank_steps): a 1024-rank ring's
            // whole schedule was 134 MB held for the run.
            collectives::schedule s;
            s.algorithm = m_options.algorithm;
            s.ranks = p;
            s.elements = n;
            m_schedules.push_back(std::move(s));
        } else {
            collectives::collective_args a;
            a.ranks = p;
            a.elements = n;
            a.levels = m_options.levels;
            a.cols = m_options.group > 0
                         ? m_options.group
                         : static_cast<int>(std::llround(std::sqrt(static_cast<double>(p))));
            a.rows = a.cols > 0 ? p / a.cols : 0;
            if (a.cols > 0 && a.rows * a.cols != p) a.rows = 0;  // make() says why
            // An aggregator with TREE sends the updated weights straight back to each worker
            // (inceptionn.md Fig. 1(a)); BINOMIAL: through the workers.
            a.aggregator.result_return = m_options.wa_return;
            m_schedules.push_back(
                collectives::collective_registry::global().make(m_options.algorithm, a));
        }
    }
    // Each bucket's tag range, scanned once here: a schedule has N x steps entries, and every
    // rank's list needs the ranges (scanning per rank was O(N^3) for a ring).
    // Also rank 0's range ends, which every rank's expansion tries first (all of a ring's ranks
    // find theirs there): one sort per schedule instead of one per rank.  An iteration's list
    // is reserved once (a regrowth moved every op of a 1024-rank ring).
    m_ops_per_rank_hint = 4 * n + 8 * m_buckets.size() + 8;
    for (std::size_t k = 0; k < m_schedules.size(); ++k) {
        const collectives::schedule& s = m_schedules[k];
        if (generates_steps(k)) {
            // A ring's pairs all carry the same messages: rank 0's tags are every pair's.
            const std::vector<collectives::step> steps0 = rank_steps(k, 0);
            std::uint32_t tag = 0;
            for (const auto& st : steps0) tag = std::max(tag, st.tag);
            m_tags_of_bucket.push_back(tag + 1);
            m_bounds_of_bucket.push_back(range_bounds(steps0));
            m_ops_per_rank_hint += 2 * steps0.size();  // a RECV_REDUCE step makes two ops
            continue;
        }
        m_tags_of_bucket.push_back(max_tag(s) + 1);
        m_bounds_of_bucket.push_back(range_bounds(s, 0));
        std::size_t most = 0;
        for (const auto& steps : s.steps) most = std::max(most, steps.size());
        m_ops_per_rank_hint += 2 * most;
    }

    std::vector<double> fwd, bwd;
    for (const auto& l : layers) {
        fwd.push_back(static_cast<double>(l.forward_flops));
        bwd.push_back(static_cast<double>(l.backward_flops()));
    }
    if (m_options.forward_ps) m_forward_delay_ps = split_proportionally(*m_options.forward_ps, fwd);
    if (m_options.layer_costs) {
        m_layer_costs = models::layer_cost_model(*m_options.layer_costs).costs(m);
    }
    if (m_options.backward_ps) {
        m_backward_delay_ps = split_proportionally(*m_options.backward_ps, bwd);
    }

    if (hybrid()) {
        // Each worker computes 1/K of a conv or fc layer's outputs for the K x batch samples
        // gathered (paleo.md §4.2.3; TalwalkarLab/paleo nets/alex_v2_{2,4,8}gpu.json split the
        // filters, paleo/layers/conv.py split_model); another kind works on its slice, as much
        // as the whole layer on one batch.
        const std::int64_t K = p, B = m_model.batch(), bpv_i = m_model.bytes_per_value();
        std::optional<models::layer_cost_model> lcm;
        if (m_options.layer_costs) lcm.emplace(*m_options.layer_costs);
        std::size_t last_param = m_mp_first;
        for (std::size_t l = m_mp_first; l < n; ++l) {
            const auto& L = layers[l];
            mp_cost c;
            if (L.params > 0) {
                models::layer_info sl = L;
                std::int64_t* out = L.kind == models::layer_kind::CONV && L.spec.groups == 1
                                        ? &sl.spec.out_channels
                                    : L.kind == models::layer_kind::FC ? &sl.spec.out_features
                                                                       : nullptr;
                if (out == nullptr || *out % K != 0) {
                    throw std::invalid_argument(
                        what + ": hybrid parallelism splits " + L.name +
                        " over the workers: it must be an ungrouped conv or an fc layer whose " +
                        "outputs the " + std::to_string(K) + " workers divide");
                }
                *out /= K;
                models::layer_math::derive(sl, K * B, bpv_i);
                if (lcm) {
                    const models::layer_costs lc = lcm->cost(sl, K * B, bpv_i);
                    c.forward_flops = lc.forward.flops;
                    c.forward_bytes = static_cast<std::uint64_t>(lc.forward.bytes());
                    const models::op_cost b = lc.backward();
                    c.backward_flops = b.flops;
                    c.backward_bytes = static_cast<std::uint64_t>(b.bytes());
                } else {
                    c.forward_flops = static_cast<double>(sl.forward_flops);
                    c.forward_bytes =
                        static_cast<std::uint64_t>(sl.weight_bytes + sl.activation_bytes);
                    c.backward_flops = static_cast<double>(sl.backward_flops());
                    c.backward_bytes = static_cast<std::uint64_t>(
                        sl.weight_bytes + sl.weight_grad_bytes + 2 * sl.activation_bytes);
                }
                c.weight_bytes = static_cast<std::uint64_t>(sl.weight_bytes);
                mp_exchange x;
                x.layer = l;
                x.block_bytes = static_cast<std::uint64_t>(layers[l - 1].activation_bytes);
                m_mp_exchanges.push_back(std::move(x));
                last_param = l;
            } else if (!m_layer_costs.empty()) {
                c.forward_flops = m_layer_costs[l].forward.flops;
                c.forward_bytes = static_cast<std::uint64_t>(m_layer_costs[l].forward.bytes());
                const models::op_cost b = m_layer_costs[l].backward();
                c.backward_flops = b.flops;
                c.backward_bytes = static_cast<std::uint64_t>(b.bytes());
            } else {
                c.forward_flops = static_cast<double>(L.forward_flops);
                c.forward_bytes = static_cast<std::uint64_t>(L.weight_bytes + L.activation_bytes);
                c.backward_flops = static_cast<double>(L.backward_flops());
                c.backward_bytes = static_cast<std::uint64_t>(L.weight_bytes + L.weight_grad_bytes +
                                                              2 * L.activation_bytes);
            }
            m_mp_costs.push_back(c);
        }
        if (m_mp_exchanges.empty()) {
            throw std::invalid_argument(what + ": no layer from " + layers[m_mp_first].name +
                                        " on has parameters to split");
        }
        // The last sliced layer's outputs come together for the layers after it (the loss).
        mp_exchange x;
        x.layer = last_param;
        x.after = true;
        x.block_bytes = static_cast<std::uint64_t>(layers[last_param].activation_bytes);
        m_mp_exchanges.push_back(std::move(x));
        const auto& reg = collectives::collective_registry::global();
        for (mp_exchange& e : m_mp_exchanges) {
            collectives::collective_args a;
            a.ranks = p;
            a.elements = static_cast<std::uint64_t>(K) * (e.block_bytes / bpv);
            e.gather = reg.make("direct_allgather", a);
            e.scatter = reg.make("direct_reduce_scatter", a);
            m_ops_per_rank_hint += 8 * static_cast<std::size_t>(K) + 8;
        }
    }
}

bool training_builder::generates_steps(std::size_t k) const {
    return !m_offload && m_collective != nullptr && m_collective->rank_steps &&
           m_schedules[k].steps.empty();
}

std::vector<collectives::step> training_builder::rank_steps(std::size_t k, std::size_t rank) const {
    const collectives::schedule& s = m_schedules[k];
    if (!generates_steps(k)) return s.steps.at(rank);
    collectives::collective_args a;
    a.ranks = s.ranks;
    a.elements = s.elements;
    return m_collective->rank_steps(a, static_cast<int>(rank));
}

std::vector<op> training_builder::worker_ops(std::size_t rank) const {
    if (rank >= m_options.workers.size()) {
        throw std::invalid_argument("training_builder: worker rank " + std::to_string(rank) +
                                    " is not in 0.." +
                                    std::to_string(m_options.workers.size() - 1));
    }
    return build(rank, false);
}

std::vector<op> training_builder::aggregator_ops() const {
    if (!m_options.aggregator) return {};
    return build(m_options.workers.size(), true);
}

std::vector<op> training_builder::build(std::size_t rank, bool is_aggregator) const {
    // Per bucket: the ops the next iteration's forward ops of its layers wait for.
    std::vector<std::vector<std::size_t>> weights_ready(m_buckets.size());
    std::vector<op> list;
    for (int it = 0; it < m_options.iterations; ++it) {
        std::vector<op> part = build_iteration(rank, is_aggregator, it, list.size(), weights_ready);
        list.insert(list.end(), std::make_move_iterator(part.begin()),
                    std::make_move_iterator(part.end()));
    }
    return list;
}

std::uint32_t training_builder::tags_per_iteration() const {
    std::uint32_t tags = 0;
    for (std::uint32_t t : m_tags_of_bucket) tags += t;
    // Hybrid: one tag per gather and per reduce-scatter (each pair carries one message).
    return tags + 2 * static_cast<std::uint32_t>(m_mp_exchanges.size());
}

std::vector<op> training_builder::build_iteration(
    std::size_t rank, bool is_aggregator, int it, std::size_t first,
    std::vector<std::vector<std::size_t>>& weights_ready, bool names) const {
    const auto& layers = m_model.layers();
    const std::size_t n = layers.size();
    const bool fpga = m_offload;
    const bool ring = m_allreduce;
    const bool none = m_none;
    const bool gpu = m_options.compute == compute_placement::GPU;
    const bool overlap = m_options.policy == exchange_policy::OVERLAP_LAYERS;
    const op_unit compute_unit = gpu ? op_unit::GPU : op_unit::CPU;
    // The cpu unit runs ops in list order: while it is busy with the backward pass, a sum there
    // would hold the remaining backward ops behind its receive, so overlapped sums go to the
    // comm cores (smartnic.md §III's dedicated all-reduce threads).
    const op_unit sum_unit = (overlap && !gpu && !is_aggregator) ? op_unit::COMM : op_unit::CPU;

    std::vector<std::uint32_t> nodes = m_options.workers;
    if (m_options.aggregator) nodes.push_back(*m_options.aggregator);

    // list[i] is op first + i of the stream; every index below is a stream index.
    std::vector<op> list;
    list.reserve(m_ops_per_rank_hint);
    auto push = [&list, first](op o) {
        list.push_back(std::move(o));
        return first + list.size() - 1;
    };
    auto with_after = [](op o, std::vector<std::size_t> after) {
        std::sort(after.begin(), after.end());
        after.erase(std::unique(after.begin(), after.end()), after.end());
        o.after = std::move(after);
        return o;
    };

    std::uint32_t tag = static_cast<std::uint32_t>(it) * tags_per_iteration();
    {
        const std::string prefix =
            m_options.iterations > 1 ? "i" + std::to_string(it) + "_" : std::string();
        std::vector<std::uint32_t> tag_of(m_buckets.size());
        for (std::size_t k = 0; k < m_schedules.size(); ++k) {
            tag_of[k] = tag;
            tag += m_tags_of_bucket[k];
        }
        auto exchange_options = [&](std::size_t k, std::vector<std::size_t> start) {
            collective_op_options co;
            co.element_bytes = static_cast<std::uint32_t>(m_model.bytes_per_value());
            co.base_address = m_grad_base + m_buckets[k].offset;
            co.tag_base = tag_of[k];
            co.tos = m_options.tos;
            co.sum_unit = sum_unit;
            co.name_prefix = prefix + (ring ? "ar_" : "wa_") + m_buckets[k].name + ".";
            co.names = names;
            co.index_base = first + list.size();
            co.bounds = &m_bounds_of_bucket[k];
            co.start_after = std::move(start);
            return co;
        };
        auto weight_address = [&](std::size_t k) { return k_weight_base + m_buckets[k].offset; };

        if (is_aggregator) {
            // inceptionn.md §II-B: receive and sum every worker's gradients, update the weights,
            // send them back.  The update sits between the gather and the return.
            for (std::size_t k = 0; k < m_buckets.size(); ++k) {
                const std::size_t base = list.size();
                std::vector<op> x = collective_ops(m_schedules[k], static_cast<int>(rank), nodes,
                                                   exchange_options(k, {}));
                std::size_t pos = 0;
                while (pos < x.size() && x[pos].kind != op_kind::SEND) ++pos;
                op u;
                u.name = prefix + "update_" + m_buckets[k].name;
                u.kind = op_kind::UPDATE;
                u.unit = op_unit::CPU;
                u.bytes = m_buckets[k].bytes;
                u.address = weight_address(k);
                if (pos == x.size()) {
                    throw std::logic_error("training_builder: the aggregator returns nothing");
                }
                u.after = x[pos].after;
                const std::size_t u_index = first + base + pos;
                for (std::size_t j = pos; j < x.size(); ++j) {
                    // What goes back is weights, not gradients: never marked compressible
                    // (inceptionn.md §VIII-A: WA+C compresses "only one direction").
                    if (x[j].kind == op_kind::SEND) x[j].tos = 0;
                    for (std::size_t& a : x[j].after) {
                        if (a >= u_index) ++a;
                    }
                    x[j].after.push_back(u_index);
                    ops::dep_list& a = x[j].after;
                    std::sort(a.begin(), a.end());
                    a.truncate(
                        static_cast<std::size_t>(std::unique(a.begin(), a.end()) - a.begin()));
                }
                x.insert(x.begin() + static_cast<std::ptrdiff_t>(pos), u);
                for (auto& o : x) push(std::move(o));
            }
            return list;
        }

        // Hybrid parallelism: exchange j's gather has tag mp_tag + j, its reduce-scatter
        // mp_tag + G + j.  A gather sends this worker's block (on a GPU: copied to the host
        // first) and the gathered blocks go to the GPU; a reduce-scatter sends the partial
        // gradients of every block and its block goes back.
        const std::uint32_t mp_tag = tag;
        const std::size_t G = m_mp_exchanges.size();
        const std::uint64_t K = m_options.workers.size();
        auto activation_exchange = [&](std::size_t j, bool gather, std::size_t start) {
            const mp_exchange& e = m_mp_exchanges[j];
            const std::string what =
                (gather ? "ag_" : "rs_") + layers[e.layer].name + (e.after ? "_out" : "_in");
            std::vector<std::size_t> ready = {start};
            if (gpu) {
                op c;
                c.name = prefix + "c2h_" + what;
                c.kind = op_kind::COPY_TO_HOST;
                c.unit = op_unit::COPY;
                c.bytes = gather ? e.block_bytes : K * e.block_bytes;
                c.address = m_exchange_base;
                ready = {push(with_after(c, ready))};
            }
            collective_op_options co;
            co.element_bytes = static_cast<std::uint32_t>(m_model.bytes_per_value());
            co.base_address = m_exchange_base;
            co.tag_base = mp_tag + static_cast<std::uint32_t>(gather ? j : G + j);
            co.sum_unit = op_unit::CPU;
            co.name_prefix = prefix + what + ".";
            co.names = names;
            co.index_base = first + list.size();
            co.start_after = ready;
            const std::size_t base = list.size();
            append_collective_ops(list, gather ? e.gather : e.scatter, static_cast<int>(rank),
                                  nodes, co);
            ready = op_frontier(list, first, base);
            if (gpu) {
                op c;
                c.name = prefix + "c2g_" + what;
                c.kind = op_kind::COPY_TO_GPU;
                c.unit = op_unit::COPY;
                c.bytes = gather ? (K - 1) * e.block_bytes : e.block_bytes;
                c.address = m_exchange_base;
                ready = {push(with_after(c, ready))};
            }
            return ready;
        };
        auto exchange_at = [&](std::size_t l, bool after) -> std::ptrdiff_t {
            for (std::size_t j = 0; j < G; ++j) {
                if (m_mp_exchanges[j].layer == l && m_mp_exchanges[j].after == after) {
                    return static_cast<std::ptrdiff_t>(j);
                }
            }
            return -1;
        };

        std::size_t last_forward = 0;
        for (std::size_t l = 0; l < n; ++l) {
            const auto& L = layers[l];
            op f;
            f.name = prefix + "fwd_" + L.name;
            f.unit = compute_unit;
            f.phase = ops::op_phase::FORWARD;
            if (m_options.forward_ps) {
                f.kind = op_kind::DELAY;
                f.delay_ps = m_forward_delay_ps[l];
            } else {
                f.kind = gpu ? op_kind::GPU_COMPUTE : op_kind::COMPUTE;
                f.flops = static_cast<double>(L.forward_flops);
                // Read the weights, write the output activations (paleo.md eq. 1's I/O).
                f.bytes = static_cast<std::uint64_t>(L.weight_bytes + L.activation_bytes);
                if (!m_layer_costs.empty()) {
                    f.flops = m_layer_costs[l].forward.flops;
                    f.bytes = static_cast<std::uint64_t>(m_layer_costs[l].forward.bytes());
                }
                if (!gpu) f.address = m_activation_base + m_activation_offset[l];
            }
            const std::ptrdiff_t k = m_bucket_of_layer[l];
            std::vector<std::size_t> after =
                k >= 0 ? weights_ready[static_cast<std::size_t>(k)] : std::vector<std::size_t>{};
            if (hybrid() && l >= m_mp_first) {
                const mp_cost& c = m_mp_costs[l - m_mp_first];
                f.flops = c.forward_flops;
                f.bytes = c.forward_bytes;
                const std::ptrdiff_t j = exchange_at(l, false);
                if (j >= 0)
                    after = activation_exchange(static_cast<std::size_t>(j), true, last_forward);
            }
            last_forward = push(with_after(f, after));
            if (hybrid()) {
                const std::ptrdiff_t j = exchange_at(l, true);
                if (j >= 0) {
                    const std::vector<std::size_t> got =
                        activation_exchange(static_cast<std::size_t>(j), true, last_forward);
                    // The layers after it wait for the gathered outputs.
                    op w;
                    w.name = prefix + "gathered_" + L.name;
                    w.kind = op_kind::DELAY;
                    w.unit = compute_unit;
                    w.phase = ops::op_phase::FORWARD;
                    last_forward = push(with_after(w, got));
                }
            }
        }

        std::vector<std::vector<std::size_t>> done(m_buckets.size());
        // The update as one GPU kernel of update's FLOPs and memory passes (ops::work_flops,
        // ops::memory_traffic), after `after`.
        auto gpu_update = [&](std::size_t k, std::vector<std::size_t> after) {
            op u;
            u.name = prefix + "update_" + m_buckets[k].name;
            u.kind = op_kind::UPDATE;
            u.bytes = m_buckets[k].bytes;
            weights_ready[k] = {push(with_after(gpu_update_of(u), std::move(after)))};
        };
        auto emit_update = [&](std::size_t k) {
            std::vector<std::size_t> ready = done[k];
            if (none && gpu) {
                // A lone GPU updates its weights in place, no copies.
                gpu_update(k, done[k]);
                return;
            }
            if (ring && gpu && m_options.update == compute_placement::GPU) {
                // The worker's GPU holds the weights (inceptionn.md §VII-B: "all the
                // computation steps ... are performed on the GPU"): the reduced gradients go
                // to it, and it updates in place.
                op c;
                c.name = prefix + "c2g_" + m_buckets[k].name;
                c.kind = op_kind::COPY_TO_GPU;
                c.unit = op_unit::COPY;
                c.bytes = m_buckets[k].bytes;
                c.address = weight_address(k);
                gpu_update(k, {push(with_after(c, done[k]))});
                return;
            }
            if (ring || none) {
                op u;
                u.name = prefix + "update_" + m_buckets[k].name;
                u.kind = op_kind::UPDATE;
                u.unit = op_unit::CPU;
                u.bytes = m_buckets[k].bytes;
                u.address = weight_address(k);
                ready = {push(with_after(u, done[k]))};
            }
            if (gpu) {
                op c;
                c.name = prefix + "c2g_" + m_buckets[k].name;
                c.kind = op_kind::COPY_TO_GPU;
                c.unit = op_unit::COPY;
                c.bytes = m_buckets[k].bytes;
                c.address = weight_address(k);
                ready = {push(with_after(c, ready))};
            }
            weights_ready[k] = ready;
        };

        // Buckets close in backward order; the first closes at the highest layer.
        std::size_t next_bucket = 0;
        std::vector<std::size_t> pending;
        std::vector<std::size_t> backward_after;  // hybrid: a reduce-scatter's end
        std::vector<std::pair<std::size_t, std::size_t>> slice_updates;  // (layer, backward op)
        std::size_t last_backward = last_forward;
        for (std::size_t l = n; l-- > 0;) {
            const auto& L = layers[l];
            if (hybrid()) {
                const std::ptrdiff_t j = exchange_at(l, true);
                if (j >= 0) {
                    backward_after =
                        activation_exchange(static_cast<std::size_t>(j), false, last_backward);
                }
            }
            op b;
            b.name = prefix + "bwd_" + L.name;
            b.unit = compute_unit;
            b.phase = ops::op_phase::BACKWARD;
            if (m_options.backward_ps) {
                b.kind = op_kind::DELAY;
                b.delay_ps = m_backward_delay_ps[l];
            } else {
                b.kind = gpu ? op_kind::GPU_COMPUTE : op_kind::COMPUTE;
                b.flops = static_cast<double>(L.backward_flops());
                // Read the weights, the activations and the output gradient; write the weight
                // gradient.
                b.bytes = static_cast<std::uint64_t>(L.weight_bytes + L.weight_grad_bytes +
                                                     2 * L.activation_bytes);
                if (!m_layer_costs.empty()) {
                    const models::op_cost c = m_layer_costs[l].backward();
                    b.flops = c.flops;
                    b.bytes = static_cast<std::uint64_t>(c.bytes());
                }
                if (!gpu) b.address = m_activation_base + m_activation_offset[l];
            }
            if (hybrid() && l >= m_mp_first) {
                const mp_cost& c = m_mp_costs[l - m_mp_first];
                b.flops = c.backward_flops;
                b.bytes = c.backward_bytes;
            }
            const std::size_t bi = push(with_after(b, std::move(backward_after)));
            backward_after.clear();
            last_backward = bi;
            if (hybrid() && l >= m_mp_first) {
                const std::ptrdiff_t j = exchange_at(l, false);
                if (j >= 0) {
                    slice_updates.emplace_back(l, bi);
                    backward_after = activation_exchange(static_cast<std::size_t>(j), false, bi);
                }
            }

            std::vector<std::size_t> closing;
            while (next_bucket < m_buckets.size() && m_buckets[next_bucket].close_layer == l) {
                closing.push_back(next_bucket++);
            }
            for (std::size_t k : closing) {
                if (none) {
                    done[k] = {bi};
                    continue;
                }
                std::size_t start = bi;
                if (gpu) {
                    op c;
                    c.name = prefix + "c2h_" + m_buckets[k].name;
                    c.kind = op_kind::COPY_TO_HOST;
                    c.unit = op_unit::COPY;
                    c.bytes = m_buckets[k].bytes;
                    c.address = m_grad_base + m_buckets[k].offset;
                    start = push(with_after(c, {bi}));
                }
                if (fpga) {
                    // smartnic.md Fig. 3b: a non-blocking request to the smart NIC; the update
                    // waits for its completion.
                    op a;
                    a.name = prefix + "ar_" + m_buckets[k].name;
                    a.kind = op_kind::ALLREDUCE;
                    a.unit = op_unit::COMM;
                    a.bytes = m_buckets[k].bytes;
                    a.address = m_grad_base + m_buckets[k].offset;
                    a.tag = tag_of[k];
                    done[k] = {push(with_after(a, {start}))};
                    continue;
                }
                const std::size_t base = list.size();
                // Appended in place: a 1024-rank ring's exchange is 5,000 ops per rank, and a
                // list of their own cost a move of each.
                if (generates_steps(k)) {
                    append_collective_ops(list, rank_steps(k, rank), m_schedules[k].ranks, nodes,
                                          exchange_options(k, {start}));
                } else {
                    append_collective_ops(list, m_schedules[k], static_cast<int>(rank), nodes,
                                          exchange_options(k, {start}));
                }
                bool weights_back = false;
                for (std::size_t j = base; j < list.size(); ++j) {
                    // A worker-aggregator worker receives only the weights (one aggregator
                    // sums); what it sends after that is forwarding them (binomial return):
                    // not gradients, never marked compressible.
                    op& o = list[j];
                    if (!ring && o.kind == op_kind::RECV) weights_back = true;
                    if (weights_back && o.kind == op_kind::SEND) o.tos = 0;
                }
                done[k] = op_frontier(list, first, base);
            }
            // smartnic.md Fig. 3b / T_total: the update of a bucket follows the backward op (of a
            // layer with parameters) after the one that closed it, so the cpu computes that op
            // while the bucket's exchange runs (max(U_{l+1} + B_{l-1}, AR_l)). A layer without
            // parameters (ReLU, pooling) is not "the next backward op" of the formula: the update
            // waits for the next layer that computes weight gradients.
            if (overlap && (L.weight_grad_bytes > 0 || !closing.empty())) {
                for (std::size_t k : pending) emit_update(k);
                pending = closing;
            } else if (overlap) {
                // keep the pending updates for the next layer with parameters
            } else {
                for (std::size_t k : closing) emit_update(k);
            }
        }
        for (std::size_t k : pending) emit_update(k);
        // Hybrid: each worker updates its own slices, no exchange: on the GPU that holds them
        // (a kernel of the update's FLOPs and memory passes), else on the cpu.
        for (const auto& [l, bi] : slice_updates) {
            op u;
            u.name = prefix + "update_" + layers[l].name;
            u.kind = op_kind::UPDATE;
            u.unit = op_unit::CPU;
            u.bytes = m_mp_costs[l - m_mp_first].weight_bytes;
            u.address = m_exchange_base;
            if (gpu) u = gpu_update_of(u);
            push(with_after(u, {bi}));
        }
    }
    return list;
}

}  // namespace trainvp::workloads
