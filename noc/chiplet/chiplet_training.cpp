#include "noc/chiplet/chiplet_training.h"

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

}  // namespace trainvp::noc
