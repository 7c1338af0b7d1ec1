#include "workloads/iteration/critical_path.h"

#include <map>
#include <tuple>

namespace trainvp::workloads {

using ops::op_kind;
using ops::op_phase;

const char* part_name(breakdown_part p) {
    switch (p) {
        case breakdown_part::FORWARD:
            return "forward";
        case breakdown_part::BACKWARD:
            return "backward";
        case breakdown_part::COMPUTE:
            return "compute";
        case breakdown_part::COPY:
            return "copy";
        case breakdown_part::SUM:
            return "sum";
        case breakdown_part::COMM:
            return "comm";
        case breakdown_part::COMPRESSION:
            return "compression";
        case breakdown_part::UPDATE:
            return "update";
        case breakdown_part::OTHER:
            return "other";
        case breakdown_part::IDLE:
            return "idle";
    }
    return "?";
}

breakdown_part part_of(op_phase p) {
    switch (p) {
        case op_phase::FORWARD:
            return breakdown_part::FORWARD;
        case op_phase::BACKWARD:
            return breakdown_part::BACKWARD;
        case op_phase::COMPUTE:
            return breakdown_part::COMPUTE;
        case op_phase::COPY:
            return breakdown_part::COPY;
        case op_phase::SUM:
            return breakdown_part::SUM;
        case op_phase::COMM:
            return breakdown_part::COMM;
        case op_phase::COMPRESSION:
            return breakdown_part::COMPRESSION;
        case op_phase::UPDATE:
            return breakdown_part::UPDATE;
        case op_phase::AUTO:
        case op_phase::OTHER:
            break;
    }
    return breakdown_part::OTHER;
}

namespace {

struct inconsistent {
    std::string what;
};

iteration_breakdown walk(const std::vector<host_run>& hosts) {
    iteration_breakdown out;
    auto bad = [](const std::string& what) { throw inconsistent{"critical_path: " + what}; };
    // Where each message was sent: (source node, message id) -> (host, op).
    std::map<std::pair<std::uint32_t, std::uint64_t>, std::pair<std::size_t, std::size_t>> sends;
    std::size_t last_h = k_no_op, last_i = k_no_op;
    for (std::size_t h = 0; h < hosts.size(); ++h) {
        const auto& list = hosts[h].ops;
        for (std::size_t i = 0; i < list.size(); ++i) {
            const op_run& o = list[i];
            if (o.start_ps > o.release_ps || o.start_ps > o.end_ps) {
                bad(hosts[h].name + " op " + std::to_string(i) + " ends before it starts");
            }
            if (o.unit_prev != k_no_op && o.unit_prev >= i) {
                bad(hosts[h].name + " op " + std::to_string(i) + ": unit_prev is not before it");
            }
            if (o.after_begin + o.after_count > hosts[h].after.size()) {
                bad(hosts[h].name + " op " + std::to_string(i) + ": after out of range");
            }
            for (std::uint32_t k = 0; k < o.after_count; ++k) {
                if (hosts[h].after[o.after_begin + k] >= i)
                    bad(hosts[h].name + " op " + std::to_string(i) + " waits for a later op");
            }
            if (o.kind == op_kind::SEND) sends[{hosts[h].node_id, o.msg_id}] = {h, i};
            if (last_h == k_no_op || o.end_ps > hosts[last_h].ops[last_i].end_ps ||
                (o.end_ps == hosts[last_h].ops[last_i].end_ps && h == last_h)) {
                last_h = h;
                last_i = i;
            }
        }
    }
    if (last_h == k_no_op) return out;

    auto charge = [&](breakdown_part p, std::uint64_t ps) {
        out.ps[static_cast<std::size_t>(p)] += ps;
    };
    std::size_t h = last_h, i = last_i;
    std::uint64_t t = hosts[h].ops[i].end_ps;
    out.total_ps = t;
    out.ends_at = hosts[h].name + " op " + std::to_string(i);
    // Each step moves to an op that finished no later than the current one started, and each
    // op is entered at most twice (as a successor's predecessor, or as a message's sender), so
    // the walk ends; the bound guards against inconsistent input all the same.
    std::size_t total_ops = 0;
    for (const auto& hr : hosts) total_ops += hr.ops.size();
    for (std::size_t guard = 0; guard <= 2 * total_ops + 1; ++guard) {
        ++out.steps;
        const op_run* o = &hosts[h].ops[i];
        if (t < o->start_ps)
            bad(hosts[h].name + " op " + std::to_string(i) + " is entered before it starts");
        bool via_message = false;
        if (o->kind == op_kind::RECV && o->matched && o->arrival_ps == t && t > o->start_ps) {
            auto it = sends.find({o->src_node, o->src_msg_id});
            if (it != sends.end() && hosts[it->second.first].ops[it->second.second].start_ps <= t) {
                h = it->second.first;
                i = it->second.second;
                o = &hosts[h].ops[i];
                charge(breakdown_part::COMM, t - o->start_ps);
                via_message = true;
            }
        }
        if (!via_message) charge(part_of(o->phase), t - o->start_ps);
        t = o->start_ps;

        std::size_t best = k_no_op;
        std::uint64_t best_t = 0;
        for (std::uint32_t k = 0; k < o->after_count; ++k) {
            const std::size_t a = hosts[h].after[o->after_begin + k];
            const std::uint64_t f = hosts[h].ops[a].end_ps;
            if (best == k_no_op || f > best_t) {
                best = a;
                best_t = f;
            }
        }
        if (o->unit_prev != k_no_op) {
            const std::uint64_t f = hosts[h].ops[o->unit_prev].release_ps;
            if (best == k_no_op || f > best_t) {
                best = o->unit_prev;
                best_t = f;
            }
        }
        if (best == k_no_op) {
            charge(breakdown_part::IDLE, t);
            return out;
        }
        if (best_t > t) {
            bad(hosts[h].name + " op " + std::to_string(i) +
                " starts before its predecessor finished");
        }
        charge(breakdown_part::IDLE, t - best_t);
        i = best;
        t = best_t;
    }
    bad("the walk did not end (a cycle in the runs)");
    return out;
}

}  // namespace

iteration_breakdown critical_path(const std::vector<host_run>& hosts) {
    // Plain C++ throw and catch on the caller's stack, with no SystemC process switch in between.
    try {
        return walk(hosts);
    } catch (const inconsistent& e) {
        iteration_breakdown out;
        out.error = e.what;
        return out;
    }
}

}  // namespace trainvp::workloads
