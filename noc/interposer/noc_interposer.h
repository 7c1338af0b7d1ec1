// noc.interposer: the chiplet interposer NoC as one SystemC block.  It builds the topology
// and route table from its params, rejects a routing set-up whose channel dependency graph
// has a cycle, and advances the flit-level noc_network (plain C++) in step with simulated
// time, one simulation quantum at a time.  What drives the network is composed from the
// block's sub-maps: the uniform-random experiment (`traffic:`, noc/traffic/uniform_experiment),
// one all-reduce (`collective:`, noc/collective/noc_collective), or, handed a training plan by
// the `chiplet_training` workload section (chiplet_training_sink), a training iteration whose
// gradient buckets it all-reduces with `collective` when the plan says so (noc/chiplet), or,
// handed op lists for its chiplets (workload.ops / workload.chakra / workload.training naming
// noc.chiplet[c]: workload_units), those ops on the chiplets' PE arrays and the network
// (chiplet_op_runner).
#pragma once

#include <memory>

#include "kit/ip_module.h"
#include "noc/chiplet/chiplet_compute_params.h"
#include "noc/chiplet/chiplet_training.h"
#include "noc/collective/collective_traffic.h"
#include "noc/collective/noc_collective.h"
#include "noc/energy/energy_params.h"
#include "noc/interposer/chiplet_op_runner.h"
#include "noc/interposer/chiplet_sink.h"
#include "noc/network/noc_network.h"
#include "noc/router/router_params.h"
#include "noc/topology/bypass_params.h"
#include "noc/topology/route_table.h"
#include "noc/traffic/uniform_experiment.h"
#include "traces/traced_level.h"
#include "workloads/drivers/chiplet_training_sink.h"
#include "workloads/drivers/workload_units.h"

namespace trainvp::noc {

class noc_interposer : public ip_module, public chiplet_training_sink, public workload_units {
public:
    noc_interposer(const sc_core::sc_module_name& name, const params& p);
    ~noc_interposer() override;
    static void declare(type_decl<noc_interposer>& d);

    bool is_driver() const override { return true; }
    bool finished() const override { return m_finished; }
    std::string pending_work() const override;
    void end_of_run() override;
    void audit(audit_log& log) const override;
    // The chiplets' written-out op lists (chiplet_op_runner::declare_messages).
    void declare_messages(ops::message_pairing& pairs) const override;
    message_site site_of_message(std::size_t index, const char* field) const override;

    const noc_network& network() const { return *m_net; }

    // chiplet_training_sink: the package is the size x size chiplets at the NoC's cycle.
    package chiplet_package() const override;
    void accept_training(std::unique_ptr<chiplet_training> plan, const source_loc& where,
                         const std::string& key) override;
    // workload_units: chiplet c as noc.chiplet[c], node id c.
    std::vector<unit> units() override;

private:
    enum class routing { XY, YX };
    enum class granularity { FLIT, MESSAGE };
    enum class cost_basis { EQUAL_WIDTH, EQUAL_BISECTION };
    void build_topology(const params& p);
    collectives::schedule collective_schedule(const params& p) const;
    std::vector<int> collective_mapping(const params& p) const;
    std::unique_ptr<collective_traffic> make_traffic(const collectives::schedule& s) const;
    void make_collective(const params& p);
    void run();
    void take_ops(int chiplet, std::unique_ptr<ops::op_source> src, const source_loc& where,
                  const std::string& key, const config_node* given);
    workloads::host_run chiplet_ran(int chiplet);

    // Params (each key is the member's name without m_).
    topology_kind m_topology = topology_kind::MESH;
    std::uint64_t m_size = 4;
    routing m_routing = routing::XY;
    bool m_dateline = true;
    units::frequency m_clock;
    units::duration m_link_latency;
    units::bandwidth m_link_bandwidth;
    units::data_size m_flit_size;
    std::uint64_t m_packet_size = 8;
    units::length m_pitch;
    granularity m_granularity = granularity::FLIT;
    cost_basis m_cost_basis = cost_basis::EQUAL_WIDTH;
    router_params m_router;
    uniform_experiment::settings m_traffic;
    noc_collective::settings m_collective;
    bypass_params m_bypass;
    energy_params m_energy;
    chiplet_compute_params m_chiplet;

    // Model.
    std::unique_ptr<noc_topology> m_topo;
    route_table m_routes;
    std::unique_ptr<noc_network> m_net;
    std::unique_ptr<noc_collective> m_collectives;
    std::unique_ptr<uniform_experiment> m_experiment;
    std::unique_ptr<collective_traffic> m_allreduce;
    std::unique_ptr<chiplet_training> m_chiplets;  // the training iteration, if handed one
    std::unique_ptr<chiplet_op_runner> m_ops;      // the chiplets' op lists, if handed any
    std::vector<std::unique_ptr<chiplet_sink>> m_chiplet_sinks;
    source_loc m_where;              // the block's config entry, for messages
    std::vector<int> m_rank_router;  // router of each rank of the collective
    std::uint64_t m_cycle_ps = 1000;
    bool m_finished = false;
    std::uint64_t m_last_cycle = 0;

    // Statistics.
    distribution m_latency, m_net_latency, m_hops;
    scalar m_offered, m_accepted, m_saturated, m_cycles;
    counter m_created, m_delivered, m_flits, m_flit_hops, m_unfinished;
    counter m_buffer_writes, m_buffer_reads, m_crossbar, m_va, m_sa;
    scalar m_e_buffer, m_e_crossbar, m_e_alloc, m_e_link_total, m_e_total;
    scalar m_e_mux, m_e_dynamic, m_static_power, m_e_static, m_energy_time;
    std::vector<counter> m_router_flits;
    std::vector<scalar> m_link_util, m_link_from, m_link_to, m_link_kind;
    scalar m_coll_time, m_coll_throughput, m_coll_rounds, m_channels_used, m_segments;
    scalar m_iter_time, m_compute_time, m_forward_time, m_comm_time, m_exposed, m_grad_bytes;
    scalar m_buckets_stat, m_pe_util, m_bisection, m_width_factor;
    std::vector<traced_level> m_occupancy;
    std::vector<traced_level> m_mux;
};

}  // namespace trainvp::noc
