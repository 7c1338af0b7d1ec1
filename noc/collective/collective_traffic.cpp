#include "noc/collective/collective_traffic.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "noc/network/noc_network.h"
#include "workloads/collectives/schedule.h"

namespace trainvp::noc {

collective_traffic::collective_traffic(const collectives::schedule& sched,
                                       std::vector<int> router_of, double flit_bytes,
                                       int packet_flits, int element_bytes)
    : m_router_of(std::move(router_of)), m_flit_bytes(flit_bytes), m_packet_flits(packet_flits) {
    const collectives::schedule s = collectives::without_empty_transfers(sched);
    if (static_cast<int>(m_router_of.size()) < s.ranks) {
        throw std::invalid_argument("the mapping places " + std::to_string(m_router_of.size()) +
                                    " ranks, the schedule has " + std::to_string(s.ranks));
    }
    // One message per SEND, found again by the matching RECV through (src, dst, tag).
    std::map<std::tuple<int, int, std::uint32_t>, int> ids;
    for (int r = 0; r < s.ranks; ++r) {
        for (const auto& st : s.steps[static_cast<std::size_t>(r)]) {
            if (st.kind != collectives::step_kind::SEND) continue;
            ids[{r, st.peer, st.tag}] = static_cast<int>(m_messages.size());
            message m;
            m.src = r;
            m.dst = st.peer;
            m.bytes = st.range.count * static_cast<std::uint64_t>(element_bytes);
            m_bytes += m.bytes;
            m_messages.push_back(m);
        }
    }
    m_groups.resize(static_cast<std::size_t>(s.ranks));
    for (int r = 0; r < s.ranks; ++r) {
        const auto& steps = s.steps[static_cast<std::size_t>(r)];
        for (const auto& g : collectives::group_by_round(steps)) {
            group out;
            for (std::size_t i = g.begin; i < g.end; ++i) {
                const auto& st = steps[i];
                if (st.kind == collectives::step_kind::SEND) {
                    out.sends.push_back(ids.at({r, st.peer, st.tag}));
                } else {
                    out.recvs.push_back(ids.at({st.peer, r, st.tag}));
                }
            }
            m_groups[static_cast<std::size_t>(r)].push_back(std::move(out));
        }
        m_max_groups = std::max(m_max_groups, m_groups[static_cast<std::size_t>(r)].size());
    }
    m_current.assign(static_cast<std::size_t>(s.ranks), 0);
    m_outstanding.assign(static_cast<std::size_t>(s.ranks), 0);
    m_entered.assign(static_cast<std::size_t>(s.ranks), false);
    for (int r = 0; r < s.ranks; ++r) {
        if (m_groups[static_cast<std::size_t>(r)].empty()) {
            ++m_ranks_done;
        } else {
            m_wake.push({0, r});
        }
    }
}

void collective_traffic::attach(noc_network& net) {
    net.on_delivered = [this](const noc_packet& p, std::uint64_t cycle) {
        delivered(static_cast<std::uint32_t>(p.tag), cycle);
    };
}

std::uint64_t collective_traffic::next_cycle() const {
    return m_wake.empty() ? std::numeric_limits<std::uint64_t>::max() : m_wake.top().first;
}

void collective_traffic::generate(std::uint64_t now, noc_network& net) {
    while (!m_wake.empty() && m_wake.top().first <= now) {
        const int r = m_wake.top().second;
        m_wake.pop();
        enter(r, now, net);
    }
}

void collective_traffic::enter(int rank, std::uint64_t now, noc_network& net) {
    const group& g =
        m_groups[static_cast<std::size_t>(rank)][m_current[static_cast<std::size_t>(rank)]];
    int outstanding = static_cast<int>(g.sends.size());
    for (int id : g.recvs) {
        if (!m_messages[static_cast<std::size_t>(id)].delivered) ++outstanding;
    }
    m_outstanding[static_cast<std::size_t>(rank)] = outstanding;
    m_entered[static_cast<std::size_t>(rank)] = true;
    for (int id : g.sends) {
        message& m = m_messages[static_cast<std::size_t>(id)];
        const std::uint64_t flits = std::max<std::uint64_t>(
            1, static_cast<std::uint64_t>(
                   std::ceil(static_cast<double>(m.bytes) / m_flit_bytes - 1e-9)));
        const std::uint64_t per_packet = m_whole ? (m_split ? (flits + 1) / 2 : flits)
                                                 : static_cast<std::uint64_t>(m_packet_flits);
        m.packets_left = static_cast<std::uint32_t>((flits + per_packet - 1) / per_packet);
        std::uint64_t left = flits;
        int variant = 0;
        while (left > 0) {
            const int f = static_cast<int>(std::min<std::uint64_t>(left, per_packet));
            net.add_packet(m_router_of[static_cast<std::size_t>(m.src)],
                           m_router_of[static_cast<std::size_t>(m.dst)], f, now, true,
                           static_cast<std::uint64_t>(id), variant);
            if (m_split) variant ^= 1;
            left -= static_cast<std::uint64_t>(f);
        }
    }
    if (outstanding == 0) step_done(rank, now);
}

void collective_traffic::delivered(std::uint32_t id, std::uint64_t cycle) {
    message& m = m_messages[id];
    if (--m.packets_left > 0) return;
    m.delivered = true;
    if (cycle > m_finish) m_finish = cycle;
    // The sender waits in the group that holds the send until it is delivered.
    if (--m_outstanding[static_cast<std::size_t>(m.src)] == 0) step_done(m.src, cycle);
    // The receiver counts it if it has entered the group that holds the receive; otherwise
    // entering that group later finds it delivered.
    const auto dst = static_cast<std::size_t>(m.dst);
    if (m_entered[dst]) {
        const group& g = m_groups[dst][m_current[dst]];
        for (int r : g.recvs) {
            if (r == static_cast<int>(id)) {
                if (--m_outstanding[dst] == 0) step_done(m.dst, cycle);
                break;
            }
        }
    }
}

void collective_traffic::step_done(int rank, std::uint64_t cycle) {
    const auto r = static_cast<std::size_t>(rank);
    m_entered[r] = false;
    if (++m_current[r] == m_groups[r].size()) {
        ++m_ranks_done;
    } else {
        m_wake.push({cycle + 1, rank});
    }
}

std::string collective_traffic::pending() const {
    if (done()) return {};
    return std::to_string(static_cast<int>(m_groups.size()) - m_ranks_done) + " of " +
           std::to_string(m_groups.size()) + " ranks not finished";
}

std::vector<int> row_major_mapping(int k) {
    std::vector<int> m(static_cast<std::size_t>(k * k));
    for (int i = 0; i < k * k; ++i) m[static_cast<std::size_t>(i)] = i;
    return m;
}

std::vector<int> ring_mapping(int k) {
    if (k % 2 != 0) throw std::invalid_argument("a ring mapping on a mesh needs an even k");
    std::vector<int> m;
    for (int x = 0; x < k; ++x) m.push_back(x);  // row 0
    for (int y = 1; y < k; ++y) {                // snake over columns 1..k-1
        for (int i = 1; i < k; ++i) {
            const int x = (y % 2 == 1) ? k - i : i;
            m.push_back(y * k + x);
        }
    }
    for (int y = k - 1; y >= 1; --y) m.push_back(y * k);  // down column 0
    return m;
}

}  // namespace trainvp::noc
