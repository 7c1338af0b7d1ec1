#include "workloads/drivers/chakra_section.h"

#include <filesystem>
#include <memory>

#include "core/error.h"
#include "workloads/chakra/trace_reader.h"
#include "workloads/collectives/collective_registry.h"
#include "workloads/drivers/host_roster.h"
#include "workloads/drivers/section_registry.h"
#include "workloads/ops/op_list.h"
#include "workloads/ops/op_source.h"

namespace trainvp::drivers {

namespace {

// The registry's algorithms that leave `r` on every rank and need no aggregator or grid (a
// trace's collective names only its group and size).
std::vector<std::string> algorithms_for(collectives::collective_result r) {
    std::vector<std::string> out;
    const auto& reg = collectives::collective_registry::global();
    for (const std::string& n : reg.names()) {
        const collectives::collective_info& i = reg.get(n);
        if (i.result != r || i.needs.aggregator || i.needs.grid || i.needs.even_grid ||
            i.needs.perfect_power) {
            continue;
        }
        // Consumers other than hosts only (multi_tree runs on the NoC and the flow fabric).
        if (!i.fabrics.empty() && !i.runs_on(collectives::fabric::HOST)) continue;
        out.push_back(n);
    }
    return out;
}

}  // namespace

void chakra_section::declare(section_decl<chakra_section>& d) {
    using collectives::collective_result;
    d.describe(
        "A job recorded as Chakra execution traces (MLCommons; ASTRA-sim's input), one per rank "
        "as PREFIX.<rank>.et, each rank's nodes mapped onto its host's ops: compute and memory "
        "nodes by their duration or their FLOPs/bytes, sends and receives, and collectives as "
        "the registry's schedules over their process group (workloads/chakra/README.md). "
        "`chakra: PREFIX` alone takes every default.");
    d.required("trace", &chakra_section::m_trace,
               "The traces' path prefix, relative to this config: rank r reads PREFIX.r.et");
    d.param("hosts", &chakra_section::m_hosts, "",
            "The ranks' hosts, rank r the r-th: a block path, a pattern with [*] (the matching "
            "blocks in config order) or a list of them; not set: every block that runs ops and "
            "has a node_id, in node-id order. Their number is the job's rank count");
    d.choice("compute", &chakra_section::m_compute,
             {{"trace", chakra::compute_where::TRACE},
              {"cpu", chakra::compute_where::CPU},
              {"gpu", chakra::compute_where::GPU}},
             "trace",
             "Where compute and memory nodes run: trace (is_cpu_op true: the host cpu, else the "
             "accelerator, host.accel), cpu or gpu (all of them)");
    d.choice_of(
        "all_reduce", &chakra_section::m_all_reduce,
        [] { return algorithms_for(collective_result::ALL_REDUCE); }, "ring",
        "The schedule of ALL_REDUCE nodes");
    d.choice_of(
        "all_gather", &chakra_section::m_all_gather,
        [] { return algorithms_for(collective_result::ALL_GATHER); }, "ring_allgather",
        "The schedule of ALL_GATHER nodes (comm_size: the gathered vector's bytes)");
    d.choice_of(
        "reduce_scatter", &chakra_section::m_reduce_scatter,
        [] { return algorithms_for(collective_result::REDUCE_SCATTER); }, "ring_reduce_scatter",
        "The schedule of REDUCE_SCATTER nodes (comm_size: the reduced vector's bytes)");
    d.choice_of(
        "all_to_all", &chakra_section::m_all_to_all,
        [] { return algorithms_for(collective_result::ALL_TO_ALL); }, "direct_all_to_all",
        "The schedule of ALL_TO_ALL nodes (comm_size: a rank's send buffer, a multiple of 4 x "
        "the group's size)");
    d.choice_of(
        "broadcast", &chakra_section::m_broadcast,
        [] { return algorithms_for(collective_result::BROADCAST); }, "binomial_broadcast",
        "The schedule of BROADCAST nodes (root: the node's `root` attribute, a group rank; "
        "default 0)");
    d.choice_of(
        "reduce", &chakra_section::m_reduce,
        [] { return algorithms_for(collective_result::REDUCE); }, "binomial_reduce",
        "The schedule of REDUCE nodes (root as broadcast)");
}

std::optional<int> chakra_section::hand_out(const config_node& node, const hand_out_context& ctx) {
    namespace fs = std::filesystem;
    const std::string base = "workload." + ctx.section.name;
    const config_node* trace_node = &node;
    if (node.is_map()) {
        read_params(*this, node, ctx);
        trace_node = node.find("trace");
    } else if (node.is_scalar()) {
        m_trace = node.scalar();
    } else {
        throw input_error(node.loc(), base,
                          "expected the traces' path prefix or a map of the section's params");
    }
    const std::string trace_key = node.is_map() ? base + ".trace" : base;
    if (m_trace.empty()) throw input_error(trace_node->loc(), trace_key, "an empty path prefix");

    // The hosts, rank r the r-th.
    const std::vector<host> hosts =
        host_roster(ctx.platform)
            .ranks(node.is_map() ? node.find("hosts") : nullptr, node.loc(), base + ".hosts");
    const int world = static_cast<int>(hosts.size());

    // The traces: PREFIX.0.et .. PREFIX.<world-1>.et, relative to the config, and no more.
    fs::path prefix(m_trace);
    std::error_code ec;
    const std::string& cfg = trace_node->loc().file;
    if (prefix.is_relative() && fs::is_regular_file(cfg, ec)) {
        prefix = fs::path(cfg).parent_path() / prefix;
    }
    auto file_of = [&](int r) { return prefix.string() + "." + std::to_string(r) + ".et"; };
    std::vector<chakra::et_trace> traces;
    for (int r = 0; r < world; ++r) {
        if (!fs::is_regular_file(file_of(r), ec)) {
            throw input_error(trace_node->loc(), trace_key,
                              "no trace " + file_of(r) + " for rank " + std::to_string(r) + " of " +
                                  std::to_string(world) + " (one per host)");
        }
        traces.push_back(chakra::trace_reader::read_file(file_of(r), file_of(r), r, world));
    }
    if (fs::exists(file_of(world), ec)) {
        throw input_error(trace_node->loc(), trace_key,
                          "there is a trace " + file_of(world) + " but only " +
                              std::to_string(world) + " hosts: the job has more ranks than hosts");
    }

    chakra::trace_ops_options o;
    o.compute = m_compute;
    o.names = ctx.op_names;
    o.algorithms = {
        {chakra::coll_type::ALL_REDUCE, m_all_reduce},
        {chakra::coll_type::REDUCE, m_reduce},
        {chakra::coll_type::ALL_GATHER, m_all_gather},
        {chakra::coll_type::BROADCAST, m_broadcast},
        {chakra::coll_type::ALL_TO_ALL, m_all_to_all},
        {chakra::coll_type::REDUCE_SCATTER, m_reduce_scatter},
    };
    std::vector<std::uint32_t> ids;
    for (const host& h : hosts) ids.push_back(h.node_id);
    const chakra::trace_ops job(std::move(traces), ids, o);
    for (int r = 0; r < world; ++r) {
        hosts[static_cast<std::size_t>(r)].sink->accept_source(
            std::make_unique<ops::list_source>(ops::op_list(job.rank_ops(r))), node.loc(), base);
    }
    // A trace is one iteration (the run summary reports its time as the iteration time).
    return 1;
}

TRAINVP_REGISTER_WORKLOAD(chakra_section, "chakra");

}  // namespace trainvp::drivers
