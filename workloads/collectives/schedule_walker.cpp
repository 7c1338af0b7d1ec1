#include "workloads/collectives/schedule_walker.h"

#include <stdexcept>
#include <string>
#include <unordered_map>

namespace trainvp::collectives {

namespace {

struct message_key {
    int src;
    int dst;
    uint32_t tag;
    bool operator==(const message_key& o) const {
        return src == o.src && dst == o.dst && tag == o.tag;
    }
};

struct message_key_hash {
    std::size_t operator()(const message_key& k) const {
        uint64_t h = static_cast<uint32_t>(k.src);
        h = h * 0x9E3779B97F4A7C15ULL + static_cast<uint32_t>(k.dst);
        h = h * 0x9E3779B97F4A7C15ULL + k.tag;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

std::string prefix(const schedule& s) { return "schedule '" + s.algorithm + "': "; }

}  // namespace

std::string describe_step(const schedule& s, int rank, std::size_t step_index) {
    const step& st = s.steps[static_cast<std::size_t>(rank)][step_index];
    const bool send = st.kind == step_kind::SEND;
    return "rank " + std::to_string(rank) + " step " + std::to_string(step_index) + " (" +
           to_string(st.kind) + (send ? " to " : " from ") + std::to_string(st.peer) + ", tag " +
           std::to_string(st.tag) + ", round " + std::to_string(st.round) + ", [" +
           std::to_string(st.range.offset) + ", +" + std::to_string(st.range.count) + "))";
}

schedule_walker::schedule_walker(const schedule& s) : m_schedule(s) {
    if (s.ranks < 1 || s.steps.size() != static_cast<std::size_t>(s.ranks)) {
        throw std::logic_error(prefix(s) + "steps has " + std::to_string(s.steps.size()) +
                               " rank lists for " + std::to_string(s.ranks) + " ranks");
    }
    const std::size_t n = static_cast<std::size_t>(s.ranks);
    m_match.resize(n);
    m_groups.resize(n);

    // Where each message's SEND sits, then each RECV claims its SEND.
    std::unordered_map<message_key, std::pair<int, std::size_t>, message_key_hash> sends;
    for (int r = 0; r < s.ranks; ++r) {
        const auto& rs = s.steps[static_cast<std::size_t>(r)];
        m_match[static_cast<std::size_t>(r)].assign(rs.size(), 0);
        m_groups[static_cast<std::size_t>(r)] = group_by_round(rs);
        for (std::size_t i = 0; i < rs.size(); ++i) {
            const step& st = rs[i];
            if (st.peer < 0 || st.peer >= s.ranks || st.peer == r) {
                throw std::logic_error(prefix(s) + describe_step(s, r, i) +
                                       ": peer must be another rank in [0, " +
                                       std::to_string(s.ranks) + ")");
            }
            if (st.kind != step_kind::SEND) continue;
            const auto [it, fresh] =
                sends.emplace(message_key{r, st.peer, st.tag}, std::make_pair(r, i));
            if (!fresh) {
                throw std::logic_error(prefix(s) + describe_step(s, r, i) +
                                       ": duplicates the (src, dst, tag) of " +
                                       describe_step(s, r, it->second.second));
            }
        }
    }
    std::vector<std::vector<char>> claimed(n);
    for (int r = 0; r < s.ranks; ++r) {
        claimed[static_cast<std::size_t>(r)].assign(s.steps[static_cast<std::size_t>(r)].size(), 0);
    }
    for (int r = 0; r < s.ranks; ++r) {
        const auto& rs = s.steps[static_cast<std::size_t>(r)];
        for (std::size_t i = 0; i < rs.size(); ++i) {
            const step& st = rs[i];
            if (st.kind == step_kind::SEND) continue;
            const auto it = sends.find(message_key{st.peer, r, st.tag});
            if (it == sends.end()) {
                throw std::logic_error(prefix(s) + describe_step(s, r, i) + ": no matching SEND");
            }
            const auto [src, send_index] = it->second;
            char& claim = claimed[static_cast<std::size_t>(src)][send_index];
            if (claim) {
                throw std::logic_error(prefix(s) + describe_step(s, r, i) + ": a second RECV for " +
                                       describe_step(s, src, send_index));
            }
            const step& snd = s.steps[static_cast<std::size_t>(src)][send_index];
            if (snd.range.count != st.range.count) {
                throw std::logic_error(prefix(s) + describe_step(s, r, i) +
                                       ": size differs from its " +
                                       describe_step(s, src, send_index));
            }
            claim = 1;
            m_match[static_cast<std::size_t>(r)][i] = send_index;
            m_match[static_cast<std::size_t>(src)][send_index] = i;
        }
    }
    for (int r = 0; r < s.ranks; ++r) {
        const auto& rs = s.steps[static_cast<std::size_t>(r)];
        for (std::size_t i = 0; i < rs.size(); ++i) {
            if (rs[i].kind == step_kind::SEND && !claimed[static_cast<std::size_t>(r)][i]) {
                throw std::logic_error(prefix(s) + describe_step(s, r, i) + ": no matching RECV");
            }
        }
    }
}

void schedule_walker::walk(const callbacks& cb) const {
    const schedule& s = m_schedule;
    const std::size_t n = static_cast<std::size_t>(s.ranks);
    std::vector<std::size_t> group(n, 0);    // index of the current group
    std::vector<std::size_t> pending(n, 0);  // steps of the current group not yet fired
    std::vector<std::vector<bool>> fired(n);

    auto finished = [&](std::size_t r) { return group[r] >= m_groups[r].size(); };
    auto enter = [&](std::size_t r) {
        if (finished(r)) return;
        const step_group& g = m_groups[r][group[r]];
        pending[r] = g.end - g.begin;
        if (cb.round_begin) cb.round_begin(static_cast<int>(r), g);
    };
    auto leave = [&](std::size_t r) {
        if (cb.round_end) cb.round_end(static_cast<int>(r), m_groups[r][group[r]]);
        ++group[r];
        enter(r);
    };
    auto in_current = [&](std::size_t r, std::size_t i) {
        if (finished(r)) return false;
        const step_group& g = m_groups[r][group[r]];
        return i >= g.begin && i < g.end;
    };

    for (std::size_t r = 0; r < n; ++r) {
        fired[r].assign(s.steps[r].size(), false);
        enter(r);
    }

    bool progress = true;
    while (progress) {
        progress = false;
        for (std::size_t r = 0; r < n; ++r) {
            bool advanced = true;
            while (advanced && !finished(r)) {
                advanced = false;
                const step_group g = m_groups[r][group[r]];
                for (std::size_t i = g.begin; i < g.end; ++i) {
                    if (fired[r][i] || s.steps[r][i].kind != step_kind::SEND) continue;
                    const std::size_t b = static_cast<std::size_t>(s.steps[r][i].peer);
                    const std::size_t j = m_match[r][i];
                    if (!in_current(b, j)) continue;
                    fired[r][i] = true;
                    fired[b][j] = true;
                    if (cb.transfer) cb.transfer(static_cast<int>(r), i, static_cast<int>(b), j);
                    progress = true;
                    if (--pending[b] == 0) leave(b);
                    if (--pending[r] == 0) {
                        leave(r);
                        advanced = true;
                        break;
                    }
                }
            }
        }
    }

    for (std::size_t r = 0; r < n; ++r) {
        if (finished(r)) continue;
        const step_group& g = m_groups[r][group[r]];
        std::size_t i = g.begin;
        while (fired[r][i]) ++i;
        const std::size_t b = static_cast<std::size_t>(s.steps[r][i].peer);
        std::size_t blocked = 0;
        for (std::size_t q = 0; q < n; ++q) blocked += finished(q) ? 0 : 1;
        std::string peer_state;
        if (finished(b)) {
            peer_state = "has finished all its steps";
        } else {
            const step_group& pg = m_groups[b][group[b]];
            std::size_t pi = pg.begin;
            while (fired[b][pi]) ++pi;
            peer_state = "is blocked at " + describe_step(s, static_cast<int>(b), pi);
        }
        throw std::logic_error(prefix(s) + "deadlock: " + describe_step(s, static_cast<int>(r), i) +
                               " cannot proceed because its peer " + peer_state + " (" +
                               std::to_string(blocked) + " of " + std::to_string(n) +
                               " ranks blocked)");
    }
}

}  // namespace trainvp::collectives
