#include "ip/fabric/flow_fabric.h"

#include <algorithm>
#include <cmath>

#include "kit/registry.h"
#include "kit/resource_usage.h"
#include "kit/sim_time.h"
#include "workloads/collectives/collective_registry.h"

namespace trainvp::ip {

void flow_fabric::declare(type_decl<flow_fabric>& d) {
    d.describe(
        "Flow-level cluster network: every NIC serialiser, link and switch of a cluster in one "
        "block (simulation granularity `flow`). A host's SEND on host[i] becomes a flow of the "
        "message's wire bytes (frames with headers, FCS, preamble and gap: the framing params) "
        "over its route; flows share every link max-min fairly, at most at the host's pace "
        "(stack.send_rate). The sender's SEND_DONE comes when the fluid transfer ends, the "
        "receiver's RECEIVED one route latency (propagation on each link, each switch's "
        "latency) plus one frame's store-and-forward per switch later. Endpoint i is node i. "
        "No DMA, PCIe or host memory traffic: use packet or message granularity for those");
    d.choice("topology", &flow_fabric::m_kind,
             {{"single_switch", fabric::topology_kind::SINGLE_SWITCH},
              {"leaf_spine", fabric::topology_kind::LEAF_SPINE},
              {"fat_tree", fabric::topology_kind::FAT_TREE},
              {"rail_optimised", fabric::topology_kind::RAIL_OPTIMISED}},
             "single_switch",
             "single_switch: every endpoint on one non-blocking switch; leaf_spine: "
             "hosts_per_leaf endpoints per leaf switch, every leaf linked to each of `spines` "
             "spine switches; fat_tree: three tiers of k-port switches (pods of k/2 leaves and "
             "k/2 aggregation switches, (k/2)^2 cores); rail_optimised: hosts of `rails` NICs, "
             "rail r of hosts_per_leaf hosts on one leaf, leaves linked to `spines` spines "
             "(fabric/topology/fabric_topology.h)");
    d.required("endpoints", &flow_fabric::m_endpoints,
               "Endpoints (NICs); host[i] and notify[i] are endpoint i's")
        .range("2", "1048576");
    d.param("rate", &flow_fabric::m_rate, "10Gb/s",
            "Line rate of each endpoint's NIC and link, both directions (the NIC serialises at "
            "it)")
        .range("1Mb/s", "1.6Tb/s");
    d.param("uplink_rate", &flow_fabric::m_uplink_rate, "0Gb/s",
            "leaf_spine, rail_optimised, fat_tree: rate of each leaf-spine (leaf-aggregation) "
            "link, each direction (0: from `oversubscription`, else the endpoints' rate)")
        .range("0Gb/s", "1.6Tb/s");
    d.param("oversubscription", &flow_fabric::m_oversubscription, "0",
            "leaf_spine, rail_optimised: a leaf's downlink to uplink capacity, hosts_per_leaf x "
            "rate / (spines x uplink_rate), e.g. 2 for 2:1; sets uplink_rate (give one of the "
            "two; 0: not set)")
        .range("0", "1000");
    d.param("core_rate", &flow_fabric::m_core_rate, "0Gb/s",
            "fat_tree: rate of each aggregation-core link, each direction (0: uplink_rate)")
        .range("0Gb/s", "1.6Tb/s");
    d.param("hosts_per_leaf", &flow_fabric::m_hosts_per_leaf, "0",
            "leaf_spine, fat_tree: endpoints under each leaf switch (must divide endpoints; "
            "fat_tree: k/2 for full bisection, 0 = k/2); rail_optimised: hosts per leaf group")
        .range("0", "1048576");
    d.param("spines", &flow_fabric::m_spines, "0", "leaf_spine, rail_optimised: spine switches")
        .range("0", "65536");
    d.param("k", &flow_fabric::m_k, "0",
            "fat_tree: ports per switch (even); up to k pods of k/2 leaves, k^3/4 endpoints at "
            "hosts_per_leaf = k/2")
        .range("0", "1024");
    d.param("rails", &flow_fabric::m_rails, "1",
            "rail_optimised: NICs per host (endpoint = host x rails + rail)")
        .range("1", "64");
    d.choice("ecmp", &flow_fabric::m_ecmp,
             {{"hash", fabric::ecmp_rule::HASH},
              {"fixed", fabric::ecmp_rule::FIXED},
              {"dest_mod", fabric::ecmp_rule::DEST_MOD}},
             "hash",
             "Which of equal paths a flow between leaves takes (spine, aggregation switch, "
             "core): a deterministic hash of (source, destination, message), message id mod "
             "the choices (fixed), or D-mod-k (dest_mod: destination mod the choices at the "
             "leaf, destination / (k/2) mod k/2 at the aggregation switch, InfiniBand's "
             "fat-tree routing)");
    d.choice_of(
        "collective", &flow_fabric::m_collective,
        [] {
            return collectives::collective_registry::global().names_for(collectives::fabric::FLOW);
        },
        "ring",
        "The all-reduce an allreduce op handed over whole runs (workload.training `offload: "
        "true` with this algorithm): its schedule from workloads/collectives over the ranks "
        "of rank_order, in the fabric's own loop");
    d.choice("rank_order", &flow_fabric::m_rank_order,
             {{"endpoints", rank_order::ENDPOINTS}, {"by_leaf", rank_order::BY_LEAF}}, "endpoints",
             "Which endpoint each rank of a collective handed over is: endpoints (rank i = "
             "endpoint i) or by_leaf (the endpoints leaf by leaf, so that a ring's neighbours "
             "share a leaf: the topology-aware order, e.g. across the rails of "
             "rail_optimised)");
    d.param("group", &flow_fabric::m_group, "0",
            "Grid collectives (ring_2d, concentrated_multi_tree): ranks per row, the first "
            "level's group (0: the topology's endpoints per leaf, one switch's hosts; "
            "single_switch: the whole-number square root)")
        .range("0", "1048576");
    d.param("levels", &flow_fabric::m_levels, "0",
            "hierarchical_ring: levels of equal size endpoints^(1/levels), or 0: one level per "
            "tier of the topology (a leaf's endpoints, a pod's leaves, the pods; with rank_order "
            "by_leaf), the topology-aware hierarchical ring")
        .range("0", "8");
    d.choice("nic_order", &flow_fabric::m_nic_order,
             {{"fifo", nic_order::FIFO}, {"fair", nic_order::FAIR}}, "fifo",
             "How an endpoint's NIC serves the messages it has to send: fifo (one after "
             "another in the order posted, as nic.basic's transmit queue does at packet and "
             "message level) or fair (all at once, sharing the line rate max-min fairly like "
             "the other links: a NIC with a queue per connection)");
    d.param("reduce_rate", &flow_fabric::m_reduce_rate, "0GB/s",
            "Bytes per second an endpoint adds a received block into its own (a collective's "
            "reduction; 0 = free). A host's memory-bound sum reads two blocks and writes one: "
            "about its memory bandwidth / 3")
        .range("0GB/s", "100TB/s");
    d.param("propagation", &flow_fabric::m_propagation, "10ns",
            "Propagation delay of each endpoint's link (ethernet.link's default: ~2 m of "
            "cable)")
        .range("0ns", "1s");
    d.param("uplink_propagation", &flow_fabric::m_uplink_propagation, "",
            "Propagation delay of each leaf-spine (leaf-aggregation) link; not set: propagation")
        .range("0ns", "1s");
    d.param("core_propagation", &flow_fabric::m_core_propagation, "",
            "fat_tree: propagation delay of each aggregation-core link; not set: "
            "uplink_propagation")
        .range("0ns", "1s");
    d.param("switch_latency", &flow_fabric::m_switch_latency, "1us",
            "Port-to-port latency of each switch (ethernet.switch's default `latency`, a "
            "typical 10 GbE store-and-forward switch)")
        .range("0ns", "1ms");
    framing::declare(d, framing::spec::tcp_nic());
    d.target("host", &flow_fabric::host, "nic", "Node i's SEND requests (its host's `nic`)");
    d.initiator("notify", &flow_fabric::notify, "nic",
                "Node i's notifications: SEND_DONE and RECEIVED (its host's `nic_notify`)");
    d.headline("messages", &flow_fabric::m_msgs, "1", "Messages delivered");
    d.stat("payload_bytes", &flow_fabric::m_bytes, "B", "Payload bytes delivered");
    d.stat("wire_bytes", &flow_fabric::m_wire_bytes, "B",
           "Wire bytes delivered (payload, headers, FCS, preamble and gap)");
    d.stat("sent_bytes", &flow_fabric::m_sent_bytes, "B", "Per endpoint: payload bytes sent");
    d.stat("received_bytes", &flow_fabric::m_received_bytes, "B",
           "Per endpoint: payload bytes received");
    d.stat("max_flows", &flow_fabric::m_max_flows, "1", "Most flows in the fabric at once");
    d.stat("collectives", &flow_fabric::m_collectives_done, "1",
           "Allreduce ops answered (one per endpoint per collective handed over)");
    d.stat("collective_flows", &flow_fabric::m_collective_flows, "1",
           "Messages the collectives handed over sent inside the fabric");
    d.stat("up_utilisation", &flow_fabric::m_up_utilisation, "1",
           "Per endpoint: wire bytes on its uplink / (rate x the run's time)");
    d.stat("down_utilisation", &flow_fabric::m_down_utilisation, "1",
           "Per endpoint: wire bytes on its downlink / (rate x the run's time)");
    d.stat("busiest_link", &flow_fabric::m_busiest_link, "1",
           "Utilisation of the busiest link of the topology over the run");
}

flow_fabric::flow_fabric(const sc_core::sc_module_name& name, const params& p)
    : ip_module(name, p) {
    p.apply(*this);
    check(p, path());
    if (ctx().settings().grain != granularity::FLOW) {
        throw input_error(p.where(), path(),
                          "fabric.flow models the cluster network at flow level: set "
                          "`simulation: {granularity: flow}` (or use NICs, links and switches "
                          "for packet or message level)");
    }
    m_topo = make_topology(p);
    m_engine = std::make_unique<fabric::flow_engine>(m_topo->capacities());
    plan_collective(p);
    const std::size_t n = m_endpoints;
    host.init(n);
    notify.init(n);
    for (std::size_t i = 0; i < n; ++i) {
        host[i].register_b_transport(this, &flow_fabric::host_b_transport, static_cast<int>(i));
    }
    m_sent_bytes.resize(n);
    m_received_bytes.resize(n);
    m_tx.resize(n);
    m_tx_busy.assign(n, false);
    m_up_utilisation.resize(n);
    m_down_utilisation.resize(n);
    start_engine(m_step, [this] { step(); });
}

flow_fabric::~flow_fabric() { m_notify_trans.clear_extension<nic_msg_ext>(); }

void flow_fabric::plan_collective(const params& p) {
    auto refuse = [&](const std::string& key, const std::string& why) -> input_error {
        const config_node* v = p.find(key);
        if (v == nullptr) v = p.find("collective");
        return input_error(v ? v->loc() : p.where(), path() + "." + key, why);
    };
    const auto n = static_cast<std::uint32_t>(m_endpoints);
    m_endpoint_of_rank.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) m_endpoint_of_rank[i] = i;
    if (m_rank_order == rank_order::BY_LEAF) m_endpoint_of_rank = m_topo->by_leaf();
    m_rank_of_endpoint.resize(n);
    for (std::uint32_t r = 0; r < n; ++r) m_rank_of_endpoint[m_endpoint_of_rank[r]] = r;

    m_args.ranks = static_cast<int>(n);
    m_args.levels = static_cast<int>(m_levels);
    if (m_levels == 0) {
        m_args.levels = 1;
        m_args.group_sizes = m_topo->tiers();
    }
    std::uint64_t g = m_group;
    if (g == 0 && m_kind != fabric::topology_kind::SINGLE_SWITCH) {
        g = m_endpoints / m_topo->leaves();
    } else if (g == 0) {
        g = static_cast<std::uint64_t>(std::llround(std::sqrt(static_cast<double>(n))));
    }
    const collectives::collective_info* info =
        collectives::collective_registry::global().find(m_collective);
    // Only grid collectives use the group; a default that does not divide the endpoints is
    // then one row, as a collective that ignores it never reads it.
    const bool grid_collective = info != nullptr && (info->needs.grid || info->needs.even_grid);
    if (m_group == 0 && !grid_collective && (g == 0 || m_endpoints % g != 0)) g = m_endpoints;
    if (g == 0 || m_endpoints % g != 0) {
        throw refuse("group", "a group of " + std::to_string(g) + " ranks does not divide the " +
                                  std::to_string(m_endpoints) + " endpoints");
    }
    m_args.cols = static_cast<int>(g);
    m_args.rows = static_cast<int>(m_endpoints / g);
    if (info != nullptr && info->needs.aggregator) {
        throw refuse("collective", "'" + m_collective +
                                       "' needs an aggregator rank; the fabric runs all-reduces "
                                       "among its endpoints");
    }
    try {
        collectives::collective_registry::global().check(m_collective, m_args);
    } catch (const std::invalid_argument& e) {
        throw refuse(grid_collective                                ? "group"
                     : info != nullptr && info->needs.perfect_power ? "levels"
                                                                    : "collective",
                     std::string("the collective cannot run on these endpoints: ") + e.what());
    }
}

std::unique_ptr<fabric::fabric_topology> flow_fabric::make_topology(const params& p) const {
    using fabric::topology_kind;
    // An impossible topology is located at the key that shapes it.
    auto refuse = [&](const std::string& key, const std::string& why) -> input_error {
        const config_node* v = p.find(key);
        if (v == nullptr) v = p.find("topology");
        return input_error(v ? v->loc() : p.where(), path() + "." + key,
                           "impossible topology: " + why);
    };
    fabric::topology_spec s;
    s.kind = m_kind;
    s.endpoints = static_cast<std::uint32_t>(m_endpoints);
    s.host_rate = m_rate.bytes_per_s;
    s.hosts_per_leaf = static_cast<std::uint32_t>(m_hosts_per_leaf);
    s.spines = static_cast<std::uint32_t>(m_spines);
    s.k = static_cast<std::uint32_t>(m_k);
    s.rails = static_cast<std::uint32_t>(m_rails);
    if (m_kind == topology_kind::FAT_TREE && s.hosts_per_leaf == 0) s.hosts_per_leaf = s.k / 2;
    s.uplink_rate = m_uplink_rate.bytes_per_s > 0 ? m_uplink_rate.bytes_per_s : s.host_rate;
    if (m_oversubscription > 0) {
        if (m_kind != topology_kind::LEAF_SPINE && m_kind != topology_kind::RAIL_OPTIMISED) {
            throw refuse("oversubscription", "only leaf_spine and rail_optimised take it");
        }
        if (m_uplink_rate.bytes_per_s > 0) {
            throw refuse("oversubscription", "give uplink_rate or oversubscription, not both");
        }
        if (s.spines == 0) throw refuse("spines", "leaf_spine needs spines >= 1");
        s.uplink_rate = s.hosts_per_leaf * s.host_rate / (s.spines * m_oversubscription);
    }
    s.core_rate = m_core_rate.bytes_per_s > 0 ? m_core_rate.bytes_per_s : s.uplink_rate;
    s.propagation_ps = m_propagation.ps;
    s.uplink_propagation_ps =
        p.find("uplink_propagation") != nullptr ? m_uplink_propagation.ps : s.propagation_ps;
    s.core_propagation_ps =
        p.find("core_propagation") != nullptr ? m_core_propagation.ps : s.uplink_propagation_ps;
    s.switch_latency_ps = m_switch_latency.ps;
    s.ecmp = m_ecmp;
    try {
        return std::make_unique<fabric::fabric_topology>(s);
    } catch (const std::invalid_argument& e) {
        const char* key = m_kind == topology_kind::SINGLE_SWITCH ? "endpoints"
                          : m_kind == topology_kind::FAT_TREE    ? "k"
                                                                 : "hosts_per_leaf";
        throw refuse(key, e.what());
    }
}

void flow_fabric::host_b_transport(int port, tlm::tlm_generic_payload& trans,
                                   sc_core::sc_time& delay) {
    nic_msg_ext* ext = nullptr;
    trans.get_extension(ext);
    if (ext != nullptr && ext->what == nic_msg_ext::op::ALLREDUCE) {
        post_allreduce(static_cast<std::uint32_t>(port), *ext, (sim_now() + delay).value());
        m_step.wake_by(delay);
        trans.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (ext == nullptr || ext->what != nic_msg_ext::op::SEND) {
        trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    const auto src = static_cast<std::uint32_t>(port);
    if (ext->peer >= m_endpoints || ext->peer == src) {
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    std::uint32_t slot;
    if (!m_free_slots.empty()) {
        slot = m_free_slots.back();
        m_free_slots.pop_back();
    } else {
        slot = static_cast<std::uint32_t>(m_messages.size());
        m_messages.emplace_back();
    }
    message& m = m_messages[slot];
    m.src = src;
    m.dst = ext->peer;
    m.desc = *ext;
    m.posted = (sim_now() + delay).value();
    m.wire = transfer_wire(ext->bytes);
    m.first_frame_ps = m_rate.transfer_time(frame_wire(std::min(ext->bytes, frame_payload()))).ps;
    m.order = m_next_order++;
    m_pending.push({m.posted, m.order, slot});
    m_step.wake_by(delay);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

void flow_fabric::transmit(std::uint32_t e, std::uint64_t tag) {
    if (m_nic_order == nic_order::FIFO) {
        if (m_tx_busy[e]) {
            m_tx[e].push_back(tag);
            return;
        }
        m_tx_busy[e] = true;
    }
    launch(tag);
}

void flow_fabric::transmitted(std::uint32_t e) {
    if (m_nic_order != nic_order::FIFO) return;
    m_tx_busy[e] = false;
    if (m_tx[e].empty()) return;
    const std::uint64_t next = m_tx[e].front();
    m_tx[e].pop_front();
    m_tx_busy[e] = true;
    launch(next);
}

void flow_fabric::launch(std::uint64_t tag) {
    if (tag & k_collective_flow) {
        const collective_flow& cf =
            m_coll_flows[static_cast<std::uint32_t>(tag & ~k_collective_flow)];
        m_topo->route(m_endpoint_of_rank[cf.src], m_endpoint_of_rank[cf.dst],
                      (std::uint64_t{cf.tag} << 32) | cf.step_tag, m_route);
        m_engine->add(tag, static_cast<double>(cf.wire), m_route);
    } else {
        start(static_cast<std::uint32_t>(tag));
    }
    m_max_flows.set(std::max(m_max_flows.value(), static_cast<double>(m_engine->active())));
}

void flow_fabric::start(std::uint32_t slot) {
    message& m = m_messages[slot];
    m.started = static_cast<std::uint64_t>(m_engine->now());
    m_topo->route(m.src, m.dst, m.desc.msg_id, m_route);
    // The host's pace is on payload bytes; the flow moves wire bytes.
    double cap = 0.0;
    if (m.desc.pace_bytes_per_s > 0.0 && m.desc.bytes > 0) {
        cap = m.desc.pace_bytes_per_s * static_cast<double>(m.wire) /
              static_cast<double>(m.desc.bytes);
    }
    m_engine->add(slot, static_cast<double>(m.wire), m_route, cap);
}

void flow_fabric::notify_host(std::uint32_t port, nic_msg_ext& ext, std::uint64_t at_ps) {
    tlm::tlm_generic_payload& trans = m_notify_trans;
    trans.set_command(tlm::TLM_WRITE_COMMAND);
    trans.set_data_ptr(nullptr);
    trans.set_data_length(0);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    trans.set_extension(&ext);
    const std::uint64_t now = sim_now().value();
    sc_core::sc_time delay = ps_time(at_ps > now ? at_ps - now : 0);
    notify[port]->b_transport(trans, delay);
    trans.clear_extension(&ext);
    if (trans.is_response_error()) {
        throw sim_error(path() + ": notify[" + std::to_string(port) +
                        "] refused a notification: " + trans.get_response_string());
    }
}

void flow_fabric::finish(std::uint32_t slot, std::uint64_t at_ps) {
    // A copy: a host may send again from within a notification, and m_messages may grow.
    message m = std::move(m_messages[slot]);
    m_messages[slot].desc.data.reset();
    // The last byte leaves the sender now; the receiver has it one route latency later, plus
    // a frame's store-and-forward per switch; its first byte landed that latency after the
    // start plus the first frame.
    const std::uint64_t sw = m_topo->switches(m.src, m.dst);
    const std::uint64_t tail = m_topo->latency_ps(m.src, m.dst) + sw * m.first_frame_ps;
    nic_msg_ext done;
    done.what = nic_msg_ext::op::SEND_DONE;
    done.peer = m.dst;
    done.bytes = m.desc.bytes;
    done.msg_id = m.desc.msg_id;
    done.tag = m.desc.tag;
    done.host_addr = m.desc.host_addr;
    notify_host(m.src, done, at_ps);
    nic_msg_ext got;
    got.what = nic_msg_ext::op::RECEIVED;
    got.peer = m.src;
    got.bytes = m.desc.bytes;
    got.msg_id = m.desc.msg_id;
    got.tag = m.desc.tag;
    got.host_addr = m.desc.host_addr;
    got.data = m.desc.data;
    got.first_ps = std::min(at_ps, m.started + m.first_frame_ps) + tail;
    notify_host(m.dst, got, at_ps + tail);
    ++m_msgs;
    m_bytes += m.desc.bytes;
    m_wire_bytes += m.wire;
    m_sent_bytes[m.src] += m.desc.bytes;
    m_received_bytes[m.dst] += m.desc.bytes;
    m_free_slots.push_back(slot);
    transmitted(m.src);
}

double flow_fabric::run_due(std::uint64_t now) {
    for (;;) {
        // Finished flows first (their links free up for what starts now).
        m_finished.clear();
        m_engine->advance(static_cast<double>(now), m_finished);
        for (std::uint64_t tag : m_finished) {
            if (tag & k_collective_flow) {
                collective_flow_done(static_cast<std::uint32_t>(tag & ~k_collective_flow), now);
            } else {
                finish(static_cast<std::uint32_t>(tag), now);
            }
        }
        bool ran = !m_finished.empty();
        while (!m_timed.empty() && m_timed.top().at <= now) {
            const timed t = m_timed.top();
            m_timed.pop();
            ran = true;
            switch (t.kind) {
                case timed_kind::START:
                case timed_kind::ROUND_DONE:
                    begin_round(t.tag, t.rank, now);
                    break;
                case timed_kind::ARRIVE:
                    arrive(t.tag, t.rank, t.key, now);
                    break;
            }
        }
        while (!m_pending.empty() && m_pending.top().at <= now) {
            const std::uint32_t slot = m_pending.top().slot;
            m_pending.pop();
            transmit(m_messages[slot].src, slot);
            ran = true;
        }
        if (!ran) break;
    }
    double next = m_engine->next_finish();
    if (!m_pending.empty()) next = std::min(next, static_cast<double>(m_pending.top().at));
    if (!m_timed.empty()) next = std::min(next, static_cast<double>(m_timed.top().at));
    return next;
}

void flow_fabric::push_timed(std::uint64_t at, timed_kind k, std::uint32_t tag, std::uint32_t rank,
                             std::uint64_t key) {
    m_timed.push({at, m_next_order++, k, tag, rank, key});
}

void flow_fabric::post_allreduce(std::uint32_t port, const nic_msg_ext& ext, std::uint64_t at_ps) {
    collective_run& c = m_collectives[ext.tag];
    if (c.ranks.empty()) {
        // The schedule, one rank's steps at a time where the collective can give them so.
        c.bytes = ext.bytes;
        collectives::collective_args args = m_args;
        args.elements = ext.bytes / 4;
        const auto& reg = collectives::collective_registry::global();
        const collectives::collective_info* info = reg.find(m_collective);
        c.ranks.resize(m_endpoints);
        collectives::schedule s;
        auto compact = [](const std::vector<collectives::step>& steps) {
            std::vector<compact_step> out;
            out.reserve(steps.size());
            for (const collectives::step& st : steps) {
                if (st.range.count >= (std::uint64_t{1} << 38)) {
                    throw std::invalid_argument("a step of more than 1 TiB");
                }
                compact_step x{};
                x.bytes = st.range.count * 4;
                x.kind = static_cast<std::uint64_t>(st.kind);
                x.peer = static_cast<std::uint64_t>(st.peer);
                x.round = st.round;
                x.tag = st.tag;
                out.push_back(x);
            }
            return out;
        };
        try {
            // A collective that only needs enough ranks gives one rank's steps at a time;
            // the others go through make(), which checks what they need.
            const bool per_rank = info != nullptr && info->rank_steps &&
                                  args.ranks >= info->needs.min_ranks &&
                                  !info->needs.power_of_two && !info->needs.grid &&
                                  !info->needs.even_grid && !info->needs.perfect_power;
            if (per_rank) {
                for (std::uint32_t r = 0; r < m_endpoints; ++r) {
                    c.ranks[r].steps = compact(info->rank_steps(args, static_cast<int>(r)));
                }
            } else {
                s = reg.make(m_collective, args);
                for (std::uint32_t r = 0; r < m_endpoints; ++r) {
                    c.ranks[r].steps = compact(s.steps[r]);
                }
            }
        } catch (const std::exception& e) {
            throw sim_error(path() + ": collective '" + m_collective + "' over " +
                            std::to_string(m_endpoints) + " endpoints: " + e.what());
        }
    }
    if (ext.bytes != c.bytes) {
        throw sim_error(path() + ": allreduce " + std::to_string(ext.tag) + " of " +
                        std::to_string(ext.bytes) + " B from node " + std::to_string(port) +
                        ", but another node posted it with " + std::to_string(c.bytes) + " B");
    }
    const std::uint32_t rank = m_rank_of_endpoint[port];
    rank_run& r = c.ranks[rank];
    if (r.posted) {
        throw sim_error(path() + ": node " + std::to_string(port) + " posted allreduce " +
                        std::to_string(ext.tag) + " twice");
    }
    r.posted = true;
    r.msg_id = ext.msg_id;
    push_timed(at_ps, timed_kind::START, ext.tag, rank, 0);
}

void flow_fabric::begin_round(std::uint32_t tag, std::uint32_t rank, std::uint64_t now) {
    collective_run& c = m_collectives.at(tag);
    rank_run& r = c.ranks[rank];
    // Empty steps move nothing (schedule.h); a round of only empty steps is skipped.
    while (r.next < r.steps.size()) {
        const std::uint32_t round = r.steps[r.next].round;
        r.sends_left = r.recvs_left = 0;
        r.ready = now;
        r.reduce_bytes = 0;
        r.waiting.clear();
        for (; r.next < r.steps.size() && r.steps[r.next].round == round; ++r.next) {
            const compact_step& st = r.steps[r.next];
            if (st.bytes == 0) continue;
            const auto peer = static_cast<std::uint32_t>(st.peer);
            const std::uint64_t bytes = st.bytes;
            const auto kind = static_cast<collectives::step_kind>(st.kind);
            if (kind == collectives::step_kind::SEND) {
                std::uint32_t f;
                if (!m_free_coll_flows.empty()) {
                    f = m_free_coll_flows.back();
                    m_free_coll_flows.pop_back();
                } else {
                    f = static_cast<std::uint32_t>(m_coll_flows.size());
                    m_coll_flows.emplace_back();
                }
                collective_flow& cf = m_coll_flows[f];
                cf.tag = tag;
                cf.src = rank;
                cf.dst = peer;
                cf.step_tag = st.tag;
                cf.wire = transfer_wire(bytes);
                cf.first_frame_ps =
                    m_rate.transfer_time(frame_wire(std::min(bytes, frame_payload()))).ps;
                transmit(m_endpoint_of_rank[rank], k_collective_flow | f);
                ++r.sends_left;
                ++m_collective_flows;
                continue;
            }
            if (kind == collectives::step_kind::RECV_REDUCE) r.reduce_bytes += bytes;
            const std::uint64_t key = (std::uint64_t{peer} << 32) | st.tag;
            auto e = std::find_if(r.early.begin(), r.early.end(),
                                  [key](const auto& a) { return a.first == key; });
            if (e != r.early.end()) {
                r.ready = std::max(r.ready, e->second);
                *e = r.early.back();
                r.early.pop_back();
            } else {
                ++r.recvs_left;
                r.waiting.push_back(key);
            }
        }
        if (r.sends_left > 0 || r.recvs_left > 0 || r.reduce_bytes > 0) break;
    }
    if (r.sends_left == 0 && r.recvs_left == 0 && r.reduce_bytes == 0 && r.next == r.steps.size()) {
        // Done: the host's op completes.
        r.done = true;
        nic_msg_ext done;
        done.what = nic_msg_ext::op::SEND_DONE;
        done.msg_id = r.msg_id;
        done.tag = tag;
        done.bytes = c.bytes;
        ++m_collectives_done;
        const std::uint32_t endpoint = m_endpoint_of_rank[rank];
        if (++c.finished == c.ranks.size()) m_collectives.erase(tag);
        notify_host(endpoint, done, now);
        return;
    }
    round_may_end(tag, rank, now);
}

void flow_fabric::round_may_end(std::uint32_t tag, std::uint32_t rank, std::uint64_t now) {
    rank_run& r = m_collectives.at(tag).ranks[rank];
    if (r.sends_left > 0 || r.recvs_left > 0) return;
    // Every block of the round is in: add them (reduce_rate), then the next round.
    std::uint64_t end = std::max(now, r.ready);
    if (m_reduce_rate.bytes_per_s > 0.0) end += m_reduce_rate.transfer_time(r.reduce_bytes).ps;
    r.reduce_bytes = 0;
    push_timed(end, timed_kind::ROUND_DONE, tag, rank, 0);
}

void flow_fabric::collective_flow_done(std::uint32_t index, std::uint64_t now) {
    const collective_flow cf = m_coll_flows[index];
    m_free_coll_flows.push_back(index);
    const std::uint32_t src = m_endpoint_of_rank[cf.src], dst = m_endpoint_of_rank[cf.dst];
    const std::uint64_t tail =
        m_topo->latency_ps(src, dst) + m_topo->switches(src, dst) * cf.first_frame_ps;
    push_timed(now + tail, timed_kind::ARRIVE, cf.tag, cf.dst,
               (std::uint64_t{cf.src} << 32) | cf.step_tag);
    m_wire_bytes += cf.wire;
    rank_run& s = m_collectives.at(cf.tag).ranks[cf.src];
    --s.sends_left;
    transmitted(src);
    round_may_end(cf.tag, cf.src, now);
}

void flow_fabric::arrive(std::uint32_t tag, std::uint32_t rank, std::uint64_t key,
                         std::uint64_t now) {
    rank_run& r = m_collectives.at(tag).ranks[rank];
    auto w = std::find(r.waiting.begin(), r.waiting.end(), key);
    if (w == r.waiting.end()) {
        r.early.emplace_back(key, now);  // for a later round
        return;
    }
    r.waiting.erase(w);
    r.ready = std::max(r.ready, now);
    --r.recvs_left;
    round_may_end(tag, rank, now);
}

void flow_fabric::step() {
    const std::uint64_t now = sim_now().value();
    const double next = run_due(now);
    if (std::isinf(next)) {
        m_step.park();
        return;
    }
    // Whole picoseconds: a flow's fluid finish rounds up to the next one.
    const auto at = static_cast<std::uint64_t>(std::ceil(next));
    progress_until(ps_time(at));
    m_step.sleep_until(ps_time(std::max(at, now + 1)));
}

std::string flow_fabric::pending_work() const {
    if (m_engine->active() == 0 && m_pending.empty() && m_collectives.empty()) return {};
    std::string w = std::to_string(m_engine->active()) + " flow(s) in the fabric, " +
                    std::to_string(m_pending.size()) + " message(s) waiting to start";
    for (const auto& [tag, c] : m_collectives) {
        std::uint32_t posted = 0;
        for (const rank_run& r : c.ranks) posted += r.posted ? 1 : 0;
        w += "; allreduce " + std::to_string(tag) + ": " + std::to_string(posted) + " of " +
             std::to_string(c.ranks.size()) + " endpoints posted, " + std::to_string(c.finished) +
             " done";
    }
    return w;
}

void flow_fabric::end_of_run() {
    const double t = sim_now().to_seconds();
    if (t <= 0) return;
    double busiest = 0.0;
    for (std::size_t r = 0; r < m_engine->resources(); ++r) {
        const double u = m_engine->carried(static_cast<int>(r)) / (m_topo->capacities()[r] * t);
        busiest = std::max(busiest, u);
    }
    for (std::uint32_t i = 0; i < m_endpoints; ++i) {
        // Bytes carried over capacity x time: a flow's bytes are counted as they move, so the
        // fraction stays within 1 (busy_fraction caps it should a run stop early).
        m_up_utilisation[i].set(resource_usage::busy_fraction(m_engine->carried(m_topo->up(i)), 0.0,
                                                              m_rate.bytes_per_s * t));
        m_down_utilisation[i].set(resource_usage::busy_fraction(m_engine->carried(m_topo->down(i)),
                                                                0.0, m_rate.bytes_per_s * t));
    }
    m_busiest_link.set(busiest);
}

void flow_fabric::audit(audit_log& log) const {
    log.check(path(), "no flow left in the fabric",
              m_engine->active() == 0 && m_pending.empty() && m_collectives.empty(),
              pending_work());
}

TRAINVP_REGISTER_IP(flow_fabric, "fabric.flow");

}  // namespace trainvp::ip
