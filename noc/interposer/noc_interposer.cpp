#include "noc/interposer/noc_interposer.h"

#include <cmath>
#include <limits>

#include "kit/registry.h"
#include "kit/sim_time.h"
#include "noc/collective/aries_ring_plan.h"
#include "noc/collective/aries_tree_plan.h"
#include "noc/energy/noc_energy.h"
#include "noc/energy/noc_inventory.h"
#include "noc/topology/dependency_check.h"
#include "noc/topology/equal_cost.h"

namespace trainvp::noc {

void noc_interposer::declare(type_decl<noc_interposer>& d) {
    d.describe(
        "Chiplet interposer NoC (aries.md §III): k x k routers (5 ports: local, +x, -x, +y, -y; "
        "a flattened butterfly has 2k-1), each built from input units with VCs and credits, "
        "table routing filled before the run, VC and round-robin switch allocation and a "
        "crossbar, in a `router.pipeline_stages`-stage pipeline; links with latency and "
        "bandwidth. Flit-level and cycle-exact, event-driven (only routers holding flits are "
        "visited). Zero-load packet latency in cycles: H * (pipeline_stages + L) + "
        "pipeline_stages + packet_size - 1 for H router-to-router hops over links of L cycles. "
        "A routing set-up with a cyclic channel dependency is rejected. With "
        "traffic.injection_rate > 0 it runs uniform random traffic: warm-up, measurement "
        "window, then drains the measured packets; with collective.algorithm set, an "
        "all-reduce, and named by a workload.chiplet_training, a training iteration instead. "
        "Its chiplets run op lists as hosts do (workload.ops / chakra / training naming "
        "noc.chiplet[c], node id c = row-major index): compute on each chiplet's PE arrays "
        "(`chiplet`), sends and receives as messages on the network.");
    d.choice("topology", &noc_interposer::m_topology,
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
    d.group("router", &noc_interposer::m_router,
            "The routers (aries.md §V): virtual channels, buffers, pipeline, local port",
            router_params::declare);
    d.param("clock", &noc_interposer::m_clock, "1GHz",
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
    d.param("packet_size", &noc_interposer::m_packet_size, "8",
            "Flits per packet of the synthetic traffic and of a collective's messages (the "
            "standard 8-flit packets of the uniform-random experiment)")
        .range("1", "1024");
    d.param("pitch", &noc_interposer::m_pitch, "3mm",
            "Chiplet pitch, the length of a one-pitch link, for the link energy (assumption: "
            "aries.md gives no chiplet size; Simba's chiplets, its ref. [7], are about 2.5 mm x "
            "2.4 mm, and 3 mm leaves a gap between them)")
        .range("0.01mm", "100mm");
    d.group("traffic", &noc_interposer::m_traffic,
            "Uniform random traffic, the standard NoC experiment (Dally & Towles 2004, ch. 23): "
            "warm-up, measurement window, drain",
            uniform_experiment::settings::declare);
    d.group("collective", &noc_interposer::m_collective,
            "The all-reduce run on the NoC (alone, or per gradient bucket of "
            "workload.chiplet_training)",
            noc_collective::settings::declare);
    d.group("bypass", &noc_interposer::m_bypass,
            "ARIES only: the bypass segments and their mux settings, written out or generated "
            "by a plan (aries.md §III-B, §IV)",
            bypass_params::declare);
    d.group("energy", &noc_interposer::m_energy,
            "Dynamic energy per event and static power per component (aries.md gives none: "
            "defaults from a DSENT 0.91 Bulk32LVT run on this block's defaults, 5-port router, "
            "4 VCs x 32 flits, 544-bit flits, 1 GHz, 3 mm links; docs/dsent-32nm.md); energy = "
            "dynamic + static power x execution time",
            energy_params::declare);
    d.group("chiplet", &noc_interposer::m_chiplet,
            "Op lists only (workload.ops / chakra naming noc.chiplet[c]): each chiplet's PE "
            "arrays, which time its compute, gpu_compute, sum and update ops (aries.md Table II; "
            "noc/README.md, 'Op lists on chiplets')",
            chiplet_compute_params::declare);
    d.choice("cost_basis", &noc_interposer::m_cost_basis,
             {{"equal_width", cost_basis::EQUAL_WIDTH},
              {"equal_bisection", cost_basis::EQUAL_BISECTION}},
             "equal_width",
             "What is held equal across topologies. equal_width: every channel has "
             "link_bandwidth (GARNET's topologies share one link width; aries.md states no "
             "equal-cost rule). equal_bisection: each channel gets link_bandwidth x (a mesh's "
             "bisection channels / this topology's), the basis of Kim, Balfour and Dally's "
             "flattened-butterfly comparison (MICRO 2007, aries.md [35]): torus 1/2, flattened "
             "butterfly 4/k^2 (its radix stays 2k - 1), ARIES 1/3 (its two bypass tracks per row "
             "are wires too) (noc/topology/equal_cost.h)");
    d.choice("granularity", &noc_interposer::m_granularity,
             {{"flit", granularity::FLIT}, {"message", granularity::MESSAGE}}, "flit",
             "flit: cycle-exact routers moving every flit (detail); message: a collective's "
             "message (a synthetic packet) reserves each channel on its route for its "
             "serialisation time, head pipelined across hops, contention kept as busy-until "
             "per channel, energy from the flit level's event counts (scale; DESIGN.md "
             "'Granularity is a knob', validated against flit in tests/unit/noc). No buffer "
             "VCD at message level");
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
           "1 when measured packets were still undelivered after traffic.drain_cycles");
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
    d.stat("bypass_energy", &noc_interposer::m_e_mux, "pJ",
           "ARIES: input-port mux and segment switch energy");
    d.stat("dynamic_energy", &noc_interposer::m_e_dynamic, "pJ",
           "Buffers + crossbar + allocation + links + ARIES muxes and segment switches");
    d.stat("static_power", &noc_interposer::m_static_power, "mW",
           "Leakage of routers, ports, crosspoints, buffer slots, links per mm, ARIES muxes "
           "and segment switches (energy.*_static)");
    d.stat("static_energy", &noc_interposer::m_e_static, "pJ", "static_power x energy_time");
    d.stat("energy_time", &noc_interposer::m_energy_time, "ns",
           "Execution time the static power is charged for: the all-reduce (collective_time), "
           "the training iteration (iteration_time), or the cycles simulated");
    d.headline("energy", &noc_interposer::m_e_total, "pJ",
               "NoC energy of the run: dynamic_energy + static_energy");
    d.headline("collective_time", &noc_interposer::m_coll_time, "ns",
               "Time from the start to the last delivery of the all-reduce");
    d.headline("collective_throughput", &noc_interposer::m_coll_throughput, "B/s",
               "collective.size / collective_time (aries.md Fig. 9's throughput)");
    d.stat("collective_rounds", &noc_interposer::m_coll_rounds, "1",
           "Step groups (synchronisation steps) of the slowest rank");
    d.headline("iteration_time", &noc_interposer::m_iter_time, "ns",
               "training: one training iteration, max(forward + backward compute, last "
               "gradient all-reduce) (aries.md Fig. 10's execution time); op lists on the "
               "chiplets: the completion of the last op");
    d.stat("compute_time", &noc_interposer::m_compute_time, "ns",
           "training: forward + backward pass of one chiplet");
    d.stat("forward_time", &noc_interposer::m_forward_time, "ns",
           "training: forward pass of one chiplet");
    d.stat("communication_time", &noc_interposer::m_comm_time, "ns",
           "training: sum over buckets of all-reduce start to last delivery");
    d.stat("exposed_communication_time", &noc_interposer::m_exposed, "ns",
           "training: iteration_time - compute_time, the communication the backward "
           "pass does not hide");
    d.stat("gradient_bytes", &noc_interposer::m_grad_bytes, "B",
           "training: gradient bytes each chiplet all-reduces per iteration");
    d.stat("gradient_buckets", &noc_interposer::m_buckets_stat, "1",
           "training: all-reduces per iteration");
    d.stat("pe_utilisation", &noc_interposer::m_pe_util, "1",
           "training: GEMM multiply-adds / (compute cycles x peak multiply-adds per "
           "cycle) over the iteration");
    d.stat("bisection_channels", &noc_interposer::m_bisection, "1",
           "Unidirectional channels across the middle vertical cut, one direction (ARIES: with "
           "its 2k bypass tracks)");
    d.stat("channel_width_factor", &noc_interposer::m_width_factor, "1",
           "Each channel's bandwidth / link_bandwidth (cost_basis)");
    d.stat("channels_used", &noc_interposer::m_channels_used, "1",
           "Router-to-router channels that carried at least one flit");
    d.stat("bypass_links", &noc_interposer::m_segments, "1",
           "ARIES bypass links selected by port muxes (directions of bypass segments, given in "
           "`bypass.segments` or generated by `bypass.plan`)");
    d.stat("router_flits", &noc_interposer::m_router_flits, "flit",
           "Flits each router sent on a link or ejected");
    d.stat("link_utilisation", &noc_interposer::m_link_util, "1",
           "Each router-to-router channel's busy cycles (flits x cycles per flit) / the cycles "
           "simulated; channel N runs from router link_from[N] to link_to[N]");
    d.stat("link_from", &noc_interposer::m_link_from, "1",
           "Router driving channel N (router r sits at x = r % size, y = r / size)");
    d.stat("link_to", &noc_interposer::m_link_to, "1", "Router receiving channel N");
    d.stat("link_kind", &noc_interposer::m_link_kind, "1",
           "Channel N's kind: 0 mesh, 1 torus wrap, 2 flattened-butterfly express, 3 ARIES "
           "bypass-x, 4 ARIES bypass-y");
    d.signal("buffer", &noc_interposer::m_occupancy,
             "Flits buffered at an input port: buffer_N is router N / ports, port N % ports "
             "(ports: 0 local, 1 +x, 2 -x, 3 +y, 4 -y)");
    d.signal("mux", &noc_interposer::m_mux,
             "Link selected by a directional input port's mux: mux_N is router N / 4, port "
             "1 + N % 4 (+x, -x, +y, -y); 0 mesh or none, 1 bypass-x, 2 bypass-y, 3 wrap or "
             "express link");
}

void noc_interposer::build_topology(const params& p) {
    const int k = static_cast<int>(m_size);
    const bypass_plan plan = m_bypass.plan;
    if (m_topology != topology_kind::ARIES && plan != bypass_plan::MANUAL) {
        throw input_error(p.where(), path() + ".bypass.plan",
                          "bypass plans exist only in topology aries");
    }
    if (m_topology != topology_kind::ARIES && !m_bypass.segments.empty()) {
        throw input_error(p.where(), path() + ".bypass.segments",
                          "bypass links exist only in topology aries");
    }
    try {
        switch (m_topology) {
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
                if (plan == bypass_plan::BANDWIDTH_RING) {
                    if (!m_bypass.segments.empty() || !m_collectives->is_ring() || k % 2 != 0) {
                        throw input_error(p.where(), path() + ".bypass.plan",
                                          "bandwidth_ring generates the bypass segments of a "
                                          "ring all-reduce: it needs collective ring, an even "
                                          "size and no `bypass.segments`");
                    }
                    // Its segments and routes follow the ring's Hamiltonian cycle: ranks placed
                    // otherwise would send to routers its route table has no route to.
                    if (collective_mapping(p) != ring_mapping(k)) {
                        const config_node* c = p.find("collective");
                        const config_node* m = c != nullptr ? c->find("mapping") : nullptr;
                        throw input_error(m != nullptr ? m->loc() : p.where(),
                                          path() + ".collective.mapping",
                                          "bandwidth_ring builds its bypass segments and routes "
                                          "on the ring mapping (a Hamiltonian cycle of the "
                                          "mesh): it needs collective.mapping ring or auto");
                    }
                    m_topo = std::make_unique<noc_topology>(
                        noc_topology::aries(k, bandwidth_ring_segments(k, ring_mapping(k))));
                } else if (plan == bypass_plan::TREE) {
                    if (!m_bypass.segments.empty() || !m_collectives->is_tree()) {
                        throw input_error(p.where(), path() + ".bypass.plan",
                                          "tree generates the bypass segments of a tree "
                                          "all-reduce: it needs collective double_binary_tree, "
                                          "multi_tree or concentrated_multi_tree and no "
                                          "`bypass.segments`");
                    }
                    tree_bypass_plan tree = plan_tree_bypass(
                        k, message_pairs(collective_schedule(p), collective_mapping(p)));
                    m_topo = std::make_unique<noc_topology>(noc_topology::aries(k, tree.segments));
                    m_routes = std::move(tree.routes);
                } else {
                    m_topo =
                        std::make_unique<noc_topology>(noc_topology::aries(k, m_bypass.segments));
                }
                break;
        }
    } catch (const std::invalid_argument& e) {
        throw input_error(p.where(), path() + ".bypass.segments", e.what());
    }
    double bypass_links = 0;
    for (const auto& c : m_topo->channels()) {
        bypass_links += c.kind == channel_kind::BYPASS_X || c.kind == channel_kind::BYPASS_Y;
    }
    m_segments.set(bypass_links);
    try {
        if (plan == bypass_plan::BANDWIDTH_RING) {
            m_routes = ring_route_table(*m_topo, ring_mapping(k));
        } else if (plan != bypass_plan::TREE) {
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
}

noc_interposer::noc_interposer(const sc_core::sc_module_name& name, const params& p)
    : ip_module(name, p), m_where(p.where()) {
    p.apply(*this);
    m_collectives = std::make_unique<noc_collective>(m_collective, static_cast<int>(m_size));
    build_topology(p);
    if (m_router.vcs % static_cast<std::uint64_t>(m_topo->vc_classes()) != 0) {
        throw input_error(p.where(), path() + ".router.vcs",
                          "must be a multiple of the " + std::to_string(m_topo->vc_classes()) +
                              " VC classes of this topology (dateline)");
    }
    const double cycle_ps = 1e12 / m_clock.hz;
    m_cycle_ps = static_cast<std::uint64_t>(std::llround(cycle_ps));
    if (std::abs(cycle_ps - static_cast<double>(m_cycle_ps)) > 1e-6 * cycle_ps) {
        throw input_error(p.where(), path() + ".clock",
                          "the cycle must be a whole number of picoseconds");
    }
    network_config cfg;
    cfg.vcs = static_cast<int>(m_router.vcs);
    cfg.buffer_depth = static_cast<int>(m_router.vc_buffers);
    cfg.pipeline_stages = static_cast<int>(m_router.pipeline_stages);
    cfg.pitch_latency_cycles =
        static_cast<double>(m_link_latency.ps) / static_cast<double>(m_cycle_ps);
    cfg.flit_bytes = static_cast<double>(m_flit_size.bytes);
    const double width =
        m_cost_basis == cost_basis::EQUAL_BISECTION ? equal_cost::width_factor(*m_topo) : 1.0;
    m_width_factor.set(width);
    m_bisection.set(static_cast<double>(equal_cost::bisection_channels(*m_topo)));
    cfg.bytes_per_cycle = m_link_bandwidth.bytes_per_s * width / m_clock.hz;
    cfg.local_port_width = static_cast<int>(m_router.local_port_width);
    cfg.circuit_local = m_router.circuit_local;
    cfg.message_level = m_granularity == granularity::MESSAGE;
    cfg.packet_flits = static_cast<int>(m_packet_size);
    if (m_router.local_port_width > m_router.vcs) {
        throw input_error(p.where(), path() + ".router.local_port_width",
                          "is more than `router.vcs`: each flit injected in a cycle needs its own "
                          "VC");
    }
    m_net = std::make_unique<noc_network>(*m_topo, m_routes, cfg);

    const int n = m_topo->routers(), ports = m_topo->ports();
    m_router_flits.resize(static_cast<std::size_t>(n));
    const std::size_t links = m_topo->channels().size();
    m_link_util.resize(links);
    m_link_from.resize(links);
    m_link_to.resize(links);
    m_link_kind.resize(links);
    m_occupancy.resize(static_cast<std::size_t>(n * ports));
    m_mux.resize(static_cast<std::size_t>(n * 4));
    if (m_traffic.injection_rate > 0) {
        const std::uint64_t seed = ctx().rng_for(path())();
        m_experiment = std::make_unique<uniform_experiment>(
            m_traffic, static_cast<int>(m_packet_size), seed, *m_net);
    }
    if (m_collectives->enabled()) {
        if (m_traffic.injection_rate > 0) {
            throw input_error(p.where(), path() + ".collective.algorithm",
                              "runs instead of synthetic traffic: set traffic.injection_rate to "
                              "0");
        }
        make_collective(p);
    }
    const int chiplets = m_topo->routers();
    for (int c = 0; c < chiplets; ++c) {
        m_chiplet_sinks.push_back(std::make_unique<chiplet_sink>(
            c,
            [this](int chiplet, std::unique_ptr<ops::op_source> src, const source_loc& where,
                   const std::string& key, const config_node* given) {
                take_ops(chiplet, std::move(src), where, key, given);
            },
            [this](int chiplet) { return chiplet_ran(chiplet); }));
    }
    spawn_thread("run", [this] { run(); });
}

std::vector<workload_units::unit> noc_interposer::units() {
    std::vector<unit> out;
    for (std::size_t c = 0; c < m_chiplet_sinks.size(); ++c) {
        out.push_back(unit{"chiplet[" + std::to_string(c) + "]", static_cast<std::uint32_t>(c),
                           m_chiplet_sinks[c].get()});
    }
    return out;
}

void noc_interposer::take_ops(int chiplet, std::unique_ptr<ops::op_source> src,
                              const source_loc& where, const std::string& key,
                              const config_node* given) {
    const std::string unit = path() + ".chiplet[" + std::to_string(chiplet) + "]";
    if (m_chiplets) {
        throw input_error(where, key,
                          "op lists for " + unit + ", but " + path() +
                              " runs the training plan of workload.chiplet_training: one or the "
                              "other");
    }
    if (m_experiment) {
        throw input_error(where, key,
                          "op lists for " + unit + ", but " + path() +
                              " runs uniform random traffic (traffic.injection_rate > 0): set "
                              "it to 0 to run op lists");
    }
    if (m_allreduce) {
        throw input_error(where, key,
                          "op lists for " + unit + ", but " + path() +
                              " runs its own all-reduce (collective.algorithm): leave it unset "
                              "to run op lists (their collectives are written as ops)");
    }
    if (m_bypass.plan != bypass_plan::MANUAL) {
        throw input_error(where, key,
                          "op lists for " + unit + ", but " + path() +
                              ".bypass.plan routes only its collective's pairs; op lists may "
                              "send between any two chiplets: give bypass.segments instead");
    }
    if (!m_ops) {
        chiplet_op_runner::settings s;
        s.chiplets = m_topo->routers();
        s.cycle_ps = m_cycle_ps;
        s.flit_bytes = static_cast<double>(m_flit_size.bytes);
        s.packet_flits = static_cast<int>(m_packet_size);
        s.whole_messages = m_granularity == granularity::MESSAGE;
        s.split_over_variants = false;
        s.record_runs = ctx().settings().breakdown;
        s.keep_names = ctx().spans().enabled();
        m_ops = std::make_unique<chiplet_op_runner>(s, m_chiplet.config(), path());
        if (ctx().spans().enabled()) {
            // Each chiplet's units as tracks, as a host's (host_cpu::record).
            m_ops->on_span = [this](int c, std::size_t u, std::size_t i,
                                    const ip::op_window::slot& o, const std::string& name,
                                    std::uint64_t start_ps, std::uint64_t end_ps) {
                const std::string label = name.empty() ? std::string(ops::kind_name(o.kind)) +
                                                             " [" + std::to_string(i) + "]"
                                                       : name;
                span_args args;
                args.op = ops::kind_name(o.kind);
                args.node = c;
                switch (o.kind) {
                    case ops::op_kind::SEND:
                    case ops::op_kind::RECV:
                        args.dir = o.kind == ops::op_kind::SEND ? span_args::flow::SEND
                                                                : span_args::flow::RECV;
                        args.peer = o.peer;
                        args.tag = o.tag;
                        args.bytes = static_cast<std::int64_t>(o.bytes);
                        break;
                    case ops::op_kind::COMPUTE:
                    case ops::op_kind::GPU_COMPUTE:
                        args.flops = o.flops;
                        break;
                    case ops::op_kind::DELAY:
                        break;
                    default:
                        args.bytes = static_cast<std::int64_t>(o.bytes);
                        break;
                }
                ctx().spans().span(path() + ".chiplet[" + std::to_string(c) + "]." +
                                       ops::unit_name(static_cast<ops::op_unit>(u)),
                                   label,
                                   o.phase == ops::op_phase::OTHER ? ops::category(o.kind)
                                                                   : ops::phase_name(o.phase),
                                   start_ps, end_ps, args);
            };
        }
    }
    m_ops->take(chiplet, std::move(src), where, key, given);
}

void noc_interposer::declare_messages(ops::message_pairing& pairs) const {
    if (m_ops) m_ops->declare_messages(pairs, this);
}

ip_module::message_site noc_interposer::site_of_message(std::size_t index,
                                                        const char* field) const {
    return m_ops->site_of(index, field);
}

workloads::host_run noc_interposer::chiplet_ran(int chiplet) {
    const std::string name = path() + ".chiplet[" + std::to_string(chiplet) + "]";
    if (!m_ops) return workloads::host_run{name, static_cast<std::uint32_t>(chiplet), {}, {}};
    return m_ops->ran(chiplet, name);
}

collectives::schedule noc_interposer::collective_schedule(const params& p) const {
    try {
        return m_collectives->configured_schedule();
    } catch (const std::invalid_argument& e) {
        throw input_error(p.where(), path() + ".collective.algorithm", e.what());
    }
}

std::vector<int> noc_interposer::collective_mapping(const params& p) const {
    try {
        return m_collectives->mapping();
    } catch (const std::invalid_argument& e) {
        throw input_error(p.where(), path() + ".collective.mapping", e.what());
    }
}

std::unique_ptr<collective_traffic> noc_interposer::make_traffic(
    const collectives::schedule& s) const {
    auto t = std::make_unique<collective_traffic>(
        s, m_rank_router, static_cast<double>(m_flit_size.bytes), static_cast<int>(m_packet_size));
    t->split_over_variants(m_bypass.plan == bypass_plan::BANDWIDTH_RING);
    t->whole_messages(m_granularity == granularity::MESSAGE);
    return t;
}

void noc_interposer::make_collective(const params& p) {
    m_rank_router = collective_mapping(p);
    const collectives::schedule s = collective_schedule(p);
    // Attached to the network when the run starts, unless a training plan replaces it.
    m_allreduce = make_traffic(s);
}

chiplet_training_sink::package noc_interposer::chiplet_package() const {
    return package{m_size * m_size, m_cycle_ps};
}

void noc_interposer::accept_training(std::unique_ptr<chiplet_training> plan,
                                     const source_loc& where, const std::string& key) {
    (void)where;
    if (m_ops) {
        throw input_error(where, key,
                          "a training plan for " + path() +
                              ", but op lists were given for its chiplets: one or the other");
    }
    if (!m_collectives->enabled()) {
        throw input_error(m_where, path() + ".collective.algorithm",
                          key +
                              ".workload_model needs the all-reduce of its gradients: set "
                              "collective.algorithm");
    }
    // The plan sees the network through the chiplet count, the cycle and a factory of one
    // bucket's all-reduce; it runs instead of the single all-reduce.
    m_allreduce.reset();
    m_chiplets = std::move(plan);
    m_chiplets->start(*m_net, [this](std::uint64_t bytes) {
        return make_traffic(m_collectives->schedule(bytes / 4));
    });
}

noc_interposer::~noc_interposer() = default;

void noc_interposer::run() {
    if (m_allreduce) {
        m_allreduce->attach(*m_net);
        m_net->set_source(m_allreduce.get());
    }
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
    const std::uint64_t quantum =
        std::max<std::uint64_t>(1, ctx().settings().quantum.ps / m_cycle_ps);
    while (m_allreduce && !m_allreduce->done()) {
        m_net->run_until(m_net->now() + quantum);
        const sc_core::sc_time at = ps_time(m_net->now() * m_cycle_ps);
        if (at > sim_now()) wait(at - sim_now());
        progress();
    }
    while (m_chiplets && !m_chiplets->done()) {
        m_net->run_until(m_net->now() + quantum);
        const sc_core::sc_time at = ps_time(m_net->now() * m_cycle_ps);
        if (at > sim_now()) wait(at - sim_now());
        progress();
    }
    if (m_ops) {
        m_ops->attach(*m_net);
        while (!m_ops->done()) {
            if (m_net->idle() && m_ops->next_cycle() == std::numeric_limits<std::uint64_t>::max()) {
                throw sim_error(path() +
                                ": the chiplets' op lists cannot go on (a receive with "
                                "no matching send, or ops waiting for each other) at "
                                "cycle " +
                                std::to_string(m_net->now()) + ": " + m_ops->pending());
            }
            m_net->run_until(m_net->now() + quantum);
            const sc_core::sc_time at = ps_time(m_net->now() * m_cycle_ps);
            if (at > sim_now()) wait(at - sim_now());
            progress();
        }
        const sc_core::sc_time at = ps_time(m_ops->end_cycle() * m_cycle_ps);
        if (at > sim_now()) wait(at - sim_now());
    }
    if (m_chiplets) {
        // The backward pass may end after the last all-reduce.
        const sc_core::sc_time at = ps_time(m_chiplets->run_end() * m_cycle_ps);
        if (at > sim_now()) wait(at - sim_now());
    }
    while (m_experiment) {
        const std::uint64_t target = std::min(m_experiment->stop_cycle(), m_net->now() + quantum);
        m_net->run_until(target);
        const sc_core::sc_time at = ps_time(target * m_cycle_ps);
        if (at > sim_now()) wait(at - sim_now());
        progress();
        if (m_experiment->finished(target)) break;
    }
    m_last_cycle = m_net->now();
    m_finished = true;
    notify_finished();
}

std::string noc_interposer::pending_work() const {
    if (m_finished) return {};
    if (m_allreduce) return m_allreduce->pending() + " at cycle " + std::to_string(m_net->now());
    if (m_chiplets) return m_chiplets->pending() + " at cycle " + std::to_string(m_net->now());
    if (m_ops) return m_ops->pending() + " at cycle " + std::to_string(m_net->now());
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
    if (m_collectives->enabled()) {
        if (m_chiplets) {
            log.check(path(), "every gradient bucket all-reduced", m_chiplets->done(),
                      m_chiplets->pending());
        }
        log.check(path(), "every packet of the collective delivered", net.in_flight() == 0,
                  std::to_string(net.in_flight()) + " packet(s) in flight");
    }
    if (m_ops) {
        log.check(path(), "every op of the chiplets done", m_ops->done(), m_ops->pending());
        log.check(path(), "every message of the op lists delivered", net.in_flight() == 0,
                  std::to_string(net.in_flight()) + " packet(s) in flight");
    }
}

void noc_interposer::end_of_run() {
    const noc_network& net = *m_net;
    const network_counts& c = net.counts();
    m_latency = net.latency();
    m_net_latency = net.network_latency();
    m_hops = net.hops();
    if (m_experiment) {
        m_offered.set(m_experiment->offered_load());
        m_accepted.set(m_experiment->accepted_throughput());
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
    if (m_allreduce) {
        const double t_ns = static_cast<double>(m_allreduce->finish_cycle() * m_cycle_ps) / 1000.0;
        m_coll_time.set(t_ns);
        m_coll_throughput.set(
            t_ns > 0 ? static_cast<double>(m_collective.size.bytes) / (t_ns * 1e-9) : 0.0);
        m_coll_rounds.set(static_cast<double>(m_allreduce->rounds()));
    }
    if (m_ops) {
        m_iter_time.set(static_cast<double>(m_ops->end_cycle() * m_cycle_ps) / 1000.0);
    }
    if (m_chiplets) {
        const double ns = static_cast<double>(m_cycle_ps) / 1000.0;
        const auto iter = static_cast<double>(m_chiplets->iteration_cycles()) * ns;
        const auto compute = static_cast<double>(m_chiplets->compute_cycles()) * ns;
        m_iter_time.set(iter);
        m_compute_time.set(compute);
        m_forward_time.set(m_chiplets->forward_ns());
        m_comm_time.set(static_cast<double>(m_chiplets->communication_cycles()) * ns);
        m_exposed.set(iter - compute);
        std::uint64_t bytes = 0;
        for (const auto& b : m_chiplets->buckets()) bytes += b.bytes;
        m_grad_bytes.set(static_cast<double>(bytes));
        m_buckets_stat.set(static_cast<double>(m_chiplets->buckets().size()));
        m_pe_util.set(m_chiplets->pe_utilisation());
    }
    // Static power leaks for the execution time: the all-reduce, the training iteration, or
    // the cycles simulated (synthetic traffic).
    // With several pipelined iterations, energy is per iteration: the event counts divided by
    // the iterations, static power over the steady-state iteration.
    std::uint64_t end_cycle = net.now();
    double per_run = 1;
    if (m_allreduce) end_cycle = m_allreduce->finish_cycle();
    if (m_ops) end_cycle = m_ops->end_cycle();
    if (m_chiplets) {
        end_cycle = m_chiplets->iteration_cycles();
        per_run = static_cast<double>(m_chiplets->iterations());
    }
    const double time_ns = static_cast<double>(end_cycle * m_cycle_ps) / 1000.0;
    const noc_inventory inv = noc_inventory::of(*m_topo, static_cast<int>(m_router.vcs),
                                                static_cast<int>(m_router.vc_buffers), m_pitch.mm);
    network_counts per_iteration = c;
    if (per_run > 1) {
        const auto n = static_cast<std::uint64_t>(per_run);
        per_iteration.buffer_writes /= n;
        per_iteration.buffer_reads /= n;
        per_iteration.crossbar /= n;
        per_iteration.vc_allocations /= n;
        per_iteration.switch_allocations /= n;
        per_iteration.flit_hops /= n;
        per_iteration.bypass_flit_hops /= n;
        per_iteration.link_flit_pitches /= per_run;
    }
    const energy_totals e = energy_totals::of(
        per_iteration, m_energy, m_pitch.mm, static_cast<double>(m_flit_size.bytes) * 8,
        static_cast<double>(m_router.vcs * m_router.vc_buffers),
        m_topo->kind() == topology_kind::ARIES, inv, time_ns);
    m_e_buffer.set(e.buffer_pj);
    m_e_crossbar.set(e.crossbar_pj);
    m_e_alloc.set(e.allocation_pj);
    m_e_link_total.set(e.link_pj);
    m_e_mux.set(e.mux_pj + e.segment_switch_pj);
    m_e_dynamic.set(e.dynamic_pj());
    m_static_power.set(e.static_mw);
    m_e_static.set(e.static_pj);
    m_energy_time.set(time_ns);
    m_e_total.set(e.total_pj());
    for (std::size_t r = 0; r < m_router_flits.size(); ++r) m_router_flits[r] += net.forwarded()[r];
    const auto& channels = m_topo->channels();
    const double cycles = static_cast<double>(net.now());
    for (std::size_t ci = 0; ci < channels.size(); ++ci) {
        const double busy = static_cast<double>(net.channel_flits()[ci]) *
                            static_cast<double>(net.timing(static_cast<int>(ci)).cycles_per_flit);
        m_link_util[ci].set(cycles > 0 ? busy / cycles : 0.0);
        m_link_from[ci].set(static_cast<double>(channels[ci].src));
        m_link_to[ci].set(static_cast<double>(channels[ci].dst));
        m_link_kind[ci].set(static_cast<double>(static_cast<int>(channels[ci].kind)));
    }
}

TRAINVP_REGISTER_IP(noc_interposer, "noc.interposer");

}  // namespace trainvp::noc
