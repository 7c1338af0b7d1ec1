#include "noc/interposer/chiplet_op_runner.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "noc/network/noc_network.h"

namespace trainvp::noc {

using ops::op_kind;
using op_state = ip::op_window::op_state;

chiplet_op_runner::chiplet_op_runner(const settings& s, const pe_array_config& compute,
                                     std::string owner)
    : m_s(s), m_compute(compute), m_owner(std::move(owner)) {
    m_streams.resize(static_cast<std::size_t>(s.chiplets));
}

std::string chiplet_op_runner::describe(int c, std::size_t i) const {
    const ip::op_window& w = m_streams[static_cast<std::size_t>(c)]->window;
    std::string name = w.name_of(i);
    if (name.empty())
        name = std::string(ops::kind_name(w.op_at(i).kind)) + " [" + std::to_string(i) + "]";
    return m_owner + ".chiplet[" + std::to_string(c) + "]: op '" + name + "'";
}

void chiplet_op_runner::declare_messages(ops::message_pairing& pairs, const void* owner) const {
    for (const given_message& g : m_given) {
        ops::message_pairing::entry e = g.e;
        e.owner = owner;
        if (g.send) {
            pairs.add_send(e);
        } else {
            pairs.add_recv(e);
        }
    }
}

ops::message_pairing::site chiplet_op_runner::site_of(std::size_t index, const char* field) const {
    const given_message& g = m_given.at(index);
    ops::message_pairing::site s;
    s.what = g.what;
    s.key = g.key + "[" + std::to_string(g.op) + "]." + field;
    s.where = g.list->loc();
    if (g.list->is_seq() && g.op < g.list->items().size()) {
        const config_node& item = g.list->items()[g.op];
        const config_node* v = item.find(field);
        s.where = v != nullptr ? v->loc() : item.loc();
    }
    return s;
}

void chiplet_op_runner::take(int chiplet, std::unique_ptr<ops::op_source> src,
                             const source_loc& where, const std::string& key,
                             const config_node* given) {
    const std::string unit = m_owner + ".chiplet[" + std::to_string(chiplet) + "]";
    auto& slot = m_streams[static_cast<std::size_t>(chiplet)];
    if (slot) throw input_error(where, key, "the ops of " + unit + " are given twice");
    auto st = std::make_unique<stream>(unit);
    st->window.open(std::move(src), m_s.record_runs, m_s.keep_names);
    m_total += st->window.total();
    if (st->window.chunks_total() > 0) {
        std::vector<ops::op> first = st->window.source().take(0);
        // Every chunk of a generated stream has the same kinds of ops (one iteration each), so
        // the first stands for all, as host.cpu checks it.
        for (std::size_t k = 0; k < first.size(); ++k) {
            const ops::op& o = first[k];
            if (given != nullptr && (o.kind == op_kind::SEND || o.kind == op_kind::RECV)) {
                given_message g;
                g.send = o.kind == op_kind::SEND;
                const auto self = static_cast<std::uint32_t>(chiplet);
                g.e = {g.send ? self : o.peer,
                       g.send ? o.peer : self,
                       o.tag,
                       o.bytes,
                       m_given.size(),
                       nullptr};
                g.list = given;
                g.op = k;
                g.key = key;
                const std::string name = o.name.empty() ? st->window.source().name_of(k) : o.name;
                g.what = "op " + (name.empty() ? "[" + std::to_string(k) + "]" : "'" + name + "'") +
                         " (" + ops::kind_name(o.kind) + ")";
                m_given.push_back(std::move(g));
            }
            std::string problem, field;
            switch (o.kind) {
                case op_kind::COPY_TO_HOST:
                case op_kind::COPY_TO_GPU:
                    problem =
                        "is a copy between host and accelerator memory, but a chiplet has "
                        "no host: " +
                        m_owner +
                        " runs compute, gpu_compute, sum, update, delay, send and recv ops";
                    break;
                case op_kind::ALLREDUCE:
                    problem =
                        "offloads an all-reduce to a smart NIC, but a chiplet has none: "
                        "write the all-reduce as sends, receives and sums (a collective "
                        "expanded into ops)";
                    break;
                case op_kind::SEND:
                case op_kind::RECV:
                    field = o.kind == op_kind::SEND ? "to" : "from";
                    if (o.peer >= static_cast<std::uint32_t>(m_s.chiplets)) {
                        problem = "names node " + std::to_string(o.peer) + ", but " + m_owner +
                                  " has chiplets 0.." + std::to_string(m_s.chiplets - 1) +
                                  " (a chiplet's node id is its index, row-major)";
                    } else if (o.peer == static_cast<std::uint32_t>(chiplet)) {
                        problem = "names its own chiplet (node " + std::to_string(o.peer) +
                                  "): a message goes to another chiplet";
                    } else {
                        field.clear();
                    }
                    break;
                default:
                    break;
            }
            if (problem.empty()) continue;
            const std::string name = o.name.empty() ? st->window.source().name_of(k) : o.name;
            const std::string what =
                (name.empty() ? std::string(ops::kind_name(o.kind)) + " [" + std::to_string(k) + "]"
                              : "op '" + name + "'") +
                " " + problem;
            if (o.key.empty()) throw input_error(where, key, unit + ": " + what);
            source_loc at = o.where;
            if (!field.empty() && given != nullptr && given->is_seq() &&
                k < given->items().size()) {
                if (const config_node* v = given->items()[k].find(field)) at = v->loc();
            }
            throw input_error(at, field.empty() ? o.key : o.key + "." + field, what);
        }
        st->window.materialise(std::move(first));
    }
    slot = std::move(st);
    ++m_taken;
    for (std::size_t u = 0; u < ops::k_op_units; ++u) wake(chiplet, u, 0);
}

void chiplet_op_runner::attach(noc_network& net) {
    m_net = &net;
    net.on_delivered = [this](const noc_packet& p, std::uint64_t cycle) {
        delivered(static_cast<std::uint32_t>(p.tag), cycle);
    };
    net.set_source(this);
}

std::uint64_t chiplet_op_runner::next_cycle() const {
    return m_wake.empty() ? std::numeric_limits<std::uint64_t>::max() : std::get<0>(m_wake.top());
}

void chiplet_op_runner::wake(int c, std::size_t u, std::uint64_t at) {
    m_wake.push({at, m_order++, c, u});
}

void chiplet_op_runner::generate(std::uint64_t now, noc_network& net) {
    (void)net;
    while (!m_wake.empty() && std::get<0>(m_wake.top()) <= now) {
        const auto [at, order, c, u] = m_wake.top();
        (void)at;
        (void)order;
        m_wake.pop();
        step(c, u, now);
    }
}

// One unit's engine, as host_cpu::unit_step: it runs its ops in list order and returns where
// it has to wait (a wake-up queued, or parked until an op it waits for is done or its
// message arrives).
void chiplet_op_runner::step(int c, std::size_t u, std::uint64_t now) {
    stream& st = *m_streams[static_cast<std::size_t>(c)];
    ip::op_window& w = st.window;
    unit_run& r = st.units[u];
    while (true) {
        switch (r.ph) {
            case phase::NEXT:
                if (!w.fill(u)) {
                    r.ph = phase::DONE;
                    return;
                }
                r.op = w.unit_ops(u).front();
                r.what = w.op_at(r.op);
                r.dep = 0;
                r.ready = now;
                r.arrival = 0;
                r.received_bytes = 0;
                r.msg_id = 0;
                r.ph = phase::DEPS;
                break;
            case phase::DEPS: {
                for (; r.dep < r.what.dep_count; ++r.dep) {
                    const std::size_t d = w.dep(r.op, r.what, r.dep);
                    const ip::op_window::op_status& ds = w.status_of(d);
                    if (ds.state != op_state::DONE) {
                        r.waits_for = d;
                        return;  // mark_done wakes it
                    }
                    r.ready = std::max(r.ready, ds.done_ps / m_s.cycle_ps);
                }
                r.waits_for = ip::op_window::k_none;
                r.ph = phase::START;
                if (r.ready > now) {
                    wake(c, u, r.ready);
                    return;
                }
                break;
            }
            case phase::START:
                start_op(c, u, now);
                break;
            case phase::RECV_MATCH: {
                if (!w.status_of(r.op).matched) return;  // delivered() wakes it
                if (r.received_bytes != r.what.bytes) {
                    throw sim_error(describe(c, r.op) + " expects " + std::to_string(r.what.bytes) +
                                    " B from node " + std::to_string(r.what.peer) + " with tag " +
                                    std::to_string(r.what.tag) + ", but the message has " +
                                    std::to_string(r.received_bytes) + " B");
                }
                r.end = std::max(r.start, r.arrival);
                r.ph = phase::FINISH;
                break;
            }
            case phase::FINISH:
                if (r.end > now) {
                    r.ph = phase::FINISHED;
                    wake(c, u, r.end);
                    return;
                }
                [[fallthrough]];
            case phase::FINISHED: {
                const std::size_t i = r.op;
                if (w.records_runs()) {
                    ip::op_window::run_record& rec = w.record_of(i);
                    rec.released_ps = r.end * m_s.cycle_ps;
                    rec.arrival_ps = r.arrival * m_s.cycle_ps;
                    rec.msg_id = r.msg_id;
                }
                if (on_span) {
                    on_span(c, u, i, r.what, w.keeps_names() ? w.name_of(i) : std::string(),
                            r.start * m_s.cycle_ps, r.end * m_s.cycle_ps);
                }
                w.pass(u);
                r.ph = phase::NEXT;
                mark_done(c, i, r.end);
                break;
            }
            case phase::DONE:
                return;
        }
    }
}

void chiplet_op_runner::start_op(int c, std::size_t u, std::uint64_t now) {
    stream& st = *m_streams[static_cast<std::size_t>(c)];
    unit_run& r = st.units[u];
    const ip::op_window::slot& o = r.what;
    st.window.status_of(r.op).state = op_state::RUNNING;
    r.start = now;
    if (st.window.records_runs()) st.window.record_of(r.op).started_ps = now * m_s.cycle_ps;
    r.ph = phase::FINISH;
    switch (o.kind) {
        case op_kind::COMPUTE:
        case op_kind::GPU_COMPUTE:
        case op_kind::SUM:
        case op_kind::UPDATE: {
            const std::uint64_t bytes =
                static_cast<std::uint64_t>(o.read_passes + o.write_passes) * o.bytes;
            r.end = now + cycles(m_compute.op_ps(o.kind, o.flops, bytes));
            break;
        }
        case op_kind::DELAY:
            r.end = now + cycles(o.delay_ps);
            break;
        case op_kind::SEND:
            send(c, u, now);
            break;
        case op_kind::RECV: {
            ip::message_matcher::arrival a;
            if (st.matcher.post_recv(u, r.op, o.peer, o.tag, a)) {
                st.window.status_of(r.op).matched = true;
                r.arrival = a.at_ps / m_s.cycle_ps;
                r.received_bytes = a.bytes;
                r.msg_id = a.msg_id;
            }
            r.ph = phase::RECV_MATCH;
            break;
        }
        case op_kind::COPY_TO_HOST:
        case op_kind::COPY_TO_GPU:
        case op_kind::ALLREDUCE:
            throw sim_error(describe(c, r.op) + ": internal error: an op a chiplet cannot run");
    }
}

// The message's packets queued at the chiplet's router now; the unit is free at once, the send
// done when the last packet is delivered (delivered()).
void chiplet_op_runner::send(int c, std::size_t u, std::uint64_t now) {
    stream& st = *m_streams[static_cast<std::size_t>(c)];
    unit_run& r = st.units[u];
    const ip::op_window::slot& o = r.what;
    ip::message_matcher::pending_send p;
    p.op = r.op;
    p.started_ps = now * m_s.cycle_ps;
    p.bytes = o.bytes;
    p.address = o.address;
    p.kind = op_kind::SEND;
    p.tos = o.tos;
    r.msg_id = st.matcher.post_send(p);
    st.window.status_of(r.op).state = op_state::ISSUED;
    const auto id = static_cast<std::uint32_t>(m_messages.size());
    message m;
    m.src = c;
    m.dst = static_cast<int>(o.peer);
    m.tag = o.tag;
    m.bytes = o.bytes;
    m.msg_id = r.msg_id;
    m_message_bytes += o.bytes;
    // As collective_traffic cuts a schedule's message (noc/collective).
    const std::uint64_t flits = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(
               std::ceil(static_cast<double>(o.bytes) / m_s.flit_bytes - 1e-9)));
    const std::uint64_t per_packet = m_s.whole_messages
                                         ? (m_s.split_over_variants ? (flits + 1) / 2 : flits)
                                         : static_cast<std::uint64_t>(m_s.packet_flits);
    m.packets_left = static_cast<std::uint32_t>((flits + per_packet - 1) / per_packet);
    m_messages.push_back(m);
    std::uint64_t left = flits;
    int variant = 0;
    while (left > 0) {
        const int f = static_cast<int>(std::min<std::uint64_t>(left, per_packet));
        m_net->add_packet(c, m.dst, f, now, true, id, variant);
        if (m_s.split_over_variants) variant ^= 1;
        left -= static_cast<std::uint64_t>(f);
    }
    // The unit moves on (MPI_Isend); the op is done at delivery.
    if (st.window.records_runs()) {
        ip::op_window::run_record& rec = st.window.record_of(r.op);
        rec.released_ps = now * m_s.cycle_ps;
        rec.msg_id = r.msg_id;
    }
    if (on_span) {
        on_span(c, u, r.op, o, st.window.keeps_names() ? st.window.name_of(r.op) : std::string(),
                now * m_s.cycle_ps, now * m_s.cycle_ps);
    }
    st.window.pass(u);
    r.ph = phase::NEXT;
}

void chiplet_op_runner::mark_done(int c, std::size_t i, std::uint64_t at) {
    stream& st = *m_streams[static_cast<std::size_t>(c)];
    st.window.complete(i, at * m_s.cycle_ps);
    ++m_done;
    m_end_cycle = std::max(m_end_cycle, at);
    for (std::size_t u = 0; u < ops::k_op_units; ++u) {
        unit_run& r = st.units[u];
        if (r.waits_for == i) {
            r.waits_for = ip::op_window::k_none;
            wake(c, u, at);
        }
    }
    st.window.retire_chunks();
}

void chiplet_op_runner::delivered(std::uint32_t id, std::uint64_t cycle) {
    message& m = m_messages[id];
    if (--m.packets_left > 0) return;
    // The send: done at delivery (host.cpu's SEND_DONE).
    stream& from = *m_streams[static_cast<std::size_t>(m.src)];
    ip::message_matcher::pending_send p;
    if (!from.matcher.complete_send(m.msg_id, p)) {
        throw sim_error(m_owner + ": internal error: message " + std::to_string(m.msg_id) +
                        " of chiplet " + std::to_string(m.src) + " delivered twice");
    }
    mark_done(m.src, p.op, cycle);
    // The receive: the first unit whose posted receive matches, else the unexpected queue.
    auto& to_slot = m_streams[static_cast<std::size_t>(m.dst)];
    if (!to_slot) {
        throw sim_error(m_owner + ".chiplet[" + std::to_string(m.src) +
                        "] sent a message to chiplet " + std::to_string(m.dst) +
                        ", which has no ops to receive it");
    }
    stream& to = *to_slot;
    const std::size_t u = to.matcher.receive(static_cast<std::uint32_t>(m.src), m.tag);
    if (u == ip::message_matcher::k_none) {
        ip::message_matcher::arrival a;
        a.peer = static_cast<std::uint32_t>(m.src);
        a.tag = m.tag;
        a.bytes = m.bytes;
        a.at_ps = cycle * m_s.cycle_ps;
        a.msg_id = m.msg_id;
        to.matcher.add_unexpected(std::move(a));
        return;
    }
    unit_run& r = to.units[u];
    to.window.status_of(r.op).matched = true;
    r.arrival = cycle;
    r.received_bytes = m.bytes;
    r.msg_id = m.msg_id;
    wake(m.dst, u, cycle);
}

std::string chiplet_op_runner::pending() const {
    std::string out;
    int listed = 0;
    for (std::size_t c = 0; c < m_streams.size(); ++c) {
        if (!m_streams[c]) continue;
        const stream& st = *m_streams[c];
        for (std::size_t u = 0; u < ops::k_op_units; ++u) {
            const unit_run& r = st.units[u];
            if (r.ph == phase::DONE || r.ph == phase::NEXT) continue;
            if (listed++ == 8) {
                out += "; ...";
                return out;
            }
            std::string what = describe(static_cast<int>(c), r.op);
            if (r.ph == phase::RECV_MATCH) {
                what += " waits for a message from node " + std::to_string(r.what.peer) +
                        " with tag " + std::to_string(r.what.tag);
            } else if (r.waits_for != ip::op_window::k_none) {
                what += " waits for " + describe(static_cast<int>(c), r.waits_for);
            } else {
                what += " runs";
            }
            out += (out.empty() ? "" : "; ") + what;
        }
    }
    return std::to_string(m_total - m_done) + " of " + std::to_string(m_total) + " ops not done" +
           (out.empty() ? "" : ": " + out);
}

workloads::host_run chiplet_op_runner::ran(int chiplet, const std::string& name) {
    auto& st = m_streams[static_cast<std::size_t>(chiplet)];
    if (!st) return workloads::host_run{name, static_cast<std::uint32_t>(chiplet), {}, {}};
    return st->window.ran(name, static_cast<std::uint32_t>(chiplet));
}

}  // namespace trainvp::noc
