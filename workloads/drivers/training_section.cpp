#include "workloads/drivers/training_section.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "core/did_you_mean.h"
#include "core/error.h"
#include "core/tos.h"
#include "workloads/drivers/functional_check.h"
#include "workloads/drivers/host_roster.h"
#include "workloads/drivers/section_registry.h"
#include "workloads/iteration/iteration_source.h"
#include "workloads/models/conv_heuristic_registry.h"
#include "workloads/models/model_loader.h"
#include "workloads/ops/op_list.h"
#include "workloads/ops/op_source.h"

namespace trainvp::drivers {

using workloads::compute_placement;
using workloads::exchange_policy;

void training_section::declare(section_decl<training_section>& d) {
    d.describe(
        "A data-parallel training iteration of a zoo model, generated as every host's op list. "
        "Forward, backward, the gradient exchange and the update for each worker (and an "
        "aggregator), workloads/iteration/README.md; workers and the aggregator are blocks that "
        "run ops and have a node_id (host.cpu), and a rank's node id is that param as "
        "configured. sharding, tensor_parallel and pipeline_stages generate sharded, "
        "tensor-parallel or 1F1B pipeline iterations instead (workloads/iteration/"
        "parallel_training_builder.h).");
    d.required("model", &training_section::m_model,
               "A zoo model (workloads/models/zoo/<name>.yaml), or a model file's path (relative "
               "to this config)");
    d.param("model_parameters", &training_section::m_model_parameters, "",
            "The model file's parameters, a map of parameter: integer (e.g. {fc_layers: 3} for "
            "hdc); not set: the file's defaults");
    d.required("batch", &training_section::m_batch, "Samples per node per iteration, > 0");
    d.required("workers", &training_section::m_workers,
               "The workers, in ring order: a block path, a pattern with [*] (the matching "
               "blocks in config order, leaving out the aggregator), or a list of them");
    d.param("aggregator", &training_section::m_aggregator, "",
            "worker_aggregator only (and required there): the aggregator's block path");
    // fpga_ring: the exchange is offloaded to the nodes' smart NICs (fpga.allreduce).
    // The host collectives of the collectives registry (read when a config is, so that a
    // plugin's count), then fpga_ring and none.
    d.choice_of("algorithm", &training_section::m_algorithm, workloads::exchange_algorithm_names,
                "ring",
                "The gradient exchange (fpga_ring: the smart NICs run it; none: no exchange, each "
                "worker trains alone)");
    d.choice("policy", &training_section::m_policy,
             {{"after_backward", exchange_policy::AFTER_BACKWARD},
              {"overlap_layers", exchange_policy::OVERLAP_LAYERS}},
             "after_backward",
             "When gradients are exchanged: after_backward (inceptionn Alg. 1: all at once) or "
             "overlap_layers (smartnic Fig. 3b: each bucket's exchange overlaps backward)");
    d.param("bucket", &training_section::m_bucket, "0B",
            "overlap_layers only: gradient bytes per exchange (0B: one bucket per layer with "
            "parameters)");
    d.choice("compute", &training_section::m_compute,
             {{"cpu", compute_placement::CPU}, {"gpu", compute_placement::GPU}}, "cpu",
             "Where compute runs: cpu (compute ops on the host) or gpu (host.accel; adds the "
             "gradient copy to host and the weight copy to the GPU)");
    d.choice("update", &training_section::m_update,
             {{"host", compute_placement::CPU}, {"gpu", compute_placement::GPU}}, "host",
             "compute: gpu only, workers that keep their own weights (not a worker_aggregator): "
             "where they update them: host (the update on the cpu unit, then the weights to the "
             "GPU) or gpu (the reduced gradients to the GPU, the update a kernel there)");
    d.param("forward_time", &training_section::m_forward_time, "",
            "Measured forward time per iteration: the phase becomes delay ops split over the "
            "layers by FLOPs; not set: from the model's FLOPs and the host's peak");
    d.param("backward_time", &training_section::m_backward_time, "",
            "Measured backward time per iteration, as forward_time");
    d.choice("compute_model", &training_section::m_layer_costs,
             {{"layer_totals", false}, {"layer_ops", true}}, "layer_totals",
             "What a layer's compute ops carry: layer_totals (the zoo's FLOPs; forward bytes = "
             "weights + output, backward = weights + weight gradient + 2 x output) or layer_ops "
             "(paleo.md §3: forward, backward-data and backward-filter costed apart, "
             "convolutions by the algorithm conv_algorithm picks, bytes = reads + writes; "
             "workloads/models/layer_cost_model.h)");
    d.choice_of(
        "conv_algorithm", &training_section::m_conv_algorithm,
        [] { return models::conv_heuristic_registry::global().names(); }, "cudnn_v4_like",
        "compute_model layer_ops: how a convolution's algorithm is chosen per layer "
        "and operation (workloads/models/conv_heuristic_registry.cpp)");
    d.param("workspace_limit", &training_section::m_workspace_limit, "4GiB",
            "compute_model layer_ops: scratch memory an algorithm may use (paleo.md §4.1: "
            "4 GB); an FFT whose spectra exceed it falls back to tiles, then GEMM");
    d.choice("dilation_zeros", &training_section::m_dilation_zeros,
             {{"skipped", models::dilation_zeros::SKIPPED},
              {"computed", models::dilation_zeros::COMPUTED}},
             "skipped",
             "compute_model layer_ops: the zeros a stride puts between the values of a "
             "strided convolution's output gradient (its backward-data; a strided transposed "
             "convolution's forward pass): skipped, or computed by a stride-1 GEMM over the "
             "dilated tensor (as TalwalkarLab/paleo's flops_profiler.py counts them)");
    d.param("model_parallel_from", &training_section::m_model_parallel_from, "",
            "Hybrid parallelism (paleo.md §4.2.3, Krizhevsky's one weird trick): the layer from "
            "which on the model runs model-parallel, each worker computing 1/N of every conv/fc "
            "layer's outputs for all N x batch samples, the activations all-gathered and their "
            "gradients reduce-scattered; the layers before it stay data-parallel. Not set: all "
            "data-parallel");
    d.param("iterations", &training_section::m_iterations, "1",
            "Training iterations in the run, in [1, 1000000]");
    d.param("tos", &training_section::m_tos, "",
            "IP ToS of the exchange's gradient messages, 0..255 in decimal or hex (0x28); not "
            "set: 0");
    d.choice("broadcast", &training_section::m_broadcast,
             {{"direct", collectives::aggregator_return::TREE},
              {"binomial", collectives::aggregator_return::BINOMIAL}},
             "direct",
             "worker_aggregator only: how the weights get back: direct (the aggregator sends to "
             "each worker) or binomial (through the workers, as MPI_Bcast)");
    d.param("compression", &training_section::m_compression, "false",
            "INCEPTIONN's MPI_collective_communication_comp: ToS 0x28 on the gradient messages, "
            "which every worker's and the aggregator's NIC must compress (nic.inceptionn)");
    d.param("offload", &training_section::m_offload, "false",
            "Hand each bucket's all-reduce to the network whole: one allreduce op per bucket to "
            "the host's `nic`, whose block runs `algorithm` itself (fabric.flow with that "
            "`collective`, issue 26's flow level) instead of the hosts' send, receive and sum "
            "ops. Timing only (no functional gradient)");
    d.param("group", &training_section::m_group, "0",
            "Grid collectives (ring_2d, concentrated_multi_tree): ranks per row, the first "
            "level's ring (0: the whole-number square root of the workers); with offload the "
            "fabric's `group` applies instead")
        .range("0", "1048576");
    d.param("levels", &training_section::m_levels, "2",
            "hierarchical_ring: levels of equal size workers^(1/levels); with offload the "
            "fabric's `levels` applies instead")
        .range("1", "8");
    d.param("gradient", &training_section::m_gradient, "",
            "Functional mode: each worker's starting gradient, a map {distribution: normal, "
            "mean, stddev} (or uniform with low, high; laplace with mean, scale; each with an "
            "optional seed, default the run's) or {distribution: file, path} (float32); every "
            "rank's result is checked at the end of the run");
    d.choice("sharding", &training_section::m_sharding,
             {{"none", workloads::sharding_mode::NONE},
              {"gradients", workloads::sharding_mode::GRADIENTS},
              {"full", workloads::sharding_mode::FULL}},
             "none",
             "Sharded data parallelism (ZeRO, Rajbhandari et al. SC'20): none (every rank holds "
             "and updates all parameters), gradients (ZeRO-2: each bucket's gradients "
             "reduce-scattered, each rank updates its 1/N shard, then the bucket's parameters "
             "all-gathered) or full (ZeRO-3/FSDP: each layer's parameters all-gathered before "
             "its forward and again before its backward, gradients reduce-scattered, 1/N "
             "updated); ring collectives, cpu compute");
    d.param("tensor_parallel", &training_section::m_tensor_parallel, "1",
            "Tensor parallelism (Megatron-LM): groups of this many consecutive workers split "
            "every layer with parameters (its FLOPs, bytes and parameters / T), its output "
            "all-reduced in the group after its forward and its input gradient after its "
            "backward; gradients all-reduced over the workers/T ranks of the same shard. 1: off")
        .range("1", "1048576");
    d.param("pipeline_stages", &training_section::m_pipeline_stages, "1",
            "Pipeline parallelism: the layers cut into this many contiguous stages of balanced "
            "forward + backward FLOPs (the smallest largest stage), stage s on rank s of each "
            "group of consecutive workers, run in the 1F1B order (PipeDream-Flush); "
            "each stage's gradients all-reduced over its workers/S replicas. 1: off")
        .range("1", "1048576");
    d.param("micro_batches", &training_section::m_micro_batches, "1",
            "pipeline_stages only: micro-batches per iteration, dividing batch")
        .range("1", "1048576");
}

std::optional<int> training_section::hand_out(const config_node& t, const hand_out_context& ctx) {
    const std::string base = "workload." + ctx.section.name;
    auto key_of = [&](const std::string& name) { return base + "." + name; };
    read_params(*this, t, ctx);

    // The model, at the per-node batch.
    const config_node& mv = *t.find("model");
    if (m_batch <= 0) {
        throw input_error(t.find("batch")->loc(), key_of("batch"),
                          "the batch per node must be > 0, got " + std::to_string(m_batch));
    }
    models::model_options mo;
    mo.batch = m_batch;
    mo.origin = mv.loc();
    // The model file's parameters (hdc's fc_layers, mlp's layers and width), as integers.
    if (const config_node* pv = t.find("model_parameters")) {
        if (!pv->is_map()) {
            throw input_error(
                pv->loc(), key_of("model_parameters"),
                std::string("expected a map of parameter: integer, got ") + pv->kind_name());
        }
        for (const auto& e : pv->entries()) {
            param_decl d;
            d.name = e.key;
            d.kind = param_kind::INT;
            mo.parameters[e.key] =
                param_parse::to_int(e.value, d, key_of("model_parameters." + e.key));
        }
        mo.origin = pv->loc();
        mo.parameters_key = key_of("model_parameters");
    }
    const models::model model = models::load_zoo_model(m_model, mo, mv.loc(), key_of("model"));

    workloads::training_options o;
    o.algorithm = m_algorithm;
    if (const config_node* v = t.find("broadcast")) {
        if (!workloads::needs_aggregator(o.algorithm)) {
            throw input_error(v->loc(), key_of("broadcast"),
                              "only algorithm worker_aggregator returns weights by a broadcast");
        }
    }
    o.wa_return = m_broadcast;
    o.policy = m_policy;
    if (const config_node* v = t.find("bucket")) {
        if (o.policy != exchange_policy::OVERLAP_LAYERS) {
            throw input_error(v->loc(), key_of("bucket"),
                              "buckets apply to policy overlap_layers only (after_backward "
                              "exchanges all gradients at once)");
        }
    }
    o.bucket_bytes = m_bucket.bytes;
    o.compute = m_compute;
    o.update = m_update;
    if (t.find("forward_time") != nullptr) o.forward_ps = m_forward_time.ps;
    if (t.find("backward_time") != nullptr) o.backward_ps = m_backward_time.ps;
    for (const char* k : {"conv_algorithm", "workspace_limit", "dilation_zeros"}) {
        if (const config_node* v = t.find(k); v != nullptr && !m_layer_costs) {
            throw input_error(v->loc(), key_of(k), "applies to compute_model layer_ops only");
        }
    }
    if (m_layer_costs) {
        models::layer_cost_options lo;
        lo.heuristic = m_conv_algorithm;
        lo.workspace_limit = static_cast<double>(m_workspace_limit.bytes);
        lo.zeros = m_dilation_zeros;
        o.layer_costs = lo;
    }
    if (const config_node* v = t.find("model_parallel_from")) {
        std::vector<std::string> names;
        for (std::size_t i = 0; i < model.layers().size(); ++i) {
            names.push_back(model.layers()[i].name);
            if (model.layers()[i].name == m_model_parallel_from) o.model_parallel_from = i;
        }
        if (!o.model_parallel_from) {
            throw input_error(v->loc(), key_of("model_parallel_from"),
                              "no layer '" + m_model_parallel_from + "' in model " + model.name() +
                                  did_you_mean(m_model_parallel_from, names));
        }
        if (t.find("gradient") != nullptr) {
            throw input_error(v->loc(), key_of("model_parallel_from"),
                              "hybrid parallelism runs in timing mode only (no gradient:)");
        }
    }
    // Modern parallelism: which scheme, and what it does not combine with.
    const config_node* scheme = nullptr;
    std::string scheme_key;
    const bool sharded = m_sharding != workloads::sharding_mode::NONE;
    for (const auto& [k, on] : {std::pair<const char*, bool>{"sharding", sharded},
                                {"tensor_parallel", m_tensor_parallel > 1},
                                {"pipeline_stages", m_pipeline_stages > 1}}) {
        if (!on) continue;
        if (scheme != nullptr) {
            throw input_error(t.find(k)->loc(), key_of(k),
                              "does not combine with " + scheme_key +
                                  " (yet): set one of sharding, tensor_parallel and "
                                  "pipeline_stages");
        }
        scheme = t.find(k);
        scheme_key = k;
    }
    if (const config_node* v = t.find("micro_batches"); v != nullptr && m_pipeline_stages <= 1) {
        throw input_error(v->loc(), key_of("micro_batches"), "applies to pipeline_stages > 1 only");
    }
    if (scheme != nullptr) {
        const std::string with = " does not combine with " + scheme_key;
        if (const config_node* v = t.find("algorithm"); v != nullptr && m_algorithm != "ring") {
            throw input_error(v->loc(), key_of("algorithm"),
                              "'" + m_algorithm + "'" + with +
                                  ", whose collectives are rings (ring_reduce_scatter, "
                                  "ring_allgather, ring): use ring");
        }
        if (m_compute != compute_placement::CPU) {
            throw input_error(t.find("compute")->loc(), key_of("compute"),
                              "gpu" + with + " (its ops run on the host cpu)");
        }
        if (m_layer_costs) {
            throw input_error(t.find("compute_model")->loc(), key_of("compute_model"),
                              "layer_ops" + with + " (its ops carry the zoo's layer totals)");
        }
        for (const char* k : {"model_parallel_from", "offload", "gradient", "update"}) {
            if (const config_node* v = t.find(k)) {
                throw input_error(v->loc(), key_of(k), std::string(k) + with);
            }
        }
        if (!sharded && m_policy != exchange_policy::AFTER_BACKWARD) {
            throw input_error(t.find("policy")->loc(), key_of("policy"),
                              "overlap_layers" + with +
                                  ", which all-reduces its gradients after backward "
                                  "(buckets apply to sharding)");
        }
    }
    if (m_iterations < 1 || m_iterations > 1000000) {
        throw input_error(
            t.find("iterations")->loc(), key_of("iterations"),
            "iterations must be in [1, 1000000], got " + std::to_string(m_iterations));
    }
    o.iterations = static_cast<int>(m_iterations);
    o.group = static_cast<int>(m_group);
    o.levels = static_cast<int>(m_levels);
    const config_node* tos = t.find("tos");
    if (tos != nullptr) o.tos = parse_tos(*tos, key_of("tos"));
    // `compression: true` is the paper's MPI_collective_communication_comp (inceptionn.md
    // §VI-B): the exchange's sockets get the reserved ToS 0x28, which the NIC compresses.
    const config_node* compression = t.find("compression");
    if (m_compression) {
        if (tos != nullptr && o.tos != k_tos_compressible) {
            throw input_error(
                compression->loc(), key_of("compression"),
                "compression marks the exchange with ToS 0x28, but tos is " + tos->scalar());
        }
        o.tos = k_tos_compressible;
    }

    // The hosts: each must run ops and have a node id.
    const host_roster roster(ctx.platform);
    std::optional<host> aggregator;
    if (const config_node* v = t.find("aggregator")) {
        if (!workloads::needs_aggregator(o.algorithm)) {
            throw input_error(v->loc(), key_of("aggregator"),
                              "only algorithm worker_aggregator has an aggregator");
        }
        aggregator = roster.find(m_aggregator, v->loc(), key_of("aggregator"));
        o.aggregator = aggregator->node_id;
    } else if (workloads::needs_aggregator(o.algorithm)) {
        throw input_error(t.loc(), key_of("aggregator"),
                          "missing; algorithm worker_aggregator needs the aggregator's host");
    }

    // Workers: paths or patterns with [*], in the order given.
    std::vector<std::pair<config_node, std::string>> items;
    if (m_workers.is_seq()) {
        for (std::size_t i = 0; i < m_workers.items().size(); ++i) {
            items.emplace_back(m_workers.items()[i],
                               key_of("workers") + "[" + std::to_string(i) + "]");
        }
    } else {
        items.emplace_back(m_workers, key_of("workers"));
    }
    std::vector<host> workers;
    for (const auto& [node, key] : items) {
        param_decl d;
        d.name = "workers";
        d.kind = param_kind::STRING;
        const std::string text = param_parse::to_string(node, d, key);
        for (host& h :
             roster.resolve(text, node.loc(), key, aggregator ? aggregator->path : std::string())) {
            workers.push_back(std::move(h));
        }
    }
    for (std::size_t i = 0; i < workers.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (workers[j].node_id == workers[i].node_id) {
                throw input_error(workers[i].loc, key_of("workers"),
                                  workers[i].path + " has node_id " +
                                      std::to_string(workers[i].node_id) + ", as has " +
                                      workers[j].path + ": every rank needs its own node id");
            }
        }
        if (aggregator && aggregator->node_id == workers[i].node_id) {
            throw input_error(aggregator->loc, key_of("aggregator"),
                              aggregator->path + " has the node_id of worker " + workers[i].path);
        }
        o.workers.push_back(workers[i].node_id);
    }
    if (workloads::is_allreduce(o.algorithm) && workers.size() < 2) {
        throw input_error(
            m_workers.loc(), key_of("workers"),
            "an all-reduce needs at least 2 workers, got " + std::to_string(workers.size()));
    }
    std::vector<const host*> all;
    for (const host& h : workers) all.push_back(&h);
    if (aggregator) all.push_back(&*aggregator);

    // Frames marked compressible must meet a NIC that compresses them: a plain NIC would send
    // them uncompressed, and the run would silently measure the baseline.
    if (o.tos == k_tos_compressible) {
        const config_node* why = compression != nullptr ? compression : tos;
        const std::string why_key = compression != nullptr ? "compression" : "tos";
        for (const host* h : all) {
            if (!h->nic || h->nic->compresses_tos(o.tos)) continue;
            throw input_error(why->loc(), key_of(why_key),
                              "compressible traffic (ToS 0x28) from " + h->path + " goes to " +
                                  h->nic->path + ", a " + h->nic->type +
                                  " that does not compress it (use nic.inceptionn)");
        }
    }

    // An offloaded all-reduce needs a network that runs that algorithm itself.
    if (m_offload) {
        const config_node* v = t.find("offload");
        if (!workloads::is_allreduce(o.algorithm)) {
            throw input_error(v->loc(), key_of("offload"),
                              "'" + o.algorithm + "' is not an all-reduce the network can run");
        }
        if (t.find("gradient") != nullptr) {
            throw input_error(v->loc(), key_of("offload"),
                              "an offloaded exchange carries no values: drop `gradient`");
        }
        for (const char* k : {"group", "levels"}) {
            if (const config_node* g = t.find(k)) {
                throw input_error(g->loc(), key_of(k),
                                  std::string("the network runs an offloaded collective: set `") +
                                      k + "` on the fabric (fabric.flow), not here");
            }
        }
        for (const host* h : all) {
            if (h->nic && h->nic->runs_collective(o.algorithm)) continue;
            throw input_error(
                v->loc(), key_of("offload"),
                h->path + " sends through " +
                    (h->nic ? h->nic->path + ", a " + h->nic->type : std::string("nothing")) +
                    " that does not run '" + o.algorithm +
                    "' itself (use fabric.flow with collective: " + o.algorithm + ")");
        }
        for (std::size_t r = 0; r < o.workers.size(); ++r) {
            if (o.workers[r] == r) continue;
            throw input_error(v->loc(), key_of("offload"),
                              "the network runs rank i on its endpoint i: the workers must be "
                              "nodes 0.." +
                                  std::to_string(o.workers.size() - 1) + " in order (rank " +
                                  std::to_string(r) + " is node " + std::to_string(o.workers[r]) +
                                  ")");
        }
        o.offload = true;
    }

    if (scheme != nullptr) {
        workloads::parallel_options po;
        po.workers = o.workers;
        po.sharding = m_sharding;
        po.bucket_bytes = m_bucket.bytes;
        po.per_layer_buckets = o.policy == exchange_policy::OVERLAP_LAYERS && m_bucket.bytes == 0;
        po.tensor_parallel = static_cast<int>(m_tensor_parallel);
        po.pipeline_stages = static_cast<int>(m_pipeline_stages);
        po.micro_batches = static_cast<int>(m_micro_batches);
        po.forward_ps = o.forward_ps;
        po.backward_ps = o.backward_ps;
        po.iterations = o.iterations;
        po.tos = o.tos;
        std::optional<workloads::parallel_training_builder> pb;
        try {
            pb.emplace(model, po);
        } catch (const std::invalid_argument& e) {
            // Reported at the option the message starts with (micro_batches, ...).
            const std::string msg = e.what();
            for (const char* k : {"micro_batches", "tensor_parallel", "pipeline_stages"}) {
                const std::string key = k;
                if (msg.rfind(key + " ", 0) == 0 && t.find(k) != nullptr) {
                    throw input_error(t.find(k)->loc(), key_of(k), msg);
                }
            }
            throw input_error(scheme->loc(), key_of(scheme_key), msg);
        }
        for (std::size_t r = 0; r < workers.size(); ++r) {
            workers[r].sink->accept_source(
                std::make_unique<ops::list_source>(ops::op_list(pb->worker_ops(r))), t.loc(), base);
        }
        return o.iterations;
    }

    // The checks above cover what the builder refuses; anything left is still an input error.
    std::optional<workloads::training_builder> built;
    try {
        built.emplace(model, o);
    } catch (const std::invalid_argument& e) {
        throw input_error(t.loc(), base, e.what());
    }
    // Shared with the hosts' iteration sources, which build iterations as the run goes.
    const auto shared = std::make_shared<const workloads::training_builder>(std::move(*built));

    if (const config_node* g = t.find("gradient")) {
        const functional_check check(*g, key_of("gradient"), ctx.seed);
        check.hand_out(*shared, o, model.bytes_per_value(), m_model, workers,
                       aggregator ? &*aggregator : nullptr, t.loc(), base);
        return o.iterations;
    }
    // One iteration at a time: a host holds the iterations it is running, not the whole run
    // (ip/host/README.md, "Soak").  An op a host cannot run is reported at the training
    // section, naming the op.
    auto hand_iterations = [&](const host& h, std::size_t rank, bool agg) {
        h.sink->accept_source(
            std::make_unique<workloads::iteration_source>(shared, rank, agg, ctx.op_names), t.loc(),
            base);
    };
    for (std::size_t r = 0; r < workers.size(); ++r) hand_iterations(workers[r], r, false);
    if (aggregator) hand_iterations(*aggregator, workers.size(), true);
    return o.iterations;
}

TRAINVP_REGISTER_WORKLOAD(training_section, "training");

}  // namespace trainvp::drivers
