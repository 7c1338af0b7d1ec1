#include "platform/training_workload.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "core/did_you_mean.h"
#include "ip/ethernet/packet_ext.h"
#include "core/param_decl.h"
#include "core/params.h"
#include "platform/platform_loader.h"
#include "kit/workload_sink.h"
#include "workloads/iteration/gradient_generator.h"
#include "workloads/iteration/iteration_source.h"
#include "workloads/iteration/training_builder.h"
#include "workloads/models/model_loader.h"

namespace trainvp {

namespace {

param_decl training_decl(const std::string& name, param_kind k,
                         std::vector<std::string> choices = {}) {
    param_decl d;
    d.name = name;
    d.kind = k;
    d.choices = std::move(choices);
    return d;
}

// A host of the training section: its path, where the config named it, its node id.
struct training_host {
    std::string path;
    source_loc loc;
    std::uint32_t node_id = 0;
};

// `gradient: {distribution: normal, mean: 0, stddev: 0.01, seed: 1}` (or uniform with low/high,
// laplace with mean/scale, file with path).  The seed defaults to the run's.
workloads::gradient_spec parse_gradient(const config_node& g, const std::string& key,
                                        const platform_desc& desc) {
    using workloads::gradient_distribution;
    if (!g.is_map()) {
        throw input_error(g.loc(), key,
                          std::string("expected a map (distribution: normal, mean, stddev, "
                                      "seed; or distribution: file, path), got ") +
                              g.kind_name());
    }
    const config_node* dv = g.find("distribution");
    if (dv == nullptr) {
        throw input_error(g.loc(), key + ".distribution",
                          "missing; one of normal, uniform, laplace, file");
    }
    const std::vector<std::string> kinds = {"normal", "uniform", "laplace", "file"};
    workloads::gradient_spec s;
    s.distribution = static_cast<gradient_distribution>(param_parse::to_choice(
        *dv, training_decl("distribution", param_kind::ENUM, kinds), key + ".distribution"));
    s.seed = desc.settings.seed;
    std::vector<std::string> allowed = {"distribution", "seed"};
    std::pair<const char*, double*> a{nullptr, &s.a}, b{nullptr, &s.b};
    switch (s.distribution) {
        case gradient_distribution::NORMAL:
            a.first = "mean", b.first = "stddev";
            break;
        case gradient_distribution::UNIFORM:
            a.first = "low", b.first = "high";
            break;
        case gradient_distribution::LAPLACE:
            a.first = "mean", b.first = "scale";
            break;
        case gradient_distribution::FILE:
            break;
    }
    if (s.distribution == gradient_distribution::FILE) {
        allowed = {"distribution", "path"};
    } else {
        allowed.push_back(a.first);
        allowed.push_back(b.first);
    }
    for (const auto& e : g.entries()) {
        if (std::find(allowed.begin(), allowed.end(), e.key) == allowed.end()) {
            throw input_error(e.key_loc, key + "." + e.key,
                              "unknown key for distribution " + dv->scalar() +
                                  did_you_mean(e.key, allowed) + "; expected " + join(allowed));
        }
    }
    if (s.distribution == gradient_distribution::FILE) {
        const config_node* pv = g.find("path");
        if (pv == nullptr) throw input_error(g.loc(), key + ".path", "missing: the float32 file");
        s.file =
            param_parse::to_string(*pv, training_decl("path", param_kind::STRING), key + ".path");
        // Relative to the config file, like includes.
        if (!s.file.empty() && s.file[0] != '/' && !pv->loc().file.empty()) {
            const std::string& f = pv->loc().file;
            const std::size_t slash = f.rfind('/');
            if (slash != std::string::npos) s.file = f.substr(0, slash + 1) + s.file;
        }
        return s;
    }
    for (auto* p : {&a, &b}) {
        const config_node* v = g.find(p->first);
        if (v == nullptr) {
            throw input_error(g.loc(), key + "." + p->first,
                              std::string("missing; distribution ") + dv->scalar() + " needs " +
                                  a.first + " and " + b.first);
        }
        *p->second = param_parse::to_real(*v, training_decl(p->first, param_kind::REAL),
                                          key + "." + p->first);
    }
    if (s.distribution == gradient_distribution::UNIFORM ? !(s.b > s.a) : !(s.b > 0)) {
        throw input_error(g.find(b.first)->loc(), key + "." + b.first,
                          s.distribution == gradient_distribution::UNIFORM
                              ? "high must exceed low"
                              : std::string(b.first) + " must be > 0");
    }
    if (const config_node* v = g.find("seed")) {
        const std::int64_t seed =
            param_parse::to_int(*v, training_decl("seed", param_kind::INT), key + ".seed");
        if (seed < 0) throw input_error(v->loc(), key + ".seed", "a seed is >= 0");
        s.seed = static_cast<std::uint64_t>(seed);
    }
    return s;
}

}  // namespace

// `workload.training`: a data-parallel training iteration generated by
// workloads::training_builder and handed to each host as its op list (workload_sink::
// accept_ops: no round trip through YAML, which cost ~150 B of parse tree per op field).
int hand_out_training(const config_node& t, const platform_desc& desc,
                      const std::map<std::string, ip_module*>& by_path, bool op_names) {
    using workloads::compute_placement;
    using workloads::exchange_algorithm;
    using workloads::exchange_policy;
    const std::string base = "workload.training";
    if (!t.is_map()) {
        throw input_error(
            t.loc(), base,
            std::string("expected a map (model, batch, workers, ...), got ") + t.kind_name());
    }
    const std::vector<std::string> keys = {
        "model",  "model_parameters", "batch",       "workers",      "aggregator",    "algorithm",
        "policy", "bucket",           "compute",     "forward_time", "backward_time", "iterations",
        "tos",    "broadcast",        "compression", "gradient"};
    for (const auto& e : t.entries()) {
        if (std::find(keys.begin(), keys.end(), e.key) == keys.end()) {
            throw input_error(e.key_loc, base + "." + e.key,
                              "unknown training key" + did_you_mean(e.key, keys) +
                                  "; expected one of " + join(keys));
        }
    }
    auto need = [&](const std::string& name) -> const config_node& {
        const config_node* v = t.find(name);
        if (v == nullptr) {
            throw input_error(t.loc(), base + "." + name,
                              "missing; a training workload needs model, batch and workers");
        }
        return *v;
    };
    auto key_of = [&](const std::string& name) { return base + "." + name; };

    // The model, at the per-node batch.
    const config_node& mv = need("model");
    const std::string model_name =
        param_parse::to_string(mv, training_decl("model", param_kind::STRING), key_of("model"));
    const config_node& bv = need("batch");
    const std::int64_t batch =
        param_parse::to_int(bv, training_decl("batch", param_kind::INT), key_of("batch"));
    if (batch <= 0) {
        throw input_error(bv.loc(), key_of("batch"),
                          "the batch per node must be > 0, got " + std::to_string(batch));
    }
    const std::vector<std::string> zoo = models::zoo_model_names();
    if (std::find(zoo.begin(), zoo.end(), model_name) == zoo.end()) {
        throw input_error(mv.loc(), key_of("model"),
                          "no model '" + model_name + "' in the zoo" +
                              did_you_mean(model_name, zoo) + "; the zoo has " + join(zoo));
    }
    models::model_options mo;
    mo.batch = batch;
    mo.origin = mv.loc();
    // The model file's parameters (hdc's fc_layers, mlp's layers and width), as integers.
    if (const config_node* pv = t.find("model_parameters")) {
        if (!pv->is_map()) {
            throw input_error(
                pv->loc(), key_of("model_parameters"),
                std::string("expected a map of parameter: integer, got ") + pv->kind_name());
        }
        for (const auto& e : pv->entries()) {
            mo.parameters[e.key] =
                param_parse::to_int(e.value, training_decl(e.key, param_kind::INT),
                                    key_of("model_parameters." + e.key));
        }
        mo.origin = pv->loc();
        mo.parameters_key = key_of("model_parameters");
    }
    const models::model model = models::load_model(models::find_zoo_model(model_name), mo);

    workloads::training_options o;
    if (const config_node* v = t.find("algorithm")) {
        // fpga_ring: the exchange is offloaded to the nodes' smart NICs (fpga.allreduce).
        static const exchange_algorithm algorithms[] = {exchange_algorithm::RING,
                                                        exchange_algorithm::WORKER_AGGREGATOR,
                                                        exchange_algorithm::BINOMIAL_TREE,
                                                        exchange_algorithm::HALVING_DOUBLING,
                                                        exchange_algorithm::DOUBLE_BINARY_TREE,
                                                        exchange_algorithm::FPGA_RING,
                                                        exchange_algorithm::NONE};
        o.algorithm = algorithms[param_parse::to_choice(
            *v,
            training_decl("algorithm", param_kind::ENUM,
                          {"ring", "worker_aggregator", "binomial_tree", "halving_doubling",
                           "double_binary_tree", "fpga_ring", "none"}),
            key_of("algorithm"))];
    }
    if (const config_node* v = t.find("broadcast")) {
        if (o.algorithm != exchange_algorithm::WORKER_AGGREGATOR) {
            throw input_error(v->loc(), key_of("broadcast"),
                              "only algorithm worker_aggregator returns weights by a broadcast");
        }
        o.wa_return = param_parse::to_choice(
                          *v, training_decl("broadcast", param_kind::ENUM, {"direct", "binomial"}),
                          key_of("broadcast")) == 0
                          ? collectives::aggregator_return::TREE
                          : collectives::aggregator_return::BINOMIAL;
    }
    if (const config_node* v = t.find("policy")) {
        o.policy =
            param_parse::to_choice(
                *v, training_decl("policy", param_kind::ENUM, {"after_backward", "overlap_layers"}),
                key_of("policy")) == 0
                ? exchange_policy::AFTER_BACKWARD
                : exchange_policy::OVERLAP_LAYERS;
    }
    if (const config_node* v = t.find("bucket")) {
        if (o.policy != exchange_policy::OVERLAP_LAYERS) {
            throw input_error(v->loc(), key_of("bucket"),
                              "buckets apply to policy overlap_layers only (after_backward "
                              "exchanges all gradients at once)");
        }
        o.bucket_bytes =
            param_parse::to_size(*v, training_decl("bucket", param_kind::SIZE), key_of("bucket"))
                .bytes;
    }
    if (const config_node* v = t.find("compute")) {
        o.compute =
            param_parse::to_choice(*v, training_decl("compute", param_kind::ENUM, {"cpu", "gpu"}),
                                   key_of("compute")) == 0
                ? compute_placement::CPU
                : compute_placement::GPU;
    }
    for (const char* name : {"forward_time", "backward_time"}) {
        if (const config_node* v = t.find(name)) {
            const std::uint64_t ps =
                param_parse::to_time(*v, training_decl(name, param_kind::TIME), key_of(name)).ps;
            (std::string(name) == "forward_time" ? o.forward_ps : o.backward_ps) = ps;
        }
    }
    if (const config_node* v = t.find("iterations")) {
        const std::int64_t n = param_parse::to_int(*v, training_decl("iterations", param_kind::INT),
                                                   key_of("iterations"));
        if (n < 1 || n > 1000000) {
            throw input_error(v->loc(), key_of("iterations"),
                              "iterations must be in [1, 1000000], got " + std::to_string(n));
        }
        o.iterations = static_cast<int>(n);
    }
    if (const config_node* v = t.find("tos")) {
        // A ToS is written in hex as often as in decimal (0x28, inceptionn.md §V).
        const std::string text =
            param_parse::to_string(*v, training_decl("tos", param_kind::STRING), key_of("tos"));
        std::size_t used = 0;
        unsigned long x = 0;
        try {
            x = std::stoul(text, &used, 0);
        } catch (const std::exception&) {
            used = 0;
        }
        if (text.empty() || used != text.size() || x > 255) {
            throw input_error(v->loc(), key_of("tos"),
                              "'" + text + "' is not a ToS byte (0..255, e.g. 0x28)");
        }
        o.tos = static_cast<std::uint8_t>(x);
    }
    // `compression: true` is the paper's MPI_collective_communication_comp (inceptionn.md
    // §VI-B): the exchange's sockets get the reserved ToS 0x28, which the NIC compresses.
    const config_node* compression = t.find("compression");
    if (compression != nullptr &&
        param_parse::to_bool(*compression, training_decl("compression", param_kind::BOOL),
                             key_of("compression"))) {
        if (t.find("tos") != nullptr && o.tos != k_tos_compressible) {
            throw input_error(compression->loc(), key_of("compression"),
                              "compression marks the exchange with ToS 0x28, but tos is " +
                                  t.find("tos")->scalar());
        }
        o.tos = k_tos_compressible;
    }

    // The hosts: each must run ops and have a node id.
    std::vector<std::string> names;
    for (const auto& kv : by_path) names.push_back(kv.first);
    auto host = [&](const std::string& path, const source_loc& loc,
                    const std::string& key) -> training_host {
        auto it = by_path.find(path);
        if (it == by_path.end()) {
            throw input_error(loc, key, "no block '" + path + "'" + did_you_mean(path, names));
        }
        const ip_module& m = *it->second;
        const param_decl* decl = m.type().find_param("node_id");
        if (dynamic_cast<const workload_sink*>(&m) == nullptr || decl == nullptr) {
            throw input_error(loc, key,
                              "block '" + path + "' (" + m.type().name +
                                  ") is not a host: training runs on blocks that run ops and "
                                  "have a node_id (host.cpu)");
        }
        // The node id is the host's node_id param as configured (else its default): the id
        // its NIC answers to, so sends and receives of the generated ops reach it.
        config_node value = default_value(*decl);
        for (const instance_desc& inst : desc.instances) {
            if (inst.path != path) continue;
            for (const param_value& p : inst.params) {
                if (p.name == "node_id") value = p.value;
            }
        }
        const std::int64_t id = param_parse::to_int(value, *decl, path + ".node_id");
        return training_host{path, loc, static_cast<std::uint32_t>(id)};
    };

    std::optional<training_host> aggregator;
    if (const config_node* v = t.find("aggregator")) {
        if (o.algorithm != exchange_algorithm::WORKER_AGGREGATOR) {
            throw input_error(v->loc(), key_of("aggregator"),
                              "only algorithm worker_aggregator has an aggregator");
        }
        aggregator =
            host(param_parse::to_string(*v, training_decl("aggregator", param_kind::STRING),
                                        key_of("aggregator")),
                 v->loc(), key_of("aggregator"));
        o.aggregator = aggregator->node_id;
    } else if (o.algorithm == exchange_algorithm::WORKER_AGGREGATOR) {
        throw input_error(t.loc(), key_of("aggregator"),
                          "missing; algorithm worker_aggregator needs the aggregator's host");
    }

    // Workers: paths or patterns with [*], in the order given; a pattern takes the matching
    // blocks in config order, leaving out the aggregator (so node[*].host can name the
    // workers of a cluster whose last node aggregates).
    const config_node& wv = need("workers");
    std::vector<std::pair<config_node, std::string>> items;
    if (wv.is_seq()) {
        for (std::size_t i = 0; i < wv.items().size(); ++i) {
            items.emplace_back(wv.items()[i], key_of("workers") + "[" + std::to_string(i) + "]");
        }
    } else {
        items.emplace_back(wv, key_of("workers"));
    }
    std::vector<training_host> workers;
    for (const auto& [node, key] : items) {
        const std::string text =
            param_parse::to_string(node, training_decl("workers", param_kind::STRING), key);
        if (text.find("[*]") == std::string::npos) {
            workers.push_back(host(text, node.loc(), key));
            continue;
        }
        std::size_t matched = 0;
        for (const instance_desc& inst : desc.instances) {
            if (!path_matches(text, inst.path)) continue;
            if (aggregator && inst.path == aggregator->path) continue;
            workers.push_back(host(inst.path, node.loc(), key));
            ++matched;
        }
        if (matched == 0) {
            throw input_error(node.loc(), key, "no block matches '" + text + "'");
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
            wv.loc(), key_of("workers"),
            "an all-reduce needs at least 2 workers, got " + std::to_string(workers.size()));
    }

    // The NIC a host sends through (what its `nic` socket is connected to), or null.
    auto nic_of = [&](const training_host& h) -> const ip_module* {
        for (const connection_desc& c : desc.connections) {
            if (c.from != h.path + ".nic") continue;
            auto it = by_path.find(c.to.substr(0, c.to.rfind('.')));
            return it == by_path.end() ? nullptr : it->second;
        }
        return nullptr;
    };
    std::vector<training_host> all = workers;
    if (aggregator) all.push_back(*aggregator);

    // Frames marked compressible must meet a NIC that compresses them: a plain NIC would send
    // them uncompressed, and the run would silently measure the baseline.
    if (o.tos == k_tos_compressible) {
        const config_node* why = compression != nullptr ? compression : t.find("tos");
        const std::string why_key = compression != nullptr ? "compression" : "tos";
        for (const training_host& h : all) {
            const ip_module* nic = nic_of(h);
            if (nic == nullptr || nic->compresses_tos(o.tos)) continue;
            throw input_error(why->loc(), key_of(why_key),
                              "compressible traffic (ToS 0x28) from " + h.path + " goes to " +
                                  nic->path() + ", a " + nic->type().name +
                                  " that does not compress it (use nic.inceptionn)");
        }
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
    const workloads::training_builder& b = *shared;

    // Generated lists go to the hosts as they are; an op a host cannot run is reported at the
    // training section, naming the op.
    auto hand = [&](const training_host& h, std::vector<ops::op> list) {
        dynamic_cast<workload_sink*>(by_path.at(h.path))
            ->accept_source(std::make_unique<ops::list_source>(ops::op_list(std::move(list))),
                            t.loc(), base);
    };
    const config_node* g = t.find("gradient");
    if (g == nullptr) {
        // One iteration at a time: a host holds the iterations it is running, not the whole
        // run (ip/host/README.md, "Soak").
        auto hand_iterations = [&](const training_host& h, std::size_t rank, bool agg) {
            dynamic_cast<workload_sink*>(by_path.at(h.path))
                ->accept_source(
                    std::make_unique<workloads::iteration_source>(shared, rank, agg, op_names),
                    t.loc(), base);
        };
        for (std::size_t r = 0; r < workers.size(); ++r) hand_iterations(workers[r], r, false);
        if (aggregator) hand_iterations(*aggregator, workers.size(), true);
        return o.iterations;
    }

    // Functional mode: every worker starts from its own gradient, an aggregator from zeros.
    // Every rank must end with the exact sum of the workers' gradients, within an allowance
    // per value checked by each host's end-of-run audit:
    //   float rounding: the sum takes N - 1 float32 additions, each rounding by at most half an
    //     ulp of a partial sum, <= 2^-24 x sum_r |g_r|;
    //   codecs: every send of the value through a lossy NIC adds at most that NIC's bound
    //     (ip_module::functional_error_bound, e.g. INCEPTIONN's B(k)) to the partial sum it
    //     carries, and an all-reduce counts each send's partial sum at most once in a result,
    //     so the sum of the bounds over every send that carries the value, on every rank,
    //     bounds the codecs' error (sound; for a ring it is twice the tight N x B(k), tests
    //     check the tight one).
    const workloads::gradient_spec spec = parse_gradient(*g, key_of("gradient"), desc);
    const std::uint64_t bytes = b.gradient_bytes();
    if (model.bytes_per_value() != 4) {
        throw input_error(g->loc(), key_of("gradient"),
                          "functional mode carries float32 gradients; model " + model_name +
                              " has " + std::to_string(model.bytes_per_value()) + " B per value");
    }
    if (o.iterations != 1) {
        throw input_error(g->loc(), key_of("gradient"),
                          "functional mode checks one all-reduce of the given gradients: "
                          "iterations must be 1, got " +
                              std::to_string(o.iterations));
    }
    if (o.algorithm == workloads::exchange_algorithm::FPGA_RING) {
        throw input_error(g->loc(), key_of("gradient"),
                          "fpga_ring sums on the smart NICs, not in host memory: give the "
                          "fpga.allreduce blocks `functional: true` instead of a gradient");
    }
    const std::size_t values = bytes / 4;
    std::vector<double> exact(values, 0.0), magnitude(values, 0.0);
    for (std::size_t r = 0; r < workers.size(); ++r) {
        std::vector<float> v;
        try {
            v = workloads::generate_gradient(spec, r, workers.size(), values);
        } catch (const std::exception& e) {
            throw input_error(g->loc(), key_of("gradient"), e.what());
        }
        for (std::size_t i = 0; i < values; ++i) {
            exact[i] += v[i];
            magnitude[i] += std::fabs(v[i]);
        }
        std::vector<std::uint8_t> raw(bytes);
        std::memcpy(raw.data(), v.data(), bytes);
        dynamic_cast<workload_sink*>(by_path.at(workers[r].path))
            ->accept_data(b.gradient_address(), std::move(raw), g->loc(), key_of("gradient"));
    }
    if (aggregator) {
        dynamic_cast<workload_sink*>(by_path.at(aggregator->path))
            ->accept_data(b.gradient_address(), std::vector<std::uint8_t>(bytes), g->loc(),
                          key_of("gradient"));
    }
    // The codecs' part, accumulated as a difference array over the values each send carries.
    std::vector<double> codec_step(values + 1, 0.0);
    auto count_sends = [&](const training_host& h, const std::vector<ops::op>& list) {
        const ip_module* nic = nic_of(h);
        for (const ops::op& x : list) {
            if (x.kind != ops::op_kind::SEND || nic == nullptr) continue;
            const double bound = nic->functional_error_bound(x.tos);
            if (bound <= 0.0 || x.address < b.gradient_address()) continue;
            const std::uint64_t first = (x.address - b.gradient_address()) / 4;
            const std::uint64_t last = std::min<std::uint64_t>(first + x.bytes / 4, values);
            if (first >= last) continue;
            codec_step[first] += bound;
            codec_step[last] -= bound;
        }
    };
    for (std::size_t r = 0; r < workers.size(); ++r) {
        std::vector<ops::op> list = b.worker_ops(r);
        count_sends(workers[r], list);
        hand(workers[r], std::move(list));
    }
    if (aggregator) {
        std::vector<ops::op> list = b.aggregator_ops();
        count_sends(*aggregator, list);
        hand(*aggregator, std::move(list));
    }
    std::vector<double> allowance(values);
    double codec = 0.0;
    const double additions = static_cast<double>(workers.size() - 1);
    for (std::size_t i = 0; i < values; ++i) {
        codec += codec_step[i];
        allowance[i] = codec + additions * std::ldexp(magnitude[i], -24);
    }
    for (const training_host& h : all) {
        dynamic_cast<workload_sink*>(by_path.at(h.path))
            ->expect_data(b.gradient_address(), exact, allowance);
    }
    return o.iterations;
}

}  // namespace trainvp
