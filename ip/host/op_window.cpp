#include "ip/host/op_window.h"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

#include "core/error.h"

namespace trainvp::ip {

op_window::op_window(std::string owner) : m_owner(std::move(owner)) {}

void op_window::open(std::unique_ptr<ops::op_source> src, bool record_runs, bool keep_names) {
    m_source = std::move(src);
    m_chunks_total = m_source->chunks();
    m_total = m_source->size();
    m_unit_total = m_source->unit_sizes();
    m_run_last.fill(workloads::k_no_op);
    m_record_runs = record_runs;
    m_keep_names = keep_names;
}

bool op_window::fill_from_source(std::size_t u) {
    // Out of ops: the next chunk (iteration) holds this unit's next ones.
    while (m_unit_ops[u].empty() && m_unit_passed[u] < m_unit_total[u] &&
           m_next_chunk < m_chunks_total) {
        materialise(m_source->take(m_next_chunk));
    }
    return !m_unit_ops[u].empty();
}

void op_window::materialise(std::vector<ops::op> list) {
    const std::size_t c = m_next_chunk;
    if (m_chunks.size() >= k_max_live_chunks) {
        throw sim_error(m_owner + ": internal error: chunk " + std::to_string(c) +
                        " of the op stream would be the " + std::to_string(m_chunks.size() + 1) +
                        "th held at once (at most " + std::to_string(k_max_live_chunks) +
                        "): a unit ran that far ahead of the oldest unfinished one");
    }
    ++m_next_chunk;
    chunk ch;
    ch.begin = m_first + m_window.size();
    ch.end = ch.begin + list.size();
    ch.not_done = list.size();
    // Ops may wait for their own chunk and the one before it: that one is still in the window
    // (a chunk is only dropped once the next one's references to it are done).
    const std::size_t previous = m_chunks.empty() ? ch.begin : m_chunks.back().begin;
    m_window.reserve_more(list.size());
    m_status.reserve_more(list.size());
    if (m_record_runs) m_records.reserve_more(list.size());
    for (std::size_t k = 0; k < list.size(); ++k) {
        const std::size_t i = ch.begin + k;
        const ops::op& o = list[k];
        slot s;
        op_status st;
        s.dep_count = static_cast<std::uint32_t>(o.after.size());
        const bool near = s.dep_count <= k_inline_deps;
        if (near) {
            s.near = {0, 0};
        } else {
            s.dep_begin = m_deps_first + m_deps.size();
        }
        std::uint32_t k_dep = 0;
        for (std::size_t d : o.after) {
            if (d >= i || d < previous) {
                throw std::logic_error(
                    m_owner + ": op " + std::to_string(i) + " waits for op " + std::to_string(d) +
                    (d >= i ? ", a later one" : ", before the previous chunk of its stream"));
            }
            if (d < ch.begin) st.refs_previous = true;
            const auto distance = static_cast<std::uint32_t>(i - d);
            if (near) {
                s.near[k_dep++] = distance;
            } else {
                m_deps.push_back(distance);
            }
        }
        if (st.refs_previous) ++ch.refs_not_done;
        s.kind = o.kind;
        s.unit = o.unit;
        s.phase = ops::phase_of(o);
        // flops and delay_ps share their place: a DELAY has no work, other kinds no delay.
        if (o.kind == op_kind::DELAY) {
            s.delay_ps = o.delay_ps;
        } else {
            s.flops = ops::work_flops(o);
        }
        s.bytes = o.bytes;
        s.address = o.address;
        s.peer = o.peer;
        s.tag = o.tag;
        s.tos = o.tos;
        const ops::traffic t = ops::memory_traffic(o);
        if (t.read_passes > UINT16_MAX || t.write_passes > UINT16_MAX) {
            throw std::logic_error(m_owner + ": op " + std::to_string(i) + " makes " +
                                   std::to_string(t.read_passes) + " read and " +
                                   std::to_string(t.write_passes) +
                                   " write passes over memory, more than a slot holds (65535)");
        }
        s.read_passes = static_cast<std::uint16_t>(t.read_passes);
        s.write_passes = static_cast<std::uint16_t>(t.write_passes);
        // A SUM of two inputs whose `after` holds a RECV of the same range adds that message in
        // (collective_ops' RECV_REDUCE expansion).
        if (o.kind == op_kind::SUM && o.inputs == 2) {
            for (std::size_t d : o.after) {
                const slot& r = op_at(d);  // d < i: already in the window
                if (r.kind == op_kind::RECV && r.address == o.address && r.bytes == o.bytes) {
                    s.sum_source = static_cast<std::uint32_t>(i - d);
                    status_of(d).recv_summed = true;
                    break;
                }
            }
        }
        m_unit_ops[static_cast<std::size_t>(o.unit)].push_back(i);
        m_window.push_back(s);
        m_status.push_back(st);
        if (m_record_runs) m_records.push_back(run_record{});
        if (m_keep_names) m_names.push_back(o.name);
    }
    ch.dep_end = m_deps_first + m_deps.size();
    m_chunks.push_back(ch);
    m_max_live = std::max(m_max_live, m_window.size());
}

void op_window::retire_unreferenced() {
    while (m_chunks.size() >= 2) {
        const chunk& c = m_chunks[0];
        if (c.not_done > 0 || m_chunks[1].refs_not_done > 0) return;
        // A unit still on one of its ops (a send done before the NIC took it) records it yet.
        for (const auto& q : m_unit_ops) {
            if (!q.empty() && q.front() < c.end) return;
        }
        if (m_record_runs) {
            for (std::size_t i = c.begin; i < c.end; ++i) record_run(i, m_run, m_run_last);
        }
        const std::size_t n = c.end - c.begin;
        m_window.drop_front(n);
        m_status.drop_front(n);
        if (m_record_runs) m_records.drop_front(n);
        if (m_keep_names) m_names.drop_front(n);
        m_deps.drop_front(c.dep_end - m_deps_first);
        m_deps_first = c.dep_end;
        m_first = c.end;
        m_chunks.pop_front();
    }
}

void op_window::record_run(std::size_t i, workloads::host_run& run,
                           std::array<std::size_t, ops::k_op_units>& last) const {
    const slot& s = op_at(i);
    const op_status& st = status_of(i);
    const run_record& rec = m_records[i - m_first];
    workloads::op_run r;
    r.kind = s.kind;
    r.phase = s.phase;
    const auto u = static_cast<std::size_t>(s.unit);
    r.unit_prev = last[u];
    last[u] = i;
    r.start_ps = rec.started_ps;
    r.release_ps = rec.released_ps;
    r.end_ps = st.done_ps;
    const bool recv = s.kind == op_kind::RECV;
    r.msg_id = recv ? 0 : rec.msg_id;
    r.matched = recv && st.matched;
    r.src_node = s.peer;
    r.src_msg_id = recv ? rec.msg_id : 0;
    r.arrival_ps = rec.arrival_ps;
    std::vector<std::size_t> after(s.dep_count);
    for (std::uint32_t k = 0; k < s.dep_count; ++k) after[k] = dep(i, k);
    run.add(r, after);
}

workloads::host_run op_window::ran(const std::string& name, std::uint32_t node_id) {
    workloads::host_run out = std::move(m_run);
    m_run = workloads::host_run{};
    out.name = name;
    out.node_id = node_id;
    if (!m_record_runs) return workloads::host_run{out.name, out.node_id, {}, {}};
    std::array<std::size_t, ops::k_op_units> last = m_run_last;
    for (std::size_t i = m_first; i < m_first + m_window.size(); ++i) {
        if (status_of(i).state != op_state::DONE) break;
        record_run(i, out, last);
    }
    return out;
}

}  // namespace trainvp::ip
