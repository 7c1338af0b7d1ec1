#include "workloads/drivers/functional_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "core/did_you_mean.h"
#include "core/error.h"
#include "core/param_decl.h"
#include "workloads/ops/op_list.h"
#include "workloads/ops/op_source.h"

namespace trainvp::drivers {

namespace {

param_decl gradient_decl(const std::string& name, param_kind k,
                         std::vector<std::string> choices = {}) {
    param_decl d;
    d.name = name;
    d.kind = k;
    d.choices = std::move(choices);
    return d;
}

// The distribution's keys and their errors are its own (they depend on `distribution`), so the
// map is read here rather than declared.
workloads::gradient_spec parse_gradient(const config_node& g, const std::string& key,
                                        std::uint64_t default_seed) {
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
        *dv, gradient_decl("distribution", param_kind::ENUM, kinds), key + ".distribution"));
    s.seed = default_seed;
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
            param_parse::to_string(*pv, gradient_decl("path", param_kind::STRING), key + ".path");
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
        *p->second = param_parse::to_real(*v, gradient_decl(p->first, param_kind::REAL),
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
            param_parse::to_int(*v, gradient_decl("seed", param_kind::INT), key + ".seed");
        if (seed < 0) throw input_error(v->loc(), key + ".seed", "a seed is >= 0");
        s.seed = static_cast<std::uint64_t>(seed);
    }
    return s;
}

}  // namespace

workloads::gradient_spec read_gradient(const config_node& gradient, const std::string& key,
                                       std::uint64_t seed) {
    return parse_gradient(gradient, key, seed);
}

functional_check::functional_check(const config_node& gradient, const std::string& key,
                                   std::uint64_t seed)
    : m_loc(gradient.loc()), m_key(key), m_spec(parse_gradient(gradient, key, seed)) {}

// The allowance per value:
//   float rounding: the sum takes N - 1 float32 additions, each rounding by at most half an
//     ulp of a partial sum, <= 2^-24 x sum_r |g_r|;
//   codecs: every send of the value through a lossy NIC adds at most that NIC's bound
//     (nic_capabilities::functional_error_bound, e.g. INCEPTIONN's B(k)) to the partial sum it
//     carries, and an all-reduce counts each send's partial sum at most once in a result, so
//     the sum of the bounds over every send that carries the value, on every rank, bounds the
//     codecs' error (sound; for a ring it is twice the tight N x B(k), tests check the tight
//     one).
void functional_check::hand_out(const workloads::training_builder& b,
                                const workloads::training_options& o, std::int64_t bytes_per_value,
                                const std::string& model_name, const std::vector<host>& workers,
                                const host* aggregator, const source_loc& where,
                                const std::string& section_key) const {
    const std::uint64_t bytes = b.gradient_bytes();
    if (bytes_per_value != 4) {
        throw input_error(m_loc, m_key,
                          "functional mode carries float32 gradients; model " + model_name +
                              " has " + std::to_string(bytes_per_value) + " B per value");
    }
    if (o.iterations != 1) {
        throw input_error(m_loc, m_key,
                          "functional mode checks one all-reduce of the given gradients: "
                          "iterations must be 1, got " +
                              std::to_string(o.iterations));
    }
    if (o.algorithm == workloads::k_fpga_ring) {
        throw input_error(m_loc, m_key,
                          "fpga_ring sums on the smart NICs, not in host memory: give the "
                          "fpga.allreduce blocks `functional: true` instead of a gradient");
    }
    const std::size_t values = bytes / 4;
    std::vector<double> exact(values, 0.0), magnitude(values, 0.0);
    for (std::size_t r = 0; r < workers.size(); ++r) {
        std::vector<float> v;
        try {
            v = workloads::generate_gradient(m_spec, r, workers.size(), values);
        } catch (const std::exception& e) {
            throw input_error(m_loc, m_key, e.what());
        }
        for (std::size_t i = 0; i < values; ++i) {
            exact[i] += v[i];
            magnitude[i] += std::fabs(v[i]);
        }
        std::vector<std::uint8_t> raw(bytes);
        std::memcpy(raw.data(), v.data(), bytes);
        workers[r].sink->accept_data(b.gradient_address(), std::move(raw), m_loc, m_key);
    }
    if (aggregator != nullptr) {
        aggregator->sink->accept_data(b.gradient_address(), std::vector<std::uint8_t>(bytes), m_loc,
                                      m_key);
    }
    // The codecs' part, accumulated as a difference array over the values each send carries.
    std::vector<double> codec_step(values + 1, 0.0);
    auto count_sends = [&](const host& h, const std::vector<ops::op>& list) {
        for (const ops::op& x : list) {
            if (x.kind != ops::op_kind::SEND || !h.nic) continue;
            const double bound = h.nic->functional_error_bound(x.tos);
            if (bound <= 0.0 || x.address < b.gradient_address()) continue;
            const std::uint64_t first = (x.address - b.gradient_address()) / 4;
            const std::uint64_t last = std::min<std::uint64_t>(first + x.bytes / 4, values);
            if (first >= last) continue;
            codec_step[first] += bound;
            codec_step[last] -= bound;
        }
    };
    // The whole list at once (one iteration), as it is; an op a host cannot run is reported at
    // the training section, naming the op.
    auto hand = [&](const host& h, std::vector<ops::op> list) {
        count_sends(h, list);
        h.sink->accept_source(std::make_unique<ops::list_source>(ops::op_list(std::move(list))),
                              where, section_key);
    };
    for (std::size_t r = 0; r < workers.size(); ++r) hand(workers[r], b.worker_ops(r));
    if (aggregator != nullptr) hand(*aggregator, b.aggregator_ops());
    std::vector<double> allowance(values);
    double codec = 0.0;
    const double additions = static_cast<double>(workers.size() - 1);
    for (std::size_t i = 0; i < values; ++i) {
        codec += codec_step[i];
        allowance[i] = codec + additions * std::ldexp(magnitude[i], -24);
    }
    for (const host& h : workers) h.sink->expect_data(b.gradient_address(), exact, allowance);
    if (aggregator != nullptr) {
        aggregator->sink->expect_data(b.gradient_address(), exact, allowance);
    }
}

}  // namespace trainvp::drivers
