#include "noc/interposer/noc_interposer.h"

#include <cmath>
#include <sstream>

#include "noc/chiplet/pe_array_model.h"
#include "noc/collective/aries_ring_plan.h"
#include "noc/collective/aries_tree_plan.h"
#include "noc/topology/dependency_check.h"
#include "kit/registry.h"
#include "kit/sim_time.h"
#include "workloads/collectives/collectives.h"
#include "workloads/models/model_loader.h"

namespace trainvp::noc {

void noc_interposer::declare(type_decl<noc_interposer>& d) {
    d.describe(
        "Chiplet interposer NoC (aries.md §III): k x k routers (5 ports: local, +x, -x, +y, -y; "
        "a flattened butterfly has 2k-1), each built from input units with VCs and credits, "
        "table routing filled before the run, VC and round-robin switch allocation and a "
        "crossbar, in a `pipeline_stages`-stage pipeline; links with latency and bandwidth. "
        "Flit-level and cycle-exact, event-driven (only routers holding flits are visited). "
        "Zero-load packet latency in cycles: H * (pipeline_stages + L) + pipeline_stages + "
        "packet_size - 1 for H router-to-router hops over links of L cycles. A routing set-up "
        "with a cyclic channel dependency is rejected. With injection_rate > 0 it runs uniform "
        "random traffic: warm-up, measurement window, then drains the measured packets.");
    d.choice("topology", &noc_interposer::m_kind,
             {{"mesh", topology_kind::MESH},
              {"torus", topology_kind::TORUS},
              {"flattened_butterfly", topology_kind::FLATTENED_BUTTERFLY},
              {"aries", topology_kind::ARIES}},
             "mesh",
             "Interposer topology: the baselines of aries.md §V (mesh, torus, flattened "
             "butterfly [35]) or ARIES (mesh + segmented row/column bypass links, §III-B)");
    d.param("size", &noc_interposer::m_size, "4",
            "Routers (chiplets) per row and column, k (aries.md evaluates 4x4 and 8x8, §V)")
        .range("2", "16");
    d.choice("routing", &noc_interposer::m_routing, {{"xy", routing::XY}, {"yx", routing::YX}},
             "xy",
             "Dimension-order routing table filled before the run (x first or y first; Dally & "
             "Towles 2004, ch. 8)");
    d.param("dateline", &noc_interposer::m_dateline, "true",
            "Torus only: split the VCs into two classes and move a packet to class 1 after a wrap "
            "link (the dateline scheme, Dally & Towles 2004, ch. 14). Without it the ring's "
            "channel cycle is a deadlock and the routing set-up is rejected");
    d.param("bypass", &noc_interposer::m_bypass, "",
            "ARIES only: bypass segments with their mux settings (aries.md §III-B-1/2), "
            "separated by ';'. Each is 'DIM LINE.TRACK FROM-TO FWD BWD': DIM x (a row) or y (a "
            "column), LINE the row/column index, TRACK 0 or 1 (two bidirectional bypass links "
            "per row and column), FROM-TO the routers' positions along it (the segment switches "
            "closed), FWD 'OUT>IN' the output port at FROM and input port at TO for the FROM->TO "
            "direction (ports +x -x +y -y), BWD the same for TO->FROM, '-' for an unused "
            "direction. Example: 'x 0.0 0-3 +x>+x -x>-x'");
    d.param("vcs", &noc_interposer::m_vcs, "4",
            "Virtual channels per input port (aries.md §V: four virtual channels)")
        .range("1", "16");
    d.param("vc_buffers", &noc_interposer::m_buffers, "32",
            "Flit buffers per virtual channel (aries.md §V: 32 buffers per VC)")
        .range("1", "1024");
    d.param("pipeline_stages", &noc_interposer::m_stages, "2",
            "Router pipeline stages before the link (aries.md §V: two stages, look-ahead "
            "routing and speculative switch allocation)")
        .range("1", "8");
    d.param("frequency", &noc_interposer::m_frequency, "1GHz",
            "Router clock (aries.md Table II: clock rate 1 GHz); must give a whole number of "
            "picoseconds per cycle")
        .range("1MHz", "10GHz");
    d.param("link_latency", &noc_interposer::m_link_latency, "10ns",
            "Latency of a one-pitch inter-chiplet link (aries.md §V: inter-chiplet hop latency "
            "10 ns); a link spanning n pitches takes n times as long; rounded up to cycles")
        .range("1ps", "1ms");
    d.param("link_bandwidth", &noc_interposer::m_link_bandwidth, "68GB/s",
            "Bandwidth of one link direction (aries.md §V: 68 GB/s); a flit occupies a link "
            "ceil(flit_size / (link_bandwidth / frequency)) cycles")
        .range("1MB/s", "100TB/s");
    d.param("flit_size", &noc_interposer::m_flit_size, "68B",
            "Flit width: link_bandwidth / frequency (aries.md §V, Table II: 68 GB/s at 1 GHz), so "
            "a link carries one flit per cycle")
        .range("1B", "4KiB");
    d.param("packet_size", &noc_interposer::m_packet_flits, "8",
            "Flits per packet of the synthetic traffic (the standard 8-flit packets of the "
            "uniform-random experiment)")
        .range("1", "1024");
    d.param("injection_rate", &noc_interposer::m_rate, "0",
            "Offered load of uniform random traffic in flits/node/cycle (Bernoulli packet "
            "creation per node per cycle, destinations uniform among the other nodes); 0: none")
        .range("0", "1");
    d.param("warmup_cycles", &noc_interposer::m_warmup, "2000",
            "Cycles of traffic before the measurement window (packets created then are not "
            "measured)")
        .range("0", "2^40");
    d.param("measure_cycles", &noc_interposer::m_measure, "10000",
            "Measurement window: packets created in it are measured, flits ejected in it give "
            "the accepted throughput")
        .range("1", "2^40");
    d.param("drain_cycles", &noc_interposer::m_drain, "50000",
            "Cycles after the window to deliver the measured packets; beyond saturation they "
            "never all arrive and the run stops here, with `unfinished_packets` > 0")
        .range("0", "2^40");
    // aries.md gives no energy figures (it synthesised with a 32 nm PDK and PrimeTime PX).
    // The defaults are assumptions of the order of DSENT's 45 nm router model (Sun et al.,
    // NOCS 2012) and of on-chip global wires (Keckler et al., IEEE Micro 2011); recalibrate
    // them before reading absolute energies.  Ratios between topologies depend on them less.
    d.param("buffer_write_energy", &noc_interposer::m_e_buffer_write, "0.006",
            "pJ per bit written into an input buffer (assumption: order of DSENT's 45 nm router "
            "buffers, Sun et al. NOCS 2012; not from aries.md)")
        .range("0", "100");
    d.param("buffer_read_energy", &noc_interposer::m_e_buffer_read, "0.005",
            "pJ per bit read from an input buffer (assumption, as buffer_write_energy)")
        .range("0", "100");
    d.param("crossbar_energy", &noc_interposer::m_e_crossbar_bit, "0.008",
            "pJ per bit crossing a 5x5 crossbar (assumption: order of DSENT 45 nm, Sun et al. "
            "NOCS 2012; not from aries.md)")
        .range("0", "100");
    d.param("allocation_energy", &noc_interposer::m_e_allocation, "0.25",
            "pJ per VC or switch allocation (assumption: order of DSENT 45 nm allocators, Sun "
            "et al. NOCS 2012; not from aries.md)")
        .range("0", "1000");
    d.param("link_energy", &noc_interposer::m_e_link, "0.1",
            "pJ per bit per mm of interposer wire (assumption: ~0.1 pJ/bit/mm of repeated "
            "on-chip global wire, Keckler et al. IEEE Micro 2011; not from aries.md)")
        .range("0", "100");
    d.param("pitch_mm", &noc_interposer::m_pitch_mm, "3",
            "Chiplet pitch in mm, the length of a one-pitch link (assumption: aries.md gives no "
            "chiplet size; Simba's chiplets, its ref. [7], are about 2.5 mm x 2.4 mm, and 3 mm "
            "leaves a "
            "gap between them)")
        .range("0.01", "100");
    d.choice("collective", &noc_interposer::m_collective,
             {{"none", collective::NONE},
              {"ring", collective::RING},
              {"ring_2d", collective::RING_2D},
              {"hierarchical_ring", collective::HIERARCHICAL_RING},
              {"double_binary_tree", collective::DOUBLE_BINARY_TREE},
              {"multi_tree", collective::MULTI_TREE},
              {"concentrated_multi_tree", collective::CONCENTRATED_MULTI_TREE}},
             "none",
             "All-reduce run on the NoC instead of synthetic traffic, one rank per router "
             "(schedules of workloads/collectives: ring aries.md §II-C, 2D ring §II-D, "
             "hierarchical ring §IV-A-2, double binary tree §IV-B-1, multi-tree §IV-B-2, "
             "ARIES's concentrated multi-tree §IV-B-2 Fig. 8: 2x2 router blocks reduce into "
             "two concentrators, a multi-tree spans the blocks; needs an even size)");
    d.param("collective_size", &noc_interposer::m_collective_size, "1MiB",
            "Gradient bytes each rank all-reduces (FP32 elements; aries.md Fig. 9 sweeps 1 KB "
            "to 2 MB)")
        .range("4B", "16GiB");
    d.param("levels", &noc_interposer::m_levels, "2",
            "Levels L of the hierarchical ring (aries.md §IV-A-2); k*k must be an L-th power")
        .range("1", "8");
    d.param("trees", &noc_interposer::m_trees, "0",
            "Trees K of the multi-tree; 0: one per rank (MultiTree [34]); Table I's row uses 4. "
            "The concentrated multi-tree builds K trees per half over its N/4 concentrated "
            "nodes (0: one per concentrated node)")
        .range("0", "256");
    d.param("tree_degree", &noc_interposer::m_degree, "2",
            "Children per node D of the multi-tree and concentrated multi-tree heaps (aries.md "
            "§IV-B: tree height log_D N; Table I's ARIES row log_4 N/4 uses 4)")
        .range("1", "16");
    d.choice("mapping", &noc_interposer::m_mapping,
             {{"auto", mapping::AUTO}, {"row_major", mapping::ROW_MAJOR}, {"ring", mapping::RING}},
             "auto",
             "Rank placement: row_major (rank i on router i) or ring (a Hamiltonian cycle of "
             "the mesh, so ring neighbours are one hop apart, aries.md Fig. 6(a)); auto: ring "
             "for the ring, row-major otherwise");
    d.choice("bypass_plan", &noc_interposer::m_plan,
             {{"manual", bypass_plan::MANUAL},
              {"bandwidth_ring", bypass_plan::BANDWIDTH_RING},
              {"tree", bypass_plan::TREE}},
             "manual",
             "ARIES only: manual takes `bypass` as written; bandwidth_ring generates the "
             "bandwidth-optimised ring of aries.md §IV-A-1 (Fig. 6(b)) for collective ring: a "
             "one-pitch bypass segment beside every ring edge on ports the ring leaves idle, "
             "packets of a message alternating between the two links (2N links used); tree "
             "bridges the tree edges of double_binary_tree, multi_tree or "
             "concentrated_multi_tree with bypass segments (aries.md §IV-B-1 Fig. 7(c), "
             "§IV-B-2 Fig. 8(b)): each dimension-order leg of two or more pitches gets a "
             "segment where a track and ports are free, shortest legs first (the paper's greedy "
             "policy), routes take them (noc/collective/aries_tree_plan.h)");
    d.param("local_port_width", &noc_interposer::m_local_width, "1",
            "Flits per cycle a router's local port injects and ejects. 1 is a conventional "
            "router; ARIES's local port has a circuit-switched path (aries.md §III-B-1: data "
            "injected into the local port without buffering), and its bandwidth ring needs 2 "
            "to feed its two links per edge (an assumption: the paper gives no width)")
        .range("1", "4");
    d.choice("granularity", &noc_interposer::m_granularity,
             {{"flit", granularity::FLIT}, {"message", granularity::MESSAGE}}, "flit",
             "flit: cycle-exact routers moving every flit (detail); message: a collective's "
             "message (a synthetic packet) reserves each channel on its route for its "
             "serialisation time, head pipelined across hops, contention kept as busy-until "
             "per channel, energy from the flit level's event counts (scale; DESIGN.md "
             "'Granularity is a knob', validated against flit in tests/unit/noc). No buffer "
             "VCD at message level");
    // Data-parallel training on the chiplets (aries.md §V-B, Fig. 10-11).
    d.param("workload_model", &noc_interposer::m_workload_model, "",
            "Zoo model (workloads/models/zoo: resnet50, vgg16, dlrm, transformer, ...) trained "
            "data-parallel on the package, one replica per chiplet (aries.md §II-A, §V-B): the "
            "PE arrays time each layer's forward and backward pass, gradient buckets are "
            "all-reduced with `collective` as the backward pass produces them. Empty: none");
    d.param("batch", &noc_interposer::m_batch, "64",
            "Global mini-batch of the training iteration, split evenly over the size x size "
            "chiplets (aries.md gives none; 64 is one sample per chiplet on 8x8)")
        .range("1", "2^20");
    d.param("bucket_size", &noc_interposer::m_bucket, "25MiB",
            "Gradient bucket: layers' gradients are grouped, last layer first, until a bucket "
            "holds at least this much, and each bucket is one all-reduce (PyTorch DDP's "
            "default bucket_cap_mb = 25, Li et al., VLDB 2020)")
        .range("4B", "16GiB");
    d.param("allreduce_embeddings", &noc_interposer::m_allreduce_embeddings, "true",
            "workload_model: all-reduce the gradients of embedding tables with the rest. false "
            "keeps them local, as DLRM trains its embeddings model-parallel and only its MLPs "
            "data-parallel (Naumov et al., arXiv:1906.00091, 2019, §IV); the all-to-all of "
            "model-parallel embeddings is not modelled");
    d.param("pes", &noc_interposer::m_pes, "16", "PEs per chiplet (aries.md Table II: # of PEs 16)")
        .range("1", "1024");
    d.param("pe_array", &noc_interposer::m_pe_array, "32",
            "Edge of a PE's square multiplier array (aries.md Table II: multiplier array 32x32)")
        .range("1", "1024");
    d.param("pe_buffer", &noc_interposer::m_pe_buffer, "64KiB",
            "Buffer of one PE (aries.md Table II: buffer size 64 KB); reported, a tile's "
            "operands (2 x 32x32 x 4 B) always fit")
        .range("1B", "1GiB");
    d.param("global_buffer", &noc_interposer::m_global_buffer, "4MiB",
            "Chiplet global buffer (aries.md Table II: global buffer 4 MB); a pass whose "
            "operands do not fit streams them from DRAM")
        .range("1B", "16GiB");
    d.param("pe_frequency", &noc_interposer::m_pe_frequency, "1GHz",
            "PE array clock (aries.md Table II: clock rate 1 GHz)")
        .range("1MHz", "10GHz");
    d.param("dram_bandwidth", &noc_interposer::m_dram_bandwidth, "256GB/s",
            "DRAM bandwidth of one chiplet for operands that overflow the global buffer. "
            "ASSUMPTION: aries.md gives none; 256 GB/s is one HBM2 stack (JEDEC JESD235: "
            "1024-bit interface at 2 Gb/s per pin)")
        .range("1MB/s", "100TB/s");
    d.param("vector_flops_per_cycle", &noc_interposer::m_vector_flops, "32",
            "FLOPs per cycle per PE for work that is not a GEMM (activation, normalisation, "
            "pooling, softmax, sums). ASSUMPTION: one array edge (32) wide, as TPU-like "
            "designs apply activations in a unit as wide as the array's output (Jouppi et al., "
            "ISCA 2017, §2); aries.md does not say")
        .range("1", "65536");
    d.stat("latency", &noc_interposer::m_latency, "cycle",
           "Measured packets: creation at the source to tail ejection (includes source queueing)");
    d.stat("network_latency", &noc_interposer::m_net_latency, "cycle",
           "Measured packets: head injection into the source router to tail ejection");
    d.stat("hops", &noc_interposer::m_hops, "1",
           "Router-to-router links a measured packet crossed");
    d.headline("offered_load", &noc_interposer::m_offered, "flit/node/cycle",
               "Flits created in the measurement window per node per cycle");
    d.headline("accepted_throughput", &noc_interposer::m_accepted, "flit/node/cycle",
               "Flits ejected in the measurement window per node per cycle");
    d.stat("saturated", &noc_interposer::m_saturated, "1",
           "1 when measured packets were still undelivered after drain_cycles");
    d.stat("cycles", &noc_interposer::m_cycles, "cycle", "Cycles simulated");
    d.stat("packets_created", &noc_interposer::m_created, "1", "Packets created");
    d.stat("packets_delivered", &noc_interposer::m_delivered, "1", "Packets delivered");
    d.stat("flits_delivered", &noc_interposer::m_flits, "1", "Flits delivered");
    d.headline("flit_hops", &noc_interposer::m_flit_hops, "1",
               "Router-to-router link traversals of all flits");
    d.stat("unfinished_packets", &noc_interposer::m_unfinished, "1",
           "Measured packets not delivered when the run stopped");
    d.stat("buffer_writes", &noc_interposer::m_buffer_writes, "flit", "Input buffer writes");
    d.stat("buffer_reads", &noc_interposer::m_buffer_reads, "flit", "Input buffer reads");
    d.stat("crossbar_traversals", &noc_interposer::m_crossbar, "flit", "Crossbar traversals");
    d.stat("vc_allocations", &noc_interposer::m_va, "1", "Output VCs granted to packets");
    d.stat("switch_allocations", &noc_interposer::m_sa, "1", "Switch grants (one per flit)");
    d.stat("buffer_energy", &noc_interposer::m_e_buffer, "pJ", "Input buffer write + read energy");
    d.stat("crossbar_energy", &noc_interposer::m_e_crossbar, "pJ", "Crossbar energy");
    d.stat("allocation_energy", &noc_interposer::m_e_alloc, "pJ",
           "VC and switch allocation energy");
    d.stat("link_energy", &noc_interposer::m_e_link_total, "pJ", "Interposer link energy");
    d.headline("energy", &noc_interposer::m_e_total, "pJ", "NoC dynamic energy of the run");
    d.headline("collective_time", &noc_interposer::m_coll_time, "ns",
               "Time from the start to the last delivery of the all-reduce");
    d.headline("collective_throughput", &noc_interposer::m_coll_throughput, "B/s",
               "collective_size / collective_time (aries.md Fig. 9's throughput)");
    d.stat("collective_rounds", &noc_interposer::m_coll_rounds, "1",
           "Step groups (synchronisation steps) of the slowest rank");
    d.headline("iteration_time", &noc_interposer::m_iter_time, "ns",
               "workload_model: one training iteration, max(forward + backward compute, last "
               "gradient all-reduce) (aries.md Fig. 10's execution time)");
    d.stat("compute_time", &noc_interposer::m_compute_time, "ns",
           "workload_model: forward + backward pass of one chiplet");
    d.stat("forward_time", &noc_interposer::m_forward_time, "ns",
           "workload_model: forward pass of one chiplet");
    d.stat("communication_time", &noc_interposer::m_comm_time, "ns",
           "workload_model: sum over buckets of all-reduce start to last delivery");
    d.stat("exposed_communication_time", &noc_interposer::m_exposed, "ns",
           "workload_model: iteration_time - compute_time, the communication the backward "
           "pass does not hide");
    d.stat("gradient_bytes", &noc_interposer::m_grad_bytes, "B",
           "workload_model: gradient bytes each chiplet all-reduces per iteration");
    d.stat("gradient_buckets", &noc_interposer::m_buckets_stat, "1",
           "workload_model: all-reduces per iteration");
    d.stat("pe_utilisation", &noc_interposer::m_pe_util, "1",
           "workload_model: GEMM multiply-adds / (compute cycles x peak multiply-adds per "
           "cycle) over the iteration");
    d.stat("channels_used", &noc_interposer::m_channels_used, "1",
           "Router-to-router channels that carried at least one flit");
    d.stat("bypass_links", &noc_interposer::m_segments, "1",
           "ARIES bypass links selected by port muxes (directions of bypass segments, given in "
           "`bypass` or generated by `bypass_plan`)");
    d.stat("router_flits", &noc_interposer::m_router_flits, "flit",
           "Flits each router sent on a link or ejected");
    d.signal("buffer", &noc_interposer::m_occupancy,
             "Flits buffered at an input port: buffer_N is router N / ports, port N % ports "
             "(ports: 0 local, 1 +x, 2 -x, 3 +y, 4 -y)");
    d.signal("mux", &noc_interposer::m_mux,
             "Link selected by a directional input port's mux: mux_N is router N / 4, port "
             "1 + N % 4 (+x, -x, +y, -y); 0 mesh or none, 1 bypass-x, 2 bypass-y, 3 wrap or "
             "express link");
}

std::vector<bypass_segment> noc_interposer::parse_bypass(const params& p) const {
    std::vector<bypass_segment> out;
    const std::string key = path() + ".bypass";
    auto port = [&](const std::string& s) {
        static const char* names[] = {"+x", "-x", "+y", "-y"};
        for (int i = 0; i < 4; ++i) {
            if (s == names[i]) return i + 1;
        }
        throw input_error(p.where(), key, "'" + s + "' is not a port (+x, -x, +y, -y)");
    };
    auto direction = [&](const std::string& s, int& o, int& i) {
        if (s == "-") return;
        const auto gt = s.find('>');
        if (gt == std::string::npos) {
            throw input_error(p.where(), key, "'" + s + "' is not OUT>IN (e.g. +x>+y) or -");
        }
        o = port(s.substr(0, gt));
        i = port(s.substr(gt + 1));
    };
    std::stringstream all(m_bypass);
    std::string text;
    while (std::getline(all, text, ';')) {
        std::istringstream in(text);
        std::string dim, line, span, fwd, bwd, extra;
        if (!(in >> dim)) continue;  // empty entry
        if (!(in >> line >> span >> fwd >> bwd) || (in >> extra) || (dim != "x" && dim != "y")) {
            throw input_error(p.where(), key,
                              "'" + text + "' is not 'DIM LINE.TRACK FROM-TO OUT>IN OUT>IN'");
        }
        bypass_segment g;
        g.dim = dim == "x" ? 0 : 1;
        char dot = 0, dash = 0;
        std::istringstream ls(line), ss(span);
        if (!(ls >> g.line >> dot >> g.track) || dot != '.' || !(ss >> g.from >> dash >> g.to) ||
            dash != '-') {
            throw input_error(p.where(), key, "'" + text + "': LINE.TRACK and FROM-TO are numbers");
        }
        direction(fwd, g.fwd_out, g.fwd_in);
        direction(bwd, g.bwd_out, g.bwd_in);
        out.push_back(g);
    }
    return out;
}

noc_interposer::noc_interposer(const sc_core::sc_module_name& name, const params& p)
    : ip_module(name, p) {
    p.apply(*this);
    const int k = static_cast<int>(m_size);
    if (m_kind != topology_kind::ARIES && m_plan != bypass_plan::MANUAL) {
        throw input_error(p.where(), path() + ".bypass_plan",
                          "bypass plans exist only in topology aries");
    }
    if (m_kind != topology_kind::ARIES && !m_bypass.empty()) {
        throw input_error(p.where(), path() + ".bypass",
                          "bypass links exist only in topology aries");
    }
    try {
        switch (m_kind) {
            case topology_kind::MESH:
                m_topo = std::make_unique<noc_topology>(noc_topology::mesh(k));
                break;
            case topology_kind::TORUS:
                m_topo = std::make_unique<noc_topology>(noc_topology::torus(k, m_dateline));
                break;
            case topology_kind::FLATTENED_BUTTERFLY:
                m_topo = std::make_unique<noc_topology>(noc_topology::flattened_butterfly(k));
                break;
            case topology_kind::ARIES:
                if (m_plan == bypass_plan::BANDWIDTH_RING) {
                    if (!m_bypass.empty() || m_collective != collective::RING || k % 2 != 0) {
                        throw input_error(p.where(), path() + ".bypass_plan",
                                          "bandwidth_ring generates the bypass segments of a "
                                          "ring all-reduce: it needs collective ring, an even "
                                          "size and no `bypass`");
                    }
                    m_topo = std::make_unique<noc_topology>(
                        noc_topology::aries(k, bandwidth_ring_segments(k, ring_mapping(k))));
                } else if (m_plan == bypass_plan::TREE) {
                    if (!m_bypass.empty() ||
                        (m_collective != collective::DOUBLE_BINARY_TREE &&
                         m_collective != collective::MULTI_TREE &&
                         m_collective != collective::CONCENTRATED_MULTI_TREE)) {
                        throw input_error(p.where(), path() + ".bypass_plan",
                                          "tree generates the bypass segments of a tree "
                                          "all-reduce: it needs collective double_binary_tree, "
                                          "multi_tree or concentrated_multi_tree and no `bypass`");
                    }
                    tree_bypass_plan plan = plan_tree_bypass(
                        k, message_pairs(collective_schedule(p), collective_mapping(p)));
                    m_topo = std::make_unique<noc_topology>(noc_topology::aries(k, plan.segments));
                    m_routes = std::move(plan.routes);
                } else {
                    m_topo =
                        std::make_unique<noc_topology>(noc_topology::aries(k, parse_bypass(p)));
                }
                break;
        }
    } catch (const std::invalid_argument& e) {
        throw input_error(p.where(), path() + ".bypass", e.what());
    }
    double bypass_links = 0;
    for (const auto& c : m_topo->channels()) {
        bypass_links += c.kind == channel_kind::BYPASS_X || c.kind == channel_kind::BYPASS_Y;
    }
    m_segments.set(bypass_links);
    try {
        if (m_plan == bypass_plan::BANDWIDTH_RING) {
            m_routes = ring_route_table(*m_topo, ring_mapping(k));
        } else if (m_plan != bypass_plan::TREE) {
            m_routes = route_table::dimension_order(*m_topo, m_routing == routing::XY);
        }
    } catch (const std::invalid_argument& e) {
        throw input_error(p.where(), path() + ".routing", e.what());
    }
    const std::string cycle = find_dependency_cycle(*m_topo, m_routes);
    if (!cycle.empty()) {
        throw input_error(p.where(), path() + ".routing",
                          "the channel dependency graph has a cycle, so the routing can "
                          "deadlock: " +
                              cycle);
    }
    if (m_vcs % static_cast<std::uint64_t>(m_topo->vc_classes()) != 0) {
        throw input_error(p.where(), path() + ".vcs",
                          "must be a multiple of the " + std::to_string(m_topo->vc_classes()) +
                              " VC classes of this topology (dateline)");
    }
    const double cycle_ps = 1e12 / m_frequency.hz;
    m_cycle_ps = static_cast<std::uint64_t>(std::llround(cycle_ps));
    if (std::abs(cycle_ps - static_cast<double>(m_cycle_ps)) > 1e-6 * cycle_ps) {
        throw input_error(p.where(), path() + ".frequency",
                          "the cycle must be a whole number of picoseconds");
    }
    network_config cfg;
    cfg.vcs = static_cast<int>(m_vcs);
    cfg.buffer_depth = static_cast<int>(m_buffers);
    cfg.pipeline_stages = static_cast<int>(m_stages);
    cfg.pitch_latency_cycles =
        static_cast<double>(m_link_latency.ps) / static_cast<double>(m_cycle_ps);
    cfg.flit_bytes = static_cast<double>(m_flit_size.bytes);
    cfg.bytes_per_cycle = m_link_bandwidth.bytes_per_s / m_frequency.hz;
    cfg.local_port_width = static_cast<int>(m_local_width);
    cfg.message_level = m_granularity == granularity::MESSAGE;
    cfg.packet_flits = static_cast<int>(m_packet_flits);
    if (m_local_width > m_vcs) {
        throw input_error(p.where(), path() + ".local_port_width",
                          "is more than `vcs`: each flit injected in a cycle needs its own VC");
    }
    m_net = std::make_unique<noc_network>(*m_topo, m_routes, cfg);
    m_energy = energy_params{m_e_buffer_write, m_e_buffer_read, m_e_crossbar_bit,  m_e_allocation,
                             m_e_link,         m_pitch_mm,      cfg.flit_bytes * 8};

    const int n = m_topo->routers(), ports = m_topo->ports();
    m_router_flits.resize(static_cast<std::size_t>(n));
    m_occupancy.resize(static_cast<std::size_t>(n * ports));
    m_mux.resize(static_cast<std::size_t>(n * 4));
    if (m_rate > 0) {
        const std::uint64_t seed = ctx().rng_for(path())();
        m_traffic =
            std::make_unique<uniform_traffic>(n, m_rate, static_cast<int>(m_packet_flits), m_warmup,
                                              m_measure, m_warmup + m_measure + m_drain, seed);
        m_net->set_source(m_traffic.get());
        m_net->set_window(m_warmup, m_warmup + m_measure);
    }
    if (!m_workload_model.empty() && m_collective == collective::NONE) {
        throw input_error(p.where(), path() + ".collective",
                          "workload_model needs the all-reduce of its gradients: set collective");
    }
    if (m_collective != collective::NONE) {
        if (m_rate > 0) {
            throw input_error(p.where(), path() + ".collective",
                              "runs instead of synthetic traffic: set injection_rate to 0");
        }
        make_collective(p);
    }
    spawn_thread("run", [this] { run(); });
}

collectives::schedule noc_interposer::build_schedule(std::uint64_t elements) const {
    const int k = static_cast<int>(m_size), n = k * k;
    switch (m_collective) {
        case collective::RING:
            return collectives::ring_allreduce(n, elements);
        case collective::RING_2D:
            return collectives::ring_2d(k, k, elements);
        case collective::HIERARCHICAL_RING:
            return collectives::hierarchical_ring(n, static_cast<int>(m_levels), elements);
        case collective::DOUBLE_BINARY_TREE:
            return collectives::double_binary_tree(n, elements);
        case collective::CONCENTRATED_MULTI_TREE:
            return collectives::concentrated_multi_tree(k, k, elements, static_cast<int>(m_trees),
                                                        static_cast<int>(m_degree));
        default:
            return collectives::multi_tree(n, elements, static_cast<int>(m_trees),
                                           static_cast<int>(m_degree));
    }
}

collectives::schedule noc_interposer::collective_schedule(const params& p) const {
    try {
        return build_schedule(m_collective_size.bytes / 4);
    } catch (const std::invalid_argument& e) {
        throw input_error(p.where(), path() + ".collective", e.what());
    }
}

std::vector<int> noc_interposer::collective_mapping(const params& p) const {
    const int k = static_cast<int>(m_size);
    const bool ring = m_mapping == mapping::RING ||
                      (m_mapping == mapping::AUTO && m_collective == collective::RING);
    if (ring && k % 2 != 0) {
        throw input_error(p.where(), path() + ".mapping", "the ring mapping needs an even size");
    }
    return ring ? ring_mapping(k) : row_major_mapping(k);
}

std::unique_ptr<collective_traffic> noc_interposer::make_traffic(
    const collectives::schedule& s) const {
    auto t = std::make_unique<collective_traffic>(
        s, m_rank_router, static_cast<double>(m_flit_size.bytes), static_cast<int>(m_packet_flits));
    t->split_over_variants(m_plan == bypass_plan::BANDWIDTH_RING);
    t->whole_messages(m_granularity == granularity::MESSAGE);
    return t;
}

void noc_interposer::make_collective(const params& p) {
    m_rank_router = collective_mapping(p);
    const collectives::schedule s = collective_schedule(p);
    if (!m_workload_model.empty()) {
        make_training(p);
        return;
    }
    m_coll = make_traffic(s);
    m_coll->attach(*m_net);
    m_net->set_source(m_coll.get());
}

void noc_interposer::make_training(const params& p) {
    const std::uint64_t chiplets = m_size * m_size;
    if (m_batch % chiplets != 0) {
        throw input_error(p.where(), path() + ".batch",
                          std::to_string(m_batch) + " samples do not split evenly over " +
                              std::to_string(chiplets) + " chiplets");
    }
    models::model_options o;
    o.batch = static_cast<std::int64_t>(m_batch / chiplets);
    o.origin = p.where();
    std::string file;
    try {
        file = models::find_zoo_model(m_workload_model);
    } catch (const input_error& e) {
        // Name the zoo, not its folder, so that the message does not depend on the install.
        std::string why = e.reason();
        const std::string dir = models::zoo_dir();
        if (const auto at = why.find(dir); at != std::string::npos) {
            why.replace(at, dir.size(), "the zoo");
        }
        throw input_error(p.where(), path() + ".workload_model", why);
    }
    const models::model m = models::load_model(file, o);
    pe_array_config pc;
    pc.pes = static_cast<int>(m_pes);
    pc.rows = pc.cols = static_cast<int>(m_pe_array);
    pc.frequency_hz = m_pe_frequency.hz;
    pc.pe_buffer_bytes = m_pe_buffer.bytes;
    pc.global_buffer_bytes = m_global_buffer.bytes;
    pc.dram_bytes_per_s = m_dram_bandwidth.bytes_per_s;
    pc.vector_flops_per_cycle = m_vector_flops;
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
    auto to_cycles = [this](std::uint64_t ps) { return (ps + m_cycle_ps - 1) / m_cycle_ps; };
    std::vector<gradient_bucket_plan> buckets;
    gradient_bucket_plan cur;
    std::uint64_t now_ps = fwd_ps;
    for (std::size_t i = layers.size(); i-- > 0;) {
        now_ps += t[i].backward.time_ps;
        if (layers[i].weight_grad_bytes <= 0) continue;
        if (!m_allreduce_embeddings && layers[i].kind == models::layer_kind::EMBEDDING) continue;
        cur.bytes += static_cast<std::uint64_t>(layers[i].weight_grad_bytes);
        cur.name = layers[i].name;
        cur.ready = to_cycles(now_ps);
        if (cur.bytes >= m_bucket.bytes) {
            buckets.push_back(cur);
            cur = gradient_bucket_plan();
        }
    }
    if (cur.bytes > 0) buckets.push_back(cur);
    m_forward_ns = static_cast<double>(fwd_ps) / 1000.0;
    const double peak = static_cast<double>(m_pes * m_pe_array * m_pe_array);
    m_pe_util_value =
        cycles > 0 ? static_cast<double>(macs) / (static_cast<double>(cycles) * peak) : 1.0;
    m_training = std::make_unique<training_traffic>(
        std::move(buckets), to_cycles(now_ps),
        [this](std::uint64_t bytes) { return make_traffic(build_schedule(bytes / 4)); });
    m_training->attach(*m_net);
    m_net->set_source(m_training.get());
}

noc_interposer::~noc_interposer() = default;

void noc_interposer::run() {
    // Tracing is switched on after construction; without it the network makes no calls.
    if (!m_occupancy.empty() && m_occupancy.front().enabled()) {
        const int ports = m_topo->ports();
        m_net->on_occupancy = [this, ports](int r, int port, int delta, std::uint64_t cycle) {
            m_occupancy[static_cast<std::size_t>(r * ports + port)].change_at(
                ps_time(cycle * m_cycle_ps), delta);
        };
    }
    // The mux settings are fixed before the run (aries.md §IV-C): trace them once.
    if (m_topo->ports() == 5) {
        for (int r = 0; r < m_topo->routers(); ++r) {
            for (int p = 1; p <= 4; ++p) {
                const channel_kind k = m_topo->mux_selection(r, p);
                const int v = k == channel_kind::BYPASS_X   ? 1
                              : k == channel_kind::BYPASS_Y ? 2
                              : k == channel_kind::MESH     ? 0
                                                            : 3;
                if (v)
                    m_mux[static_cast<std::size_t>(r * 4 + p - 1)].change_at(sc_core::SC_ZERO_TIME,
                                                                             v);
            }
        }
    }
    const std::uint64_t window_end = m_warmup + m_measure;
    const std::uint64_t stop = window_end + m_drain;
    const std::uint64_t quantum =
        std::max<std::uint64_t>(1, ctx().settings().quantum.ps / m_cycle_ps);
    while (m_coll && !m_coll->done()) {
        m_net->run_until(m_net->now() + quantum);
        const sc_core::sc_time at = ps_time(m_net->now() * m_cycle_ps);
        if (at > sim_now()) wait(at - sim_now());
        progress();
    }
    while (m_training && !m_training->done()) {
        m_net->run_until(m_net->now() + quantum);
        const sc_core::sc_time at = ps_time(m_net->now() * m_cycle_ps);
        if (at > sim_now()) wait(at - sim_now());
        progress();
    }
    if (m_training) {
        // The backward pass may end after the last all-reduce.
        const sc_core::sc_time at = ps_time(m_training->iteration_end() * m_cycle_ps);
        if (at > sim_now()) wait(at - sim_now());
    }
    while (m_traffic) {
        const std::uint64_t target = std::min(stop, m_net->now() + quantum);
        m_net->run_until(target);
        const sc_core::sc_time at = ps_time(target * m_cycle_ps);
        if (at > sim_now()) wait(at - sim_now());
        progress();
        if (target >= stop || (target >= window_end && m_net->measured_outstanding() == 0)) break;
    }
    m_last_cycle = m_net->now();
    m_finished = true;
    notify_finished();
}

std::string noc_interposer::pending_work() const {
    if (m_finished) return {};
    if (m_coll) return m_coll->pending() + " at cycle " + std::to_string(m_net->now());
    if (m_training) return m_training->pending() + " at cycle " + std::to_string(m_net->now());
    return std::to_string(m_net->measured_outstanding()) + " measured packets in flight at cycle " +
           std::to_string(m_net->now());
}

void noc_interposer::audit(audit_log& log) const {
    const noc_network& net = *m_net;
    log.check(path(), "packets added = delivered + in flight",
              net.packets_added() == net.packets_delivered_total() + net.in_flight(),
              "added " + std::to_string(net.packets_added()) + ", delivered " +
                  std::to_string(net.packets_delivered_total()) + ", in flight " +
                  std::to_string(net.in_flight()));
    // Synthetic traffic stops at the end of its window with packets on the way; a collective
    // is complete only when every message has arrived.
    if (m_collective != collective::NONE) {
        if (m_training) {
            log.check(path(), "every gradient bucket all-reduced", m_training->done(),
                      m_training->pending());
        }
        log.check(path(), "every packet of the collective delivered", net.in_flight() == 0,
                  std::to_string(net.in_flight()) + " packet(s) in flight");
    }
}

void noc_interposer::end_of_run() {
    const noc_network& net = *m_net;
    const network_counts& c = net.counts();
    m_latency = net.latency();
    m_net_latency = net.network_latency();
    m_hops = net.hops();
    const double nodes = m_topo->routers();
    if (m_traffic) {
        m_offered.set(static_cast<double>(m_traffic->created_in_window()) / nodes /
                      static_cast<double>(m_measure));
        m_accepted.set(static_cast<double>(net.window_flits()) / nodes /
                       static_cast<double>(m_measure));
    }
    m_unfinished += net.measured_outstanding();
    m_saturated.set(net.measured_outstanding() > 0 ? 1.0 : 0.0);
    m_cycles.set(static_cast<double>(net.now()));
    m_created += c.packets_created;
    m_delivered += c.packets_delivered;
    m_flits += c.flits_delivered;
    m_flit_hops += c.flit_hops;
    m_buffer_writes += c.buffer_writes;
    m_buffer_reads += c.buffer_reads;
    m_crossbar += c.crossbar;
    m_va += c.vc_allocations;
    m_sa += c.switch_allocations;
    m_channels_used.set(static_cast<double>(net.channels_used()));
    if (m_coll) {
        const double t_ns = static_cast<double>(m_coll->finish_cycle() * m_cycle_ps) / 1000.0;
        m_coll_time.set(t_ns);
        m_coll_throughput.set(
            t_ns > 0 ? static_cast<double>(m_collective_size.bytes) / (t_ns * 1e-9) : 0.0);
        m_coll_rounds.set(static_cast<double>(m_coll->rounds()));
    }
    if (m_training) {
        const double ns = static_cast<double>(m_cycle_ps) / 1000.0;
        const auto iter = static_cast<double>(m_training->iteration_end()) * ns;
        const auto compute = static_cast<double>(m_training->compute_end()) * ns;
        m_iter_time.set(iter);
        m_compute_time.set(compute);
        m_forward_time.set(m_forward_ns);
        m_comm_time.set(static_cast<double>(m_training->communication_cycles()) * ns);
        m_exposed.set(iter - compute);
        std::uint64_t bytes = 0;
        for (const auto& b : m_training->buckets()) bytes += b.bytes;
        m_grad_bytes.set(static_cast<double>(bytes));
        m_buckets_stat.set(static_cast<double>(m_training->buckets().size()));
        m_pe_util.set(m_pe_util_value);
    }
    const energy_totals e = energy_totals::of(c, m_energy);
    m_e_buffer.set(e.buffer_pj);
    m_e_crossbar.set(e.crossbar_pj);
    m_e_alloc.set(e.allocation_pj);
    m_e_link_total.set(e.link_pj);
    m_e_total.set(e.total_pj());
    for (std::size_t r = 0; r < m_router_flits.size(); ++r) m_router_flits[r] += net.forwarded()[r];
}

TRAINVP_REGISTER_IP(noc_interposer, "noc.interposer");

}  // namespace trainvp::noc
