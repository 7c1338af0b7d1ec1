#include "workloads/drivers/collective_section.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>

#include "core/error.h"
#include "workloads/collectives/collective_registry.h"
#include "workloads/collectives/communicator_groups.h"
#include "workloads/drivers/functional_check.h"
#include "workloads/drivers/host_roster.h"
#include "workloads/drivers/section_registry.h"
#include "workloads/iteration/collective_ops.h"
#include "workloads/iteration/gradient_generator.h"
#include "workloads/iteration/op_frontier.h"
#include "workloads/iteration/training_builder.h"
#include "workloads/ops/op_list.h"
#include "workloads/ops/op_source.h"

namespace trainvp::drivers {

namespace {

using collectives::collective_result;

// The collective types a config names, each with the registry's result it must leave, its
// default algorithm and its bus-bandwidth factor.  nccl-tests, doc/PERFORMANCE.md ("Bus
// bandwidth"): busbw = algbw x 2(n-1)/n for all-reduce, x (n-1)/n for all-gather,
// reduce-scatter and all-to-all, x 1 for broadcast and reduce, n the ranks of the collective;
// algbw = S / t with S the collective's size as nccl-tests counts it (all-gather: the gathered
// vector; reduce-scatter: the vector reduced; all-to-all: one rank's send buffer), which is
// this section's `bytes` in every case.
struct type_entry {
    const char* name;
    collective_result result;
    const char* default_algorithm;
    double bus_numerator_per_n_minus_1;  // busbw factor = this x (n-1)/n, or 1 when 0
};

const std::vector<type_entry>& types() {
    static const std::vector<type_entry> t = {
        {"all_reduce", collective_result::ALL_REDUCE, "ring", 2.0},
        {"all_gather", collective_result::ALL_GATHER, "ring_allgather", 1.0},
        {"reduce_scatter", collective_result::REDUCE_SCATTER, "ring_reduce_scatter", 1.0},
        {"broadcast", collective_result::BROADCAST, "binomial_broadcast", 0.0},
        {"reduce", collective_result::REDUCE, "binomial_reduce", 0.0},
        {"all_to_all", collective_result::ALL_TO_ALL, "direct_all_to_all", 1.0},
    };
    return t;
}

const type_entry& entry_of(collective_result r) {
    for (const type_entry& t : types()) {
        if (t.result == r) return t;
    }
    throw std::logic_error("collective_section: a result without a type");
}

double bus_factor(collective_result r, int n) {
    const double k = entry_of(r).bus_numerator_per_n_minus_1;
    return k == 0.0 ? 1.0 : k * (n - 1) / n;
}

// The algorithms a config may name: the registry's that hosts run (or that are made by name),
// those a network runs handed over whole (fabric.flow, with offload), and fpga_ring (the
// smart NICs' engine).  Aggregator schedules need ranks that are not the job's: left out.
std::vector<std::string> algorithm_names() {
    std::vector<std::string> out;
    const auto& reg = collectives::collective_registry::global();
    for (const std::string& n : reg.names()) {
        const collectives::collective_info& i = reg.get(n);
        if (i.needs.aggregator) continue;
        if (!i.fabrics.empty() && !i.runs_on(collectives::fabric::HOST) &&
            !i.runs_on(collectives::fabric::FLOW)) {
            continue;
        }
        out.push_back(n);
    }
    out.push_back(workloads::k_fpga_ring);
    return out;
}

std::string algorithms_for_text(collective_result r) {
    std::string out;
    const auto& reg = collectives::collective_registry::global();
    for (const std::string& n : algorithm_names()) {
        const bool ok = n == workloads::k_fpga_ring ? r == collective_result::ALL_REDUCE
                                                    : reg.get(n).result == r;
        if (ok) out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

std::string size_text(std::uint64_t b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && b % 1024 == 0 && b >= 1024) b /= 1024, ++u;
    return std::to_string(b) + units[u];
}

// One collective of the section, resolved.
struct item {
    std::string key;  // "workload.collective" or "workload.collective[1]"
    collective_result type = collective_result::ALL_REDUCE;
    std::string algorithm;
    std::uint64_t bytes = 0;
    int iterations = 1;
    bool offloaded = false;  // fpga_ring or offload: one allreduce op per rank
    bool functional = false;
    workloads::gradient_spec gradient;
    std::vector<int> ranks;                    // world rank -> index into hosts (identity)
    std::vector<std::vector<int>> groups;      // world ranks, each group's in its rank order
    std::vector<collectives::schedule> sched;  // per group (empty when offloaded)
    int root = 0;
    std::uint64_t buffer_values = 0;  // the schedule's buffer, float32 values
    std::uint64_t offset = 0;         // its place in each host's data, bytes
    std::uint32_t tag_stride = 1;     // tags one iteration uses
};

constexpr std::uint64_t k_data_base = 0x10000000;  // the hosts' data region (host memory)

}  // namespace

void collective_section::declare(section_decl<collective_section>& d) {
    d.describe(
        "Collective benchmarks on the hosts (nccl-tests style): a collective of a type and an "
        "algorithm of the registry (workloads/collectives/) over every rank or over "
        "communicator groups, repeated `iterations` times, or a list of them run one after "
        "the other; each host runs its ops of the schedule (workloads/iteration/"
        "collective_ops). The run reports each collective's time per iteration and its "
        "algorithm and bus bandwidth (nccl-tests' definitions) as block collective[k]. "
        "`data: functional` moves real float32 values and checks every rank's result exactly "
        "at the end of the run");
    std::vector<std::pair<std::string, collective_result>> choices;
    for (const type_entry& t : types()) choices.emplace_back(t.name, t.result);
    d.choice("type", &collective_section::m_type, choices, "all_reduce",
             "The collective: all_reduce, all_gather, reduce_scatter, broadcast, reduce or "
             "all_to_all");
    d.choice_of("algorithm", &collective_section::m_algorithm, algorithm_names, "",
                "Its schedule, a registry name whose result is the type's (trainvp describe "
                "collectives); fpga_ring: the smart NICs' engine (fpga.allreduce, all_reduce "
                "only). Not set: ring, ring_allgather, ring_reduce_scatter, binomial_broadcast, "
                "binomial_reduce, direct_all_to_all by type");
    d.required("bytes", &collective_section::m_bytes,
               "Size of the collective as nccl-tests counts it: the vector all-reduced, reduced "
               "or broadcast, the gathered vector (all_gather), the vector reduce-scattered, one "
               "rank's send buffer (all_to_all); float32 values, so a multiple of 4 B "
               "(all_to_all: of 4 B x the group's ranks)")
        .range("4B", "16TiB");
    d.param("root", &collective_section::m_root, "0",
            "broadcast and reduce: the root, a rank of each group (0 .. group size - 1)")
        .range("0", "2^20");
    d.param("hosts", &collective_section::m_hosts, "",
            "The ranks' hosts, rank r the r-th: a block path, a pattern with [*] or a list of "
            "them; not set: every block that runs ops and has a node_id, in node-id order");
    d.choice("group", &collective_section::m_group,
             {{"world", collective_group::WORLD},
              {"tp", collective_group::TP},
              {"dp", collective_group::DP}},
             "world",
             "The communicator groups, all running the collective at the same time: world (one "
             "group of every rank), tp (the tensor-parallel groups of tensor_parallel adjacent "
             "ranks) or dp (the data-parallel groups of ranks tensor_parallel apart)");
    d.param("tensor_parallel", &collective_section::m_tensor_parallel, "1",
            "group tp / dp: ranks per tensor-parallel group, dividing the ranks (rank = dp index "
            "x tensor_parallel + tp index, as Megatron-LM places them)")
        .range("1", "2^20");
    d.param("groups", &collective_section::m_groups, "",
            "Communicator groups given as lists of ranks ([[0, 2], [1, 3]]), disjoint and "
            "covering every rank, all running the collective at the same time (instead of "
            "group)");
    d.param("segments", &collective_section::m_segments, "1",
            "ring and chain_broadcast: pieces each block is pipelined in")
        .range("1", "2^20");
    d.param("rows", &collective_section::m_rows, "0",
            "ring_2d: rows of the group's rank grid (0: the square root of its ranks)")
        .range("0", "2^20");
    d.param("levels", &collective_section::m_levels, "2",
            "hierarchical_ring: levels of equal size ranks^(1/levels)")
        .range("1", "8");
    d.param("iterations", &collective_section::m_iterations, "1",
            "Times the collective runs, each after the previous one on each rank (timing; "
            "functional mode checks one)")
        .range("1", "2^20");
    d.choice("data", &collective_section::m_functional, {{"timing", false}, {"functional", true}},
             "timing",
             "timing (sizes only) or functional (real float32 values, every rank's result "
             "checked exactly by the hosts' end-of-run audit)");
    d.param("gradient", &collective_section::m_gradient, "",
            "functional: each rank's starting values, as workload.training.gradient "
            "({distribution: normal, mean, stddev, seed}, uniform, laplace or file); not set: "
            "uniform in [-1, 1) with the run's seed");
    d.param("offload", &collective_section::m_offload, "false",
            "all_reduce: hand each rank's all-reduce to the network whole (fabric.flow with "
            "collective = algorithm), one allreduce op per rank; timing only");
}

std::optional<int> collective_section::hand_out(const config_node& node,
                                                const hand_out_context& ctx) {
    const std::string base = "workload." + ctx.section.name;
    std::vector<std::pair<const config_node*, std::string>> entries;
    if (node.is_seq()) {
        if (node.items().empty()) throw input_error(node.loc(), base, "an empty list");
        for (std::size_t i = 0; i < node.items().size(); ++i) {
            entries.emplace_back(&node.items()[i],
                                 ctx.section.name + "[" + std::to_string(i) + "]");
        }
    } else if (node.is_map()) {
        entries.emplace_back(&node, ctx.section.name);
    } else {
        throw input_error(node.loc(), base,
                          std::string("expected a map of the collective's params or a list of "
                                      "them, got ") +
                              node.kind_name());
    }
    const host_roster roster(ctx.platform);
    const auto& reg = collectives::collective_registry::global();

    // Every host any collective names, in first-use order, with what it is handed.
    struct host_work {
        host h;
        std::vector<ops::op> ops;
        std::vector<std::size_t> finish;  // the ops that end its last collective so far
        std::vector<std::pair<std::size_t, std::size_t>> spans;  // per item: its ops
    };
    std::vector<host_work> work;
    std::map<std::string, std::size_t> work_of;
    std::vector<item> items;
    std::vector<std::vector<std::size_t>> item_hosts;  // per item: world rank -> work index
    std::uint64_t data_bytes = 0;
    bool any_functional = false;

    for (const auto& e : entries) {
        // Not a structured binding: C++17 lambdas (key_of, at) cannot capture one.
        const config_node* const entry = e.first;
        const std::string& name = e.second;
        collective_section c;
        section_info info = ctx.section;
        info.name = name;
        const hand_out_context ictx{info, ctx.platform, ctx.seed, ctx.op_names, nullptr};
        read_params(c, *entry, ictx);
        item it;
        it.key = "workload." + name;
        auto key_of = [&](const std::string& k) { return it.key + "." + k; };
        auto at = [&](const std::string& k) {
            const config_node* v = entry->find(k);
            return v != nullptr ? v->loc() : entry->loc();
        };
        const type_entry& type = entry_of(c.m_type);
        it.type = c.m_type;
        it.algorithm = c.m_algorithm.empty() ? type.default_algorithm : c.m_algorithm;
        it.iterations = static_cast<int>(c.m_iterations);
        it.functional = c.m_functional;
        it.root = static_cast<int>(c.m_root);

        // The ranks.
        const std::vector<host> hosts =
            roster.ranks(entry->find("hosts"), entry->loc(), key_of("hosts"));
        const int world = static_cast<int>(hosts.size());
        std::vector<std::size_t> to_work;
        for (const host& h : hosts) {
            auto [pos, fresh] = work_of.emplace(h.path, work.size());
            if (fresh) work.push_back(host_work{h, {}, {}, {}});
            to_work.push_back(pos->second);
        }

        // The algorithm against the type.
        const bool fpga = it.algorithm == workloads::k_fpga_ring;
        if (fpga ? c.m_type != collective_result::ALL_REDUCE
                 : reg.get(it.algorithm).result != c.m_type) {
            const std::string leaves =
                fpga ? std::string("an all-reduce")
                     : std::string("a") +
                           (reg.get(it.algorithm).result == collective_result::ALL_REDUCE ||
                                    reg.get(it.algorithm).result == collective_result::ALL_GATHER ||
                                    reg.get(it.algorithm).result == collective_result::ALL_TO_ALL
                                ? "n "
                                : " ") +
                           collectives::result_name(reg.get(it.algorithm).result);
            throw input_error(at("algorithm"), key_of("algorithm"),
                              "'" + it.algorithm + "' is " + leaves + ", not " + type.name + "; " +
                                  type.name + " algorithms: " + algorithms_for_text(c.m_type));
        }
        it.offloaded = fpga || c.m_offload;
        if (c.m_offload && fpga) {
            throw input_error(at("offload"), key_of("offload"),
                              "fpga_ring runs on the smart NICs already: drop offload");
        }
        if (!it.offloaded) {
            const collectives::collective_info& info_a = reg.get(it.algorithm);
            if (!info_a.fabrics.empty() && !info_a.runs_on(collectives::fabric::HOST)) {
                throw input_error(at("algorithm"), key_of("algorithm"),
                                  "'" + it.algorithm +
                                      "' runs on a network, not on hosts: set offload: true "
                                      "with fabric.flow");
            }
        }

        // The bytes.
        it.bytes = c.m_bytes.bytes;
        if (it.bytes == 0 || it.bytes % 4 != 0) {
            throw input_error(at("bytes"), key_of("bytes"),
                              "a collective of float32 values needs a positive multiple of 4 B, "
                              "got " +
                                  std::to_string(it.bytes) + " B");
        }

        // The groups.
        if (const config_node* gv = entry->find("groups")) {
            if (entry->find("group") != nullptr) {
                throw input_error(gv->loc(), key_of("groups"), "give group or groups, not both");
            }
            if (!gv->is_seq() || gv->items().empty()) {
                throw input_error(gv->loc(), key_of("groups"),
                                  "expected a list of groups, each a list of ranks");
            }
            std::vector<int> owner(static_cast<std::size_t>(world), -1);
            for (std::size_t g = 0; g < gv->items().size(); ++g) {
                const config_node& gl = gv->items()[g];
                const std::string gk = key_of("groups") + "[" + std::to_string(g) + "]";
                if (!gl.is_seq() || gl.items().empty()) {
                    throw input_error(gl.loc(), gk, "expected a list of ranks");
                }
                std::vector<int> members;
                for (std::size_t m = 0; m < gl.items().size(); ++m) {
                    param_decl pd;
                    pd.name = "groups";
                    pd.kind = param_kind::INT;
                    const std::string mk = gk + "[" + std::to_string(m) + "]";
                    const std::int64_t r = param_parse::to_int(gl.items()[m], pd, mk);
                    if (r < 0 || r >= world) {
                        throw input_error(gl.items()[m].loc(), mk,
                                          "rank " + std::to_string(r) + " is not one of the " +
                                              std::to_string(world) + " ranks (0.." +
                                              std::to_string(world - 1) + ")");
                    }
                    int& o = owner[static_cast<std::size_t>(r)];
                    if (o >= 0) {
                        throw input_error(gl.items()[m].loc(), mk,
                                          "rank " + std::to_string(r) + " is in group " +
                                              std::to_string(o) +
                                              " already: the groups must be disjoint");
                    }
                    o = static_cast<int>(g);
                    members.push_back(static_cast<int>(r));
                }
                it.groups.push_back(std::move(members));
            }
            for (int r = 0; r < world; ++r) {
                if (owner[static_cast<std::size_t>(r)] < 0) {
                    throw input_error(gv->loc(), key_of("groups"),
                                      "rank " + std::to_string(r) + " (" +
                                          hosts[static_cast<std::size_t>(r)].path +
                                          ") is in no group: the groups must cover every rank");
                }
            }
        } else if (c.m_group == collective_group::WORLD) {
            if (entry->find("tensor_parallel") != nullptr) {
                throw input_error(at("tensor_parallel"), key_of("tensor_parallel"),
                                  "tensor_parallel sets the groups of group: tp or dp; group is "
                                  "world");
            }
            std::vector<int> all;
            for (int r = 0; r < world; ++r) all.push_back(r);
            it.groups.push_back(std::move(all));
        } else {
            const int tp = static_cast<int>(c.m_tensor_parallel);
            if (world % tp != 0) {
                throw input_error(at("tensor_parallel"), key_of("tensor_parallel"),
                                  std::to_string(tp) + " does not divide the " +
                                      std::to_string(world) + " ranks");
            }
            const collectives::parallel_groups pg =
                collectives::make_parallel_groups(tp, world / tp);
            it.groups = c.m_group == collective_group::TP ? pg.tensor_parallel : pg.data_parallel;
        }
        std::size_t smallest = it.groups[0].size();
        for (const auto& g : it.groups) smallest = std::min(smallest, g.size());
        if (smallest < 2) {
            throw input_error(at(entry->find("groups") ? "groups" : "group"),
                              key_of(entry->find("groups") ? "groups" : "group"),
                              "a group of 1 rank has nothing to exchange: every group needs 2 "
                              "ranks or more");
        }
        if (c.m_root >= static_cast<std::int64_t>(smallest)) {
            throw input_error(at("root"), key_of("root"),
                              "root " + std::to_string(c.m_root) + " is not a rank of a group of " +
                                  std::to_string(smallest) + " (0.." +
                                  std::to_string(smallest - 1) + ")");
        }
        if (entry->find("root") != nullptr && c.m_type != collective_result::BROADCAST &&
            c.m_type != collective_result::REDUCE) {
            throw input_error(
                at("root"), key_of("root"),
                std::string("a root is for broadcast and reduce; ") + type.name + " has none");
        }
        if (c.m_type == collective_result::ALL_TO_ALL) {
            for (const auto& g : it.groups) {
                if (it.bytes % (4 * g.size()) != 0) {
                    throw input_error(at("bytes"), key_of("bytes"),
                                      "all_to_all sends one block of bytes / ranks to each of "
                                      "its " +
                                          std::to_string(g.size()) +
                                          " ranks: bytes must be a multiple of 4 B x " +
                                          std::to_string(g.size()) + ", got " +
                                          std::to_string(it.bytes) + " B");
                }
            }
        }

        // Offloaded: the network or the smart NICs run the whole all-reduce.
        if (it.offloaded) {
            const std::string k = fpga ? "algorithm" : "offload";
            if (c.m_functional) {
                throw input_error(at("data"), key_of("data"),
                                  fpga ? "fpga_ring sums on the smart NICs, not in host memory: "
                                         "give the fpga.allreduce blocks `functional: true` "
                                         "instead"
                                       : "an offloaded all-reduce carries no values: data: "
                                         "timing");
            }
            if (it.groups.size() != 1) {
                throw input_error(at(k), key_of(k),
                                  "an offloaded all-reduce runs over every rank: group: world");
            }
            if (!fpga) {
                for (const host& h : hosts) {
                    if (h.nic && h.nic->runs_collective(it.algorithm)) continue;
                    throw input_error(
                        at("offload"), key_of("offload"),
                        h.path +
                            (h.nic ? " sends through " + h.nic->path + ", a " + h.nic->type +
                                         ", which does not run '" + it.algorithm + "' itself"
                                   : std::string(" has no NIC (its nic socket is not connected)")) +
                            ": an offloaded all-reduce needs fabric.flow with collective: " +
                            it.algorithm);
                }
                for (int r = 0; r < world; ++r) {
                    if (hosts[static_cast<std::size_t>(r)].node_id == static_cast<std::uint32_t>(r))
                        continue;
                    throw input_error(
                        at("offload"), key_of("offload"),
                        "the network runs rank i on its endpoint i: the hosts must "
                        "be nodes 0.." +
                            std::to_string(world - 1) + " in order (rank " + std::to_string(r) +
                            " is node " +
                            std::to_string(hosts[static_cast<std::size_t>(r)].node_id) + ")");
                }
            }
            it.buffer_values = it.bytes / 4;
        } else {
            for (const auto& g : it.groups) {
                collectives::collective_args a;
                a.ranks = static_cast<int>(g.size());
                a.elements = it.bytes / 4;
                a.root = it.root;
                a.segments = static_cast<std::uint32_t>(c.m_segments);
                a.levels = static_cast<int>(c.m_levels);
                if (c.m_rows > 0) {
                    a.rows = static_cast<int>(c.m_rows);
                    a.cols = a.ranks / a.rows;
                } else {
                    const int s = static_cast<int>(std::lround(std::sqrt(a.ranks)));
                    a.rows = s;
                    a.cols = s > 0 ? a.ranks / s : 0;
                }
                try {
                    it.sched.push_back(reg.make(it.algorithm, a));
                } catch (const std::invalid_argument& e) {
                    throw input_error(at("algorithm"), key_of("algorithm"),
                                      it.algorithm + " over " + std::to_string(a.ranks) +
                                          " ranks of " + size_text(it.bytes) + ": " + e.what());
                }
                it.buffer_values = it.sched.back().elements;
                it.tag_stride =
                    std::max<std::uint32_t>(it.tag_stride, workloads::max_tag(it.sched.back()) + 1);
            }
        }

        // Functional mode.
        if (c.m_functional) {
            if (c.m_iterations != 1) {
                throw input_error(at("iterations"), key_of("iterations"),
                                  "functional mode checks one run of the collective: iterations "
                                  "must be 1, got " +
                                      std::to_string(c.m_iterations));
            }
            if (const config_node* g = entry->find("gradient")) {
                it.gradient = read_gradient(*g, key_of("gradient"), ctx.seed);
            } else {
                it.gradient = workloads::gradient_spec{workloads::gradient_distribution::UNIFORM,
                                                       -1.0, 1.0, ctx.seed, ""};
            }
            any_functional = true;
        } else if (const config_node* g = entry->find("gradient")) {
            throw input_error(g->loc(), key_of("gradient"),
                              "starting values are for data: functional");
        }
        it.offset = data_bytes;
        data_bytes += (it.buffer_values * 4 + 63) / 64 * 64;
        item_hosts.push_back(std::move(to_work));
        items.push_back(std::move(it));
    }

    // The ops: each collective after the previous one on each rank (a rank starts it when its
    // own part of the previous one is done), its tags after the previous one's.
    std::uint32_t tag = 0;
    for (std::size_t k = 0; k < items.size(); ++k) {
        const item& it = items[k];
        const std::vector<std::size_t>& to_work = item_hosts[k];
        for (host_work& w : work) w.spans.emplace_back(w.ops.size(), w.ops.size());
        for (int i = 0; i < it.iterations; ++i) {
            for (std::size_t g = 0; g < it.groups.size(); ++g) {
                const std::vector<int>& members = it.groups[g];
                std::vector<std::uint32_t> nodes;
                for (int m : members)
                    nodes.push_back(work[to_work[static_cast<std::size_t>(m)]].h.node_id);
                for (std::size_t me = 0; me < members.size(); ++me) {
                    host_work& w = work[to_work[static_cast<std::size_t>(members[me])]];
                    const std::size_t first = w.ops.size();
                    const std::string prefix =
                        "c" + std::to_string(k) + "." + std::to_string(i) + "/";
                    if (it.offloaded) {
                        ops::op a;
                        if (ctx.op_names) a.name = prefix + "allreduce";
                        a.kind = ops::op_kind::ALLREDUCE;
                        a.unit = ops::op_unit::COMM;
                        a.bytes = it.bytes;
                        a.address = k_data_base + it.offset;
                        a.tag = tag;
                        for (std::size_t x : w.finish) a.after.push_back(x);
                        w.ops.push_back(std::move(a));
                    } else {
                        workloads::collective_op_options o;
                        o.base_address = k_data_base + it.offset;
                        o.tag_base = tag;
                        o.names = ctx.op_names;
                        o.name_prefix = prefix;
                        o.index_base = first;
                        o.start_after = w.finish;
                        workloads::append_collective_ops(w.ops, it.sched[g], static_cast<int>(me),
                                                         nodes, o);
                    }
                    // What finishes it: its ops that none of its ops waits for.
                    if (w.ops.size() > first) w.finish = workloads::op_frontier(w.ops, 0, first);
                }
            }
            tag += it.offloaded ? 1 : it.tag_stride;
        }
        for (host_work& w : work) w.spans.back().second = w.ops.size();
    }

    // Functional mode: every host's data (each collective's buffer at its offset) and what it
    // must hold at the end.
    if (any_functional) {
        const std::size_t values = data_bytes / 4;
        std::vector<std::vector<float>> data(work.size(), std::vector<float>(values, 0.0f));
        std::vector<std::vector<double>> exact(work.size()), allowance(work.size());
        constexpr double k_any = std::numeric_limits<double>::infinity();
        // The starting values, every functional collective's first (the all-to-all's local copy
        // included), then what each must leave.
        for (std::size_t k = 0; k < items.size(); ++k) {
            const item& it = items[k];
            if (!it.functional) continue;
            const std::vector<std::size_t>& to_work = item_hosts[k];
            const std::size_t world = to_work.size();
            const std::size_t o = it.offset / 4, n = it.buffer_values;
            for (std::size_t r = 0; r < world; ++r) {
                std::vector<float> v;
                try {
                    v = workloads::generate_gradient(it.gradient, r, world, n);
                } catch (const std::exception& e) {
                    throw input_error(entries[k].first->loc(), it.key + ".gradient", e.what());
                }
                float* d = data[to_work[r]].data() + o;
                std::copy(v.begin(), v.end(), d);
            }
            // All-to-all: the own block is the consumer's local copy (collectives/README.md),
            // done here, before the run, so that the whole receive half is checked.
            if (it.type == collective_result::ALL_TO_ALL) {
                for (const auto& members : it.groups) {
                    const std::size_t half = n / 2, c = half / members.size();
                    for (std::size_t q = 0; q < members.size(); ++q) {
                        float* d = data[to_work[static_cast<std::size_t>(members[q])]].data() + o;
                        std::copy(d + q * c, d + (q + 1) * c, d + half + q * c);
                    }
                }
            }
        }
        // By default a value must stay as it was (exactly); a collective in timing mode moves no
        // values, so its part is left unchecked.
        for (std::size_t w = 0; w < work.size(); ++w) {
            exact[w].assign(data[w].begin(), data[w].end());
            allowance[w].assign(values, 0.0);
            for (const item& it : items) {
                if (it.functional) continue;
                for (std::size_t i = it.offset / 4; i < it.offset / 4 + it.buffer_values; ++i) {
                    allowance[w][i] = k_any;
                }
            }
        }
        for (std::size_t k = 0; k < items.size(); ++k) {
            const item& it = items[k];
            if (!it.functional) continue;
            const std::vector<std::size_t>& to_work = item_hosts[k];
            const std::size_t o = it.offset / 4, n = it.buffer_values;
            for (const auto& members : it.groups) {
                const std::size_t G = members.size();
                auto in = [&](std::size_t q) -> const float* {
                    return data[to_work[static_cast<std::size_t>(members[q])]].data() + o;
                };
                std::vector<double> sum(n, 0.0), mag(n, 0.0);
                for (std::size_t q = 0; q < G; ++q) {
                    for (std::size_t i = 0; i < n; ++i) {
                        sum[i] += in(q)[i];
                        mag[i] += std::fabs(in(q)[i]);
                    }
                }
                // float32 sums: G - 1 additions, each rounding by at most half an ulp of a partial
                // sum, <= 2^-24 x sum_q |x_q| each (functional_check.cpp's allowance).
                auto sum_allowance = [&](std::size_t i) {
                    return static_cast<double>(G - 1) * std::ldexp(mag[i], -24);
                };
                const std::vector<collectives::chunk> blocks = collectives::partition(n, G);
                for (std::size_t me = 0; me < G; ++me) {
                    const std::size_t wi = to_work[static_cast<std::size_t>(members[me])];
                    std::vector<double> e(n), a(n, 0.0);
                    const float* mine = in(me);
                    for (std::size_t i = 0; i < n; ++i) e[i] = mine[i];  // unchanged by default
                    switch (it.type) {
                        case collective_result::ALL_REDUCE:
                            for (std::size_t i = 0; i < n; ++i)
                                e[i] = sum[i], a[i] = sum_allowance(i);
                            break;
                        case collective_result::ALL_GATHER:
                            for (std::size_t j = 0; j < G; ++j) {
                                for (std::uint64_t i = blocks[j].offset;
                                     i < blocks[j].offset + blocks[j].count; ++i) {
                                    e[i] = in(j)[i];
                                }
                            }
                            break;
                        case collective_result::REDUCE_SCATTER:
                            // Block `me` is the sum; the others hold partial sums: unspecified.
                            for (std::size_t i = 0; i < n; ++i) e[i] = 0.0, a[i] = k_any;
                            for (std::uint64_t i = blocks[me].offset;
                                 i < blocks[me].offset + blocks[me].count; ++i) {
                                e[i] = sum[i], a[i] = sum_allowance(i);
                            }
                            break;
                        case collective_result::BROADCAST:
                            for (std::size_t i = 0; i < n; ++i) {
                                e[i] = in(static_cast<std::size_t>(it.root))[i];
                            }
                            break;
                        case collective_result::REDUCE:
                            for (std::size_t i = 0; i < n; ++i) {
                                if (me == static_cast<std::size_t>(it.root)) {
                                    e[i] = sum[i], a[i] = sum_allowance(i);
                                } else {
                                    e[i] = 0.0, a[i] = k_any;  // partial sums: unspecified
                                }
                            }
                            break;
                        case collective_result::ALL_TO_ALL: {
                            // Send half unchanged; receive slot q = rank q's send block me.
                            const std::size_t half = n / 2, c = half / G;
                            for (std::size_t q = 0; q < G; ++q) {
                                for (std::size_t i = 0; i < c; ++i) {
                                    e[half + q * c + i] = in(q)[me * c + i];
                                }
                            }
                            break;
                        }
                    }
                    std::copy(e.begin(), e.end(), exact[wi].begin() + static_cast<long>(o));
                    std::copy(a.begin(), a.end(), allowance[wi].begin() + static_cast<long>(o));
                }
            }
        }
        for (std::size_t w = 0; w < work.size(); ++w) {
            std::vector<std::uint8_t> raw(data_bytes);
            std::memcpy(raw.data(), data[w].data(), data_bytes);
            work[w].h.sink->accept_data(k_data_base, std::move(raw), work[w].h.loc, base);
        }
        // expect_data after accept_data on every host (a host checks it against its data).
        for (std::size_t w = 0; w < work.size(); ++w) {
            work[w].h.sink->expect_data(k_data_base, std::move(exact[w]), std::move(allowance[w]));
        }
    }

    // The hosts' op lists, whole.
    for (host_work& w : work) {
        w.h.sink->accept_source(std::make_unique<ops::list_source>(ops::op_list(std::move(w.ops))),
                                node.loc(), base);
    }

    // After the run: each collective's time per iteration (from its first op's start on any
    // rank to its last op's end on any rank, over its iterations) and its bandwidths.
    if (ctx.measures != nullptr) {
        struct span_of {
            std::string path;
            std::size_t begin, end;
        };
        struct measured_item {
            std::uint64_t bytes;
            int iterations;
            int ranks;  // ranks of one group (the n of the bus factor)
            collective_result type;
            std::vector<span_of> spans;
        };
        std::vector<measured_item> m;
        for (std::size_t k = 0; k < items.size(); ++k) {
            measured_item x{items[k].bytes,
                            items[k].iterations,
                            static_cast<int>(items[k].groups[0].size()),
                            items[k].type,
                            {}};
            for (const host_work& w : work) {
                if (w.spans[k].first < w.spans[k].second) {
                    x.spans.push_back({w.h.path, w.spans[k].first, w.spans[k].second});
                }
            }
            m.push_back(std::move(x));
        }
        ctx.measures->push_back([m](const std::vector<workloads::host_run>& runs) {
            std::map<std::string, const workloads::host_run*> by_path;
            for (const workloads::host_run& r : runs) by_path[r.name] = &r;
            std::vector<measured_stat> out;
            for (std::size_t k = 0; k < m.size(); ++k) {
                std::uint64_t start = std::numeric_limits<std::uint64_t>::max(), end = 0;
                for (const span_of& s : m[k].spans) {
                    auto it = by_path.find(s.path);
                    if (it == by_path.end()) continue;
                    const auto& ops = it->second->ops;
                    for (std::size_t i = s.begin; i < s.end && i < ops.size(); ++i) {
                        start = std::min(start, ops[i].start_ps);
                        end = std::max(end, ops[i].end_ps);
                    }
                }
                if (end <= start) continue;
                const std::string block = "collective[" + std::to_string(k) + "]";
                const std::string type = "workload.collective";
                const double t_s = static_cast<double>(end - start) * 1e-12 / m[k].iterations;
                const double algbw = static_cast<double>(m[k].bytes) / t_s;
                out.push_back({block, type, "time", "ns", t_s * 1e9});
                out.push_back({block, type, "algbw", "B/s", algbw});
                out.push_back(
                    {block, type, "busbw", "B/s", algbw * bus_factor(m[k].type, m[k].ranks)});
            }
            return out;
        });
    }
    return items.size() == 1 ? items[0].iterations : 1;
}

TRAINVP_REGISTER_WORKLOAD(collective_section, "collective");

}  // namespace trainvp::drivers
