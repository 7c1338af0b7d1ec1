#include "workloads/chakra/trace_ops.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "core/error.h"
#include "workloads/collectives/collective_registry.h"
#include "workloads/iteration/collective_ops.h"
#include "workloads/ops/message_pairing.h"

namespace trainvp::chakra {

namespace {

[[noreturn]] void fail(const et_trace& t, const et_node& n, const std::string& field,
                       const std::string& what) {
    throw input_error(source_loc{t.file, 0, 0}, "node " + std::to_string(n.id) + "." + field, what);
}

std::string size_text(std::uint64_t b) { return std::to_string(b) + " B"; }

std::string call_text(const et_node& n) {
    return std::string(coll_name(*n.comm_type)) + " of " + size_text(*n.comm_size) +
           (n.comm_type == coll_type::BROADCAST || n.comm_type == coll_type::REDUCE
                ? " (root " + std::to_string(n.root) + ")"
                : "");
}

}  // namespace

trace_ops::trace_ops(std::vector<et_trace> traces, std::vector<std::uint32_t> node_of_rank,
                     trace_ops_options options)
    : m_traces(std::move(traces)),
      m_node_of_rank(std::move(node_of_rank)),
      m_options(std::move(options)) {
    const int world = ranks();
    if (m_node_of_rank.size() != m_traces.size()) {
        throw std::invalid_argument("trace_ops: one node id per rank");
    }
    // Process groups of one name agree across the files.
    std::map<std::string, std::pair<const et_trace*, const std::vector<int>*>> named;
    for (const et_trace& t : m_traces) {
        for (const auto& [name, members] : t.groups) {
            const auto [it, fresh] = named.emplace(name, std::make_pair(&t, &members));
            if (!fresh && *it->second.second != members) {
                throw input_error(source_loc{t.file, 0, 0}, "GlobalMetadata.attr.pg_ranks." + name,
                                  "process group '" + name + "' has other ranks than in " +
                                      it->second.first->file);
            }
        }
    }
    std::vector<int> everyone(static_cast<std::size_t>(world));
    for (int r = 0; r < world; ++r) everyone[static_cast<std::size_t>(r)] = r;
    auto group_index = [&](const std::vector<int>& members) {
        const auto it = std::find(m_groups.begin(), m_groups.end(), members);
        if (it != m_groups.end()) return static_cast<int>(it - m_groups.begin());
        m_groups.push_back(members);
        return static_cast<int>(m_groups.size() - 1);
    };
    group_index(everyone);
    for (const auto& [name, g] : named) group_index(*g.second);
    if (m_groups.size() > 127) {
        throw input_error(source_loc{m_traces[0].file, 0, 0}, "GlobalMetadata",
                          "more than 127 distinct process groups (collective tags run out)");
    }

    // Each group's collectives, per member, in trace order.
    m_calls.resize(m_traces.size());
    std::map<int, std::map<int, std::vector<const et_node*>>> seq;  // group -> rank -> calls
    for (const et_trace& t : m_traces) {
        for (const et_node& n : t.nodes) {
            if (n.type != node_type::COMM_COLL) continue;
            const int g = n.pg_name.empty() ? 0 : group_index(t.groups.at(n.pg_name));
            seq[g][t.rank].push_back(&n);
        }
    }
    const auto& registry = collectives::collective_registry::global();
    for (auto& [g, by_rank] : seq) {
        const std::vector<int>& members = m_groups[static_cast<std::size_t>(g)];
        // The first member with calls is the reference.
        const int ref = by_rank.begin()->first;
        const std::vector<const et_node*>& want = by_rank.begin()->second;
        for (int m : members) {
            const et_trace& t = m_traces[static_cast<std::size_t>(m)];
            const auto it = by_rank.find(m);
            const std::size_t have = it == by_rank.end() ? 0 : it->second.size();
            for (std::size_t k = 0; k < std::max(have, want.size()); ++k) {
                if (k >= have) {
                    const et_node& w = *want[k];
                    const et_trace& rt = m_traces[static_cast<std::size_t>(ref)];
                    fail(rt, w, "pg_name",
                         "rank " + std::to_string(m) + " (" + t.file + ") has no collective " +
                             std::to_string(k) + " in this group to match this " + call_text(w));
                }
                const et_node& n = *it->second[k];
                if (k >= want.size()) {
                    fail(t, n, "pg_name",
                         "rank " + std::to_string(ref) + " has no collective " + std::to_string(k) +
                             " in this group to match this " + call_text(n));
                }
                const et_node& w = *want[k];
                const char* field = n.comm_type != w.comm_type   ? "comm_type"
                                    : n.comm_size != w.comm_size ? "comm_size"
                                    : n.root != w.root           ? "root"
                                                                 : nullptr;
                if (field != nullptr) {
                    fail(t, n, field,
                         "collective " + std::to_string(k) + " of its group is " + call_text(n) +
                             " here but " + call_text(w) + " on rank " + std::to_string(ref) +
                             " (" + m_traces[static_cast<std::size_t>(ref)].file + ", node " +
                             std::to_string(w.id) + ")");
                }
            }
        }
        // Schedules and tag bases, the same on every member.
        std::uint64_t tag = 0;
        for (std::size_t k = 0; k < want.size(); ++k) {
            const et_node& w = *want[k];
            const et_trace& wt = m_traces[static_cast<std::size_t>(ref)];
            const collectives::schedule* s = nullptr;
            if (members.size() > 1) {
                const std::string& algo = m_options.algorithms.at(*w.comm_type);
                collectives::collective_args a;
                a.ranks = static_cast<int>(members.size());
                a.elements = *w.comm_size / 4;
                a.root = static_cast<int>(w.root);
                const std::string key = algo + "/" + std::to_string(a.ranks) + "/" +
                                        std::to_string(a.elements) + "/" + std::to_string(a.root);
                auto sit = m_schedules.find(key);
                if (sit == m_schedules.end()) {
                    try {
                        sit = m_schedules.emplace(key, registry.make(algo, a)).first;
                    } catch (const std::invalid_argument& e) {
                        fail(wt, w, "comm_size",
                             std::string(coll_name(*w.comm_type)) + " by '" + algo + "' over " +
                                 std::to_string(a.ranks) + " ranks of " + size_text(*w.comm_size) +
                                 ": " + e.what());
                    }
                }
                s = &sit->second;
            }
            const std::uint32_t base = static_cast<std::uint32_t>(tag);
            if (s != nullptr) tag += workloads::max_tag(*s) + 1;
            if (tag > k_group_tags) {
                fail(wt, w, "comm_type",
                     "the group's collectives need more than 2^24 tags: split the trace");
            }
            for (int m : members) {
                const auto it = by_rank.find(m);
                const et_node* n = it->second[k];
                m_calls[static_cast<std::size_t>(m)][n->id] = coll_call{
                    n, g, k_collective_tags + static_cast<std::uint32_t>(g) * k_group_tags + base,
                    s};
            }
        }
    }

    // Sends meet receives: per (src, dst, tag), the same sizes in the same order.
    std::vector<std::pair<const et_trace*, const et_node*>> sites;
    ops::message_pairing pairs;
    for (const et_trace& t : m_traces) {
        for (const et_node& n : t.nodes) {
            const bool send = n.type == node_type::COMM_SEND;
            if (!send && n.type != node_type::COMM_RECV) continue;
            ops::message_pairing::entry e;
            e.src = static_cast<std::uint32_t>(send ? t.rank : *n.comm_src);
            e.dst = static_cast<std::uint32_t>(send ? *n.comm_dst : t.rank);
            e.tag = n.comm_tag;
            e.bytes = *n.comm_size;
            e.index = sites.size();
            sites.emplace_back(&t, &n);
            if (send) {
                pairs.add_send(e);
            } else {
                pairs.add_recv(e);
            }
        }
    }
    if (const auto m = pairs.first_mismatch()) {
        using problem = ops::message_pairing::problem;
        const auto [rt, rn] = m->recv ? sites[m->recv->index] : sites[m->send->index];
        const auto [st, sn] = m->send ? sites[m->send->index] : sites[m->recv->index];
        switch (m->kind) {
            case problem::UNANSWERED_RECV:
                fail(*rt, *rn, "comm_src",
                     "no COMM_SEND_NODE on rank " + std::to_string(*rn->comm_src) + " to rank " +
                         std::to_string(rt->rank) + " with tag " + std::to_string(rn->comm_tag) +
                         " is left for this receive");
            case problem::SIZE:
                fail(*rt, *rn, "comm_size",
                     "receives " + size_text(*rn->comm_size) + " but its send (" + st->file +
                         ", node " + std::to_string(sn->id) + ") sends " +
                         size_text(*sn->comm_size));
            case problem::UNTAKEN_SEND:
                fail(*st, *sn, "comm_dst",
                     "no COMM_RECV_NODE on rank " + std::to_string(m->send->dst) + " from rank " +
                         std::to_string(m->send->src) + " with tag " +
                         std::to_string(m->send->tag) + " receives this send");
            default:
                break;  // a trace's all-reduces are collectives over its groups, not posted ones
        }
    }
}

std::vector<ops::op> trace_ops::rank_ops(int rank) const {
    const et_trace& t = m_traces.at(static_cast<std::size_t>(rank));
    std::vector<ops::op> out;
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> done;
    for (const et_node& n : t.nodes) {
        std::vector<std::size_t> deps;
        for (const auto* list : {&n.ctrl_deps, &n.data_deps}) {
            for (std::uint64_t d : *list) {
                const auto& f = done.at(d);
                deps.insert(deps.end(), f.begin(), f.end());
            }
        }
        std::sort(deps.begin(), deps.end());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
        const std::string name = m_options.names
                                     ? (n.name.empty() ? "node " + std::to_string(n.id) : n.name)
                                     : std::string();
        const bool gpu = m_options.compute == compute_where::GPU ||
                         (m_options.compute == compute_where::TRACE && !n.is_cpu_op);
        const std::size_t first = out.size();
        auto add = [&](ops::op_kind kind, ops::op_unit unit) -> ops::op& {
            ops::op& o = out.emplace_back();
            o.kind = kind;
            o.unit = unit;
            o.after = deps;
            o.name = name;
            return o;
        };
        switch (n.type) {
            case node_type::METADATA:
                break;
            case node_type::COMP:
            case node_type::MEM_LOAD:
            case node_type::MEM_STORE: {
                const ops::op_unit unit = gpu ? ops::op_unit::GPU : ops::op_unit::CPU;
                if (n.duration_micros > 0) {
                    ops::op& o = add(ops::op_kind::DELAY, unit);
                    o.delay_ps = n.duration_micros * 1000000ull;
                    o.phase = ops::op_phase::COMPUTE;
                } else if (n.type == node_type::COMP) {
                    ops::op& o = add(gpu ? ops::op_kind::GPU_COMPUTE : ops::op_kind::COMPUTE, unit);
                    o.flops = static_cast<double>(*n.num_ops);
                    o.bytes = n.tensor_size.value_or(0);
                } else if (!gpu) {
                    ops::op& o = add(ops::op_kind::COMPUTE, unit);
                    o.bytes = *n.tensor_size;
                } else {
                    ops::op& o = add(n.type == node_type::MEM_LOAD ? ops::op_kind::COPY_TO_GPU
                                                                   : ops::op_kind::COPY_TO_HOST,
                                     ops::op_unit::COPY);
                    o.bytes = *n.tensor_size;
                }
                break;
            }
            case node_type::COMM_SEND: {
                ops::op& o = add(ops::op_kind::SEND, ops::op_unit::COMM);
                o.peer = m_node_of_rank[*n.comm_dst];
                o.bytes = *n.comm_size;
                o.tag = n.comm_tag;
                break;
            }
            case node_type::COMM_RECV: {
                ops::op& o = add(ops::op_kind::RECV, ops::op_unit::COMM);
                o.peer = m_node_of_rank[*n.comm_src];
                o.bytes = *n.comm_size;
                o.tag = n.comm_tag;
                break;
            }
            case node_type::COMM_COLL: {
                const coll_call& c = m_calls[static_cast<std::size_t>(rank)].at(n.id);
                if (c.schedule == nullptr) break;
                const std::vector<int>& members = m_groups[static_cast<std::size_t>(c.group)];
                std::vector<std::uint32_t> nodes;
                int me = 0;
                for (std::size_t i = 0; i < members.size(); ++i) {
                    nodes.push_back(m_node_of_rank[static_cast<std::size_t>(members[i])]);
                    if (members[i] == rank) me = static_cast<int>(i);
                }
                workloads::collective_op_options o;
                o.tag_base = c.tag_base;
                o.names = m_options.names;
                o.name_prefix = name + "/";
                o.index_base = out.size();
                o.start_after = deps;
                workloads::append_collective_ops(out, *c.schedule, me, nodes, o);
                break;
            }
        }
        // What finishes the node: its ops that none of its ops waits for; a node without ops
        // passes its dependencies on.
        if (out.size() == first) {
            done[n.id] = std::move(deps);
            continue;
        }
        std::vector<bool> waited(out.size() - first, false);
        for (std::size_t i = first; i < out.size(); ++i) {
            for (std::size_t a : out[i].after) {
                if (a >= first) waited[a - first] = true;
            }
        }
        std::vector<std::size_t>& f = done[n.id];
        for (std::size_t i = first; i < out.size(); ++i) {
            if (!waited[i - first]) f.push_back(i);
        }
    }
    return out;
}

}  // namespace trainvp::chakra
