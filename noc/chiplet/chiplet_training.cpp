#include "noc/chiplet/chiplet_training.h"

#include "noc/chiplet/pe_array_model.h"
#include "noc/network/noc_network.h"
#include "workloads/iteration/gradient_buckets.h"
#include "workloads/models/model_loader.h"

namespace trainvp::noc {

void chiplet_training::settings::declare(param_list<settings>& d) {
    d.param("workload_model", &settings::workload_model, "",
            "Zoo model (workloads/models/zoo: resnet50, vgg16, dlrm, transformer, ...) trained "
            "data-parallel on the package, one replica per chiplet (aries.md §II-A, §V-B): the "
            "PE arrays time each layer's forward and backward pass, gradient buckets are "
            "all-reduced with `collective` as the backward pass produces them. Empty: none");
    d.param("batch", &settings::batch, "64",
            "Global mini-batch of the training iteration, split evenly over the size x size "
            "chiplets (aries.md gives none; 64 is one sample per chiplet on 8x8)")
        .range("1", "2^20");
    d.param("bucket_size", &settings::bucket_size, "25MiB",
            "Gradient bucket: layers' gradients are grouped, last layer first, until a bucket "
            "holds at least this much, and each bucket is one all-reduce (PyTorch DDP's "
            "default bucket_cap_mb = 25, Li et al., VLDB 2020)")
        .range("4B", "16GiB");
    d.param("allreduce_embeddings", &settings::allreduce_embeddings, "true",
            "All-reduce the gradients of embedding tables with the rest. false keeps them "
            "local, as DLRM trains its embeddings model-parallel and only its MLPs "
            "data-parallel (Naumov et al., arXiv:1906.00091, 2019, §IV); the all-to-all of "
            "model-parallel embeddings is not modelled");
    d.param("pes", &settings::pes, "16", "PEs per chiplet (aries.md Table II: # of PEs 16)")
        .range("1", "1024");
    d.param("pe_array", &settings::pe_array, "32",
            "Edge of a PE's square multiplier array (aries.md Table II: multiplier array 32x32)")
        .range("1", "1024");
    d.param("pe_buffer", &settings::pe_buffer, "64KiB",
            "Buffer of one PE (aries.md Table II: buffer size 64 KB); reported, a tile's "
            "operands (2 x 32x32 x 4 B) always fit")
        .range("1B", "1GiB");
    d.param("global_buffer", &settings::global_buffer, "4MiB",
            "Chiplet global buffer (aries.md Table II: global buffer 4 MB); a pass whose "
            "operands do not fit streams them from DRAM")
        .range("1B", "16GiB");
    d.param("pe_frequency", &settings::pe_frequency, "1GHz",
            "PE array clock (aries.md Table II: clock rate 1 GHz)")
        .range("1MHz", "10GHz");
    d.param("dram_bandwidth", &settings::dram_bandwidth, "256GB/s",
            "DRAM bandwidth of one chiplet for operands that overflow the global buffer. "
            "ASSUMPTION: aries.md gives none; 256 GB/s is one HBM2 stack (JEDEC JESD235: "
            "1024-bit interface at 2 Gb/s per pin)")
        .range("1MB/s", "100TB/s");
    d.param("vector_flops_per_cycle", &settings::vector_flops_per_cycle, "32",
            "FLOPs per cycle per PE for work that is not a GEMM (activation, normalisation, "
            "pooling, softmax, sums). ASSUMPTION: one array edge (32) wide, as TPU-like "
            "designs apply activations in a unit as wide as the array's output (Jouppi et al., "
            "ISCA 2017, §2); aries.md does not say")
        .range("1", "65536");
}

chiplet_training::chiplet_training(const settings& s, std::uint64_t chiplets,
                                   std::uint64_t cycle_ps, const source_loc& where,
                                   const std::string& key) {
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
    pc.frequency_hz = s.pe_frequency.hz;
    pc.pe_buffer_bytes = s.pe_buffer.bytes;
    pc.global_buffer_bytes = s.global_buffer.bytes;
    pc.dram_bytes_per_s = s.dram_bandwidth.bytes_per_s;
    pc.vector_flops_per_cycle = s.vector_flops_per_cycle;
    const pe_array_model pe(pc);
    // The compute timeline in ps, turned into NoC cycles (rounded up) where buckets get ready.
    const auto& layers = m.layers();
    std::vector<layer_timing> t;
    std::uint64_t fwd_ps = 0, macs = 0, cycles = 0;
    for (const auto& l : layers) {
        t.push_back(pe.time_layer(l, o.batch, m.bytes_per_value()));
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
    m_iteration = std::make_unique<training_traffic>(m_buckets, m_compute_end, std::move(make));
    m_iteration->attach(net);
    net.set_source(m_iteration.get());
}

}  // namespace trainvp::noc
