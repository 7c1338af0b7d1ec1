// noc.interposer: the chiplet interposer NoC as one SystemC block.  It builds the topology
// and route table from its params, rejects a routing set-up whose channel dependency graph
// has a cycle, and advances the flit-level noc_network (plain C++) in step with simulated
// time, one simulation quantum at a time.  With `injection_rate` > 0 it runs the standard
// uniform-random experiment (warm-up, measurement window, drain) as a driver.
#pragma once

#include <memory>

#include "noc/chiplet/training_traffic.h"
#include "noc/collective/collective_traffic.h"
#include "noc/energy/noc_energy.h"
#include "noc/network/noc_network.h"
#include "noc/topology/route_table.h"
#include "noc/traffic/uniform_traffic.h"
#include "kit/ip_module.h"
#include "traces/traced_level.h"

namespace trainvp::noc {

class noc_interposer : public ip_module {
public:
    noc_interposer(const sc_core::sc_module_name& name, const params& p);
    ~noc_interposer() override;
    static void declare(type_decl<noc_interposer>& d);

    bool is_driver() const override { return true; }
    bool finished() const override { return m_finished; }
    std::string pending_work() const override;
    void end_of_run() override;
    void audit(audit_log& log) const override;

    const noc_network& network() const { return *m_net; }

private:
    enum class routing { XY, YX };
    enum class collective {
        NONE,
        RING,
        RING_2D,
        HIERARCHICAL_RING,
        DOUBLE_BINARY_TREE,
        MULTI_TREE,
        CONCENTRATED_MULTI_TREE
    };
    enum class mapping { AUTO, ROW_MAJOR, RING };
    enum class bypass_plan { MANUAL, BANDWIDTH_RING, TREE };
    enum class granularity { FLIT, MESSAGE };
    collectives::schedule collective_schedule(const params& p) const;
    std::vector<int> collective_mapping(const params& p) const;
    void make_collective(const params& p);
    collectives::schedule build_schedule(std::uint64_t elements) const;  // invalid_argument
    std::unique_ptr<collective_traffic> make_traffic(const collectives::schedule& s) const;
    void make_training(const params& p);
    void run();
    std::vector<bypass_segment> parse_bypass(const params& p) const;

    // Params.
    topology_kind m_kind = topology_kind::MESH;
    std::uint64_t m_size = 4;
    routing m_routing = routing::XY;
    bool m_dateline = true;
    std::string m_bypass;
    std::uint64_t m_vcs = 4, m_buffers = 32, m_stages = 2;
    units::frequency m_frequency;
    units::duration m_link_latency;
    units::bandwidth m_link_bandwidth;
    units::data_size m_flit_size;
    std::uint64_t m_packet_flits = 8;
    double m_rate = 0;
    std::uint64_t m_warmup = 0, m_measure = 0, m_drain = 0;
    double m_e_buffer_write = 0, m_e_buffer_read = 0, m_e_crossbar_bit = 0, m_e_allocation = 0;
    double m_e_link = 0, m_pitch_mm = 0;
    energy_params m_energy;
    collective m_collective = collective::NONE;
    units::data_size m_collective_size;
    std::uint64_t m_levels = 2, m_trees = 0, m_degree = 2;
    mapping m_mapping = mapping::AUTO;
    bypass_plan m_plan = bypass_plan::MANUAL;
    std::uint64_t m_local_width = 1;
    granularity m_granularity = granularity::FLIT;
    std::string m_workload_model;
    bool m_allreduce_embeddings = true;
    std::uint64_t m_batch = 64, m_pes = 16, m_pe_array = 32;
    units::data_size m_bucket, m_pe_buffer, m_global_buffer;
    units::frequency m_pe_frequency;
    units::bandwidth m_dram_bandwidth;
    double m_vector_flops = 32;

    // Model.
    std::unique_ptr<noc_topology> m_topo;
    route_table m_routes;
    std::unique_ptr<noc_network> m_net;
    std::unique_ptr<uniform_traffic> m_traffic;
    std::unique_ptr<collective_traffic> m_coll;
    std::unique_ptr<training_traffic> m_training;
    std::vector<int> m_rank_router;  // router of each rank of the collective
    double m_pe_util_value = 1, m_forward_ns = 0;
    std::uint64_t m_cycle_ps = 1000;
    bool m_finished = false;
    std::uint64_t m_last_cycle = 0;

    // Statistics.
    distribution m_latency, m_net_latency, m_hops;
    scalar m_offered, m_accepted, m_saturated, m_cycles;
    counter m_created, m_delivered, m_flits, m_flit_hops, m_unfinished;
    counter m_buffer_writes, m_buffer_reads, m_crossbar, m_va, m_sa;
    scalar m_e_buffer, m_e_crossbar, m_e_alloc, m_e_link_total, m_e_total;
    std::vector<counter> m_router_flits;
    scalar m_coll_time, m_coll_throughput, m_coll_rounds, m_channels_used, m_segments;
    scalar m_iter_time, m_compute_time, m_forward_time, m_comm_time, m_exposed, m_grad_bytes;
    scalar m_buckets_stat, m_pe_util;
    std::vector<traced_level> m_occupancy;
    std::vector<traced_level> m_mux;
};

}  // namespace trainvp::noc
