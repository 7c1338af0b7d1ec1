#include "noc/chiplet/chiplet_training.h"

#include <cmath>

#include "noc/chiplet/pe_array_model.h"
#include "noc/network/noc_network.h"
#include "workloads/iteration/gradient_buckets.h"
#include "workloads/models/model_loader.h"

namespace trainvp::noc {

chiplet_training::chiplet_training(const settings& s, std::uint64_t chiplets,
                                   std::uint64_t cycle_ps, const source_loc& where,
                                   const std::string& key)
    : m_settings(s) {
    if (s.batch % chiplets != 0) {
        throw input_error(where, key + ".batch",
                          std::to_string(s.batch) + " samples do not split evenly over " +
                              std::to_string(chiplets) + " chiplets");
    }
    models::model_options o;
    o.batch = static_cast<std::int64_t>(s.batch / chiplets);
    o.origin = where;
    const models::model m =
        models::load_zoo_model(s.workload_model, o, where, key + ".workload_model");
    pe_array_config pc;
    pc.pes = static_cast<int>(s.pes);
    pc.rows = pc.cols = static_cast<int>(s.pe_array);
    pc.frequency_hz = s.pe_clock.hz;
    pc.pe_buffer_bytes = s.pe_buffer.bytes;
    pc.global_buffer_bytes = s.global_buffer.bytes;
    pc.dram_bytes_per_s = s.dram_bandwidth.bytes_per_s;
    pc.vector_flops_per_cycle = s.vector_flops_per_cycle;
    const pe_array_model pe(pc);
    // The compute timeline in ps, turned into NoC cycles (rounded up) where buckets get ready.
    const auto& layers = m.layers();
    std::vector<layer_timing> t;
    std::uint64_t fwd_ps = 0, macs = 0, cycles = 0;
    const double astra_macs_per_cycle =
        static_cast<double>(s.pes * s.pe_array * s.pe_array) * s.astra_utilisation;
    for (const auto& l : layers) {
        t.push_back(pe.time_layer(l, o.batch, m.bytes_per_value()));
        if (s.compute == settings::compute_kind::ASTRA_SIM) {
            // ASTRA-sim 1.0's layer times: the GEMMs at a fixed fraction of the peak, no
            // vector work and no memory stalls.
            for (pass_timing* p : {&t.back().forward, &t.back().backward}) {
                p->compute_cycles = static_cast<std::uint64_t>(
                    std::ceil(static_cast<double>(p->gemm_macs) / astra_macs_per_cycle));
                p->time_ps = pe.cycles_to_ps(p->compute_cycles);
                p->streamed = false;
                p->memory_ps = 0;
            }
        }
        fwd_ps += t.back().forward.time_ps;
        macs += t.back().forward.gemm_macs + t.back().backward.gemm_macs;
        cycles += t.back().forward.compute_cycles + t.back().backward.compute_cycles;
    }
    auto to_cycles = [cycle_ps](std::uint64_t ps) { return (ps + cycle_ps - 1) / cycle_ps; };
    // backward_end[i]: the backward pass of layer i ends (it runs from the last layer down).
    std::vector<std::uint64_t> backward_end(layers.size());
    std::uint64_t now_ps = fwd_ps;
    for (std::size_t i = layers.size(); i-- > 0;) {
        now_ps += t[i].backward.time_ps;
        backward_end[i] = now_ps;
    }
    const bool embeddings = s.allreduce_embeddings;
    const auto grouped = workloads::bucket_gradients(
        layers, s.bucket_size.bytes, [&layers, embeddings](std::size_t i) {
            return embeddings || layers[i].kind != models::layer_kind::EMBEDDING;
        });
    m_layers.resize(layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
        m_layers[i].forward = to_cycles(t[i].forward.time_ps);
        m_layers[i].backward = to_cycles(t[i].backward.time_ps);
    }
    for (std::size_t gi = 0; gi < grouped.size(); ++gi) {
        for (std::size_t l : grouped[gi].layers) m_layers[l].bucket = static_cast<int>(gi);
    }
    for (const auto& g : grouped) {
        gradient_bucket_plan b;
        b.name = g.name;
        b.bytes = g.bytes;
        b.ready = to_cycles(backward_end[g.close_layer]);
        m_buckets.push_back(b);
    }
    m_compute_end = to_cycles(now_ps);
    m_forward_ns = static_cast<double>(fwd_ps) / 1000.0;
    const double peak = static_cast<double>(s.pes * s.pe_array * s.pe_array);
    m_pe_utilisation =
        cycles > 0 ? static_cast<double>(macs) / (static_cast<double>(cycles) * peak) : 1.0;
}

chiplet_training::~chiplet_training() = default;

void chiplet_training::start(noc_network& net, training_traffic::collective_maker make) {
    if (m_settings.pipeline == settings::pipeline_kind::LAYER_WISE) {
        m_pipelined = std::make_unique<layer_pipeline_traffic>(
            m_layers, m_buckets, static_cast<int>(m_settings.iterations),
            m_settings.lifo ? layer_pipeline_traffic::policy::LIFO
                            : layer_pipeline_traffic::policy::FIFO,
            std::move(make));
        m_pipelined->attach(net);
        net.set_source(m_pipelined.get());
        return;
    }
    m_iteration = std::make_unique<training_traffic>(m_buckets, m_compute_end, std::move(make));
    m_iteration->attach(net);
    net.set_source(m_iteration.get());
}

bool chiplet_training::done() const {
    return m_pipelined ? m_pipelined->done() : m_iteration->done();
}

std::string chiplet_training::pending() const {
    return m_pipelined ? m_pipelined->pending() : m_iteration->pending();
}

std::uint64_t chiplet_training::run_end() const {
    return m_pipelined ? m_pipelined->run_end() : m_iteration->iteration_end();
}

std::uint64_t chiplet_training::iteration_cycles() const {
    return m_pipelined ? m_pipelined->period() : m_iteration->iteration_end();
}

std::uint64_t chiplet_training::compute_cycles() const {
    return m_pipelined ? m_pipelined->compute_cycles() : m_iteration->compute_end();
}

std::uint64_t chiplet_training::communication_cycles() const {
    return m_pipelined ? m_pipelined->communication_cycles() : m_iteration->communication_cycles();
}

int chiplet_training::iterations() const { return m_pipelined ? m_pipelined->iterations() : 1; }

}  // namespace trainvp::noc
