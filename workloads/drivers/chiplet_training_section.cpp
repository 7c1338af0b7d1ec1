#include "workloads/drivers/chiplet_training_section.h"

#include <memory>

#include "core/did_you_mean.h"
#include "core/error.h"
#include "noc/chiplet/chiplet_training.h"
#include "workloads/drivers/chiplet_training_sink.h"
#include "workloads/drivers/section_registry.h"

namespace trainvp::drivers {

void chiplet_training_section::declare(section_decl<chiplet_training_section>& d) {
    using S = chiplet_training_section;
    d.describe(
        "Data-parallel training on a chiplet package (aries.md §V-B, Fig. 10-11): a zoo model "
        "per chiplet, timed on its PE arrays, gradient buckets all-reduced on the interposer "
        "NoC `noc` with its `collective` (which must be set) as the backward pass produces "
        "them. The block's stats iteration_time, compute_time, ... report the iteration.");
    d.required("noc", &S::m_noc,
               "The interposer NoC block the package is (a noc.interposer's path): its size x "
               "size chiplets each train a replica, its cycle times the iteration");
    d.param("workload_model", &S::m_workload_model, "",
            "Zoo model (workloads/models/zoo: resnet50, vgg16, dlrm, transformer, ...) trained "
            "data-parallel on the package, one replica per chiplet (aries.md §II-A, §V-B): the "
            "PE arrays time each layer's forward and backward pass, gradient buckets are "
            "all-reduced with the block's `collective` as the backward pass produces them. "
            "Empty: none");
    d.param("batch", &S::m_batch, "64",
            "Global mini-batch of the training iteration, split evenly over the size x size "
            "chiplets (aries.md gives none; 64 is one sample per chiplet on 8x8)")
        .range("1", "2^20");
    d.param("bucket_size", &S::m_bucket_size, "25MiB",
            "Gradient bucket: layers' gradients are grouped, last layer first, until a bucket "
            "holds at least this much, and each bucket is one all-reduce (PyTorch DDP's "
            "default bucket_cap_mb = 25, Li et al., VLDB 2020)")
        .range("4B", "16GiB");
    d.param("allreduce_embeddings", &S::m_allreduce_embeddings, "true",
            "All-reduce the gradients of embedding tables with the rest. false keeps them "
            "local, as DLRM trains its embeddings model-parallel and only its MLPs "
            "data-parallel (Naumov et al., arXiv:1906.00091, 2019, §IV); the all-to-all of "
            "model-parallel embeddings is not modelled");
    d.param("pes", &S::m_pes, "16", "PEs per chiplet (aries.md Table II: # of PEs 16)")
        .range("1", "1024");
    d.param("pe_array", &S::m_pe_array, "32",
            "Edge of a PE's square multiplier array (aries.md Table II: multiplier array 32x32)")
        .range("1", "1024");
    d.param("pe_buffer", &S::m_pe_buffer, "64KiB",
            "Buffer of one PE (aries.md Table II: buffer size 64 KB); reported, a tile's "
            "operands (2 x 32x32 x 4 B) always fit")
        .range("1B", "1GiB");
    d.param("global_buffer", &S::m_global_buffer, "4MiB",
            "Chiplet global buffer (aries.md Table II: global buffer 4 MB); a pass whose "
            "operands do not fit streams them from DRAM")
        .range("1B", "16GiB");
    d.param("pe_clock", &S::m_pe_clock, "1GHz",
            "PE array clock (aries.md Table II: clock rate 1 GHz)")
        .range("1MHz", "10GHz");
    d.param("dram_bandwidth", &S::m_dram_bandwidth, "256GB/s",
            "DRAM bandwidth of one chiplet for operands that overflow the global buffer. "
            "ASSUMPTION: aries.md gives none; 256 GB/s is one HBM2 stack (JEDEC JESD235: "
            "1024-bit interface at 2 Gb/s per pin)")
        .range("1MB/s", "100TB/s");
    d.param("vector_flops_per_cycle", &S::m_vector_flops_per_cycle, "32",
            "FLOPs per cycle per PE for work that is not a GEMM (activation, normalisation, "
            "pooling, softmax, sums). ASSUMPTION: one array edge (32) wide, as TPU-like "
            "designs apply activations in a unit as wide as the array's output (Jouppi et al., "
            "ISCA 2017, §2); aries.md does not say")
        .range("1", "65536");
    d.choice("pipeline", &S::m_pipeline,
             {{"backward", pipeline::BACKWARD}, {"layer_wise", pipeline::LAYER_WISE}}, "backward",
             "How communication overlaps compute. backward: one iteration, each bucket "
             "all-reduced while the rest of the backward pass runs, iteration = max(compute, "
             "last all-reduce). layer_wise: ASTRA-sim 1.0's data-parallel loop (the framework "
             "aries.md §V extended), `iterations` iterations in which a layer's next forward "
             "pass waits for its all-reduce, so communication also overlaps the next forward "
             "pass; iteration_time is the steady-state period between the last two "
             "iterations' ends and energy is per iteration");
    d.param("iterations", &S::m_iterations, "2",
            "layer_wise only: iterations simulated (the second sees the first's communication, "
            "which is the steady state since every iteration is alike)")
        .range("1", "100");
    d.param("lifo", &S::m_lifo, "true",
            "layer_wise only: serve ready all-reduces last produced first (ASTRA-sim 1.0's "
            "`scheduling-policy: LIFO`, astra-sim/astra-sim inputs/system/sample_torus_sys.txt: "
            "the lowest layers, which the next forward pass needs first); false: in order");
    d.choice("compute", &S::m_compute,
             {{"pe_array", compute::PE_ARRAY}, {"astra_sim", compute::ASTRA_SIM}}, "pe_array",
             "How a layer is timed. pe_array: the PE-array model (tiles, vector path, DRAM "
             "streaming; noc/chiplet/pe_array_model). astra_sim: as ASTRA-sim 1.0's workload "
             "files time layers, the GEMMs' multiply-adds at `astra_utilisation` of the arrays' "
             "peak, with no vector work and no memory stalls");
    d.param("astra_utilisation", &S::m_astra_utilisation, "68.36%",
            "compute astra_sim only: fraction of the PE arrays' peak (pes x pe_array^2 "
            "multiply-adds per cycle) the GEMMs achieve. Derived from ASTRA-sim 1.0's "
            "inputs/workload/Resnet50_DataParallel.txt (a copy in yleintel/astra-sim): its 54 "
            "layers' GEMMs (conv1 M = 12544 = 112^2, i.e. one image per NPU) total 4,089,184,256 "
            "multiply-adds per pass, 3 passes (forward, input and weight gradient) in "
            "380,038 + 377,463 + 337,813 = 1,095,314 cycles: 12,267,552,768 / 1,095,314 = "
            "11,200 per cycle = 68.36 % of aries.md Table II's 16 x 32 x 32 = 16,384")
        .range("0.01", "1");
}

std::optional<int> chiplet_training_section::hand_out(const config_node& t,
                                                      const hand_out_context& ctx) {
    const std::string base = "workload." + ctx.section.name;
    read_params(*this, t, ctx);

    // The package: a block that runs chiplet training (noc.interposer).
    const source_loc noc_loc = t.find("noc")->loc();
    const std::optional<block_facts> b = ctx.platform.block(m_noc);
    if (!b) {
        throw input_error(noc_loc, base + ".noc",
                          "no block '" + m_noc + "'" + did_you_mean(m_noc, ctx.platform.paths()));
    }
    if (b->chiplet_training == nullptr) {
        throw input_error(noc_loc, base + ".noc",
                          "block '" + m_noc + "' (" + b->type +
                              ") is no chiplet package: chiplet training runs on a "
                              "noc.interposer");
    }
    if (m_workload_model.empty()) return std::nullopt;

    noc::chiplet_training::settings s;
    s.workload_model = m_workload_model;
    s.batch = m_batch;
    s.bucket_size = m_bucket_size;
    s.allreduce_embeddings = m_allreduce_embeddings;
    s.pes = m_pes;
    s.pe_array = m_pe_array;
    s.pe_buffer = m_pe_buffer;
    s.global_buffer = m_global_buffer;
    s.pe_clock = m_pe_clock;
    s.dram_bandwidth = m_dram_bandwidth;
    s.vector_flops_per_cycle = m_vector_flops_per_cycle;
    using K = noc::chiplet_training::settings;
    s.pipeline = m_pipeline == pipeline::LAYER_WISE ? K::pipeline_kind::LAYER_WISE
                                                    : K::pipeline_kind::BACKWARD;
    s.iterations = m_iterations;
    s.lifo = m_lifo;
    s.compute =
        m_compute == compute::ASTRA_SIM ? K::compute_kind::ASTRA_SIM : K::compute_kind::PE_ARRAY;
    s.astra_utilisation = m_astra_utilisation;
    const chiplet_training_sink::package p = b->chiplet_training->chiplet_package();
    auto plan = std::make_unique<noc::chiplet_training>(s, p.chiplets, p.cycle_ps, t.loc(), base);
    b->chiplet_training->accept_training(std::move(plan), t.loc(), base);
    // One iteration, which the block's stats report; the run's iteration count stays 1.
    return std::nullopt;
}

TRAINVP_REGISTER_WORKLOAD(chiplet_training_section, "chiplet_training");

}  // namespace trainvp::drivers
