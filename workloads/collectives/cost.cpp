#include "workloads/collectives/cost.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

#include "workloads/collectives/schedule_walker.h"

namespace trainvp::collectives {

cost_summary summarize(const schedule& s) {
    cost_summary out;
    out.rounds = round_count(s);
    out.per_rank.resize(s.steps.size());
    std::vector<bool> reduces_in(out.rounds, false);
    std::set<std::pair<int, int>> links;
    for (std::size_t r = 0; r < s.steps.size(); ++r) {
        rank_cost& c = out.per_rank[r];
        c.rounds = static_cast<uint32_t>(group_by_round(s.steps[r]).size());
        for (const step& st : s.steps[r]) {
            switch (st.kind) {
                case step_kind::SEND:
                    c.messages_sent += 1;
                    c.elements_sent += st.range.count;
                    links.emplace(static_cast<int>(r), st.peer);
                    break;
                case step_kind::RECV_REDUCE:
                    c.elements_received += st.range.count;
                    c.elements_reduced += st.range.count;
                    reduces_in[st.round] = true;
                    break;
                case step_kind::RECV_COPY:
                    c.elements_received += st.range.count;
                    break;
            }
        }
        out.elements_sent += c.elements_sent;
    }
    out.reduce_rounds =
        static_cast<uint32_t>(std::count(reduces_in.begin(), reduces_in.end(), true));
    out.directed_links = links.size();
    return out;
}

bool is_lockstep(const schedule& s) {
    const schedule_walker walker(s);
    for (int r = 0; r < s.ranks; ++r) {
        const auto& rs = s.steps[static_cast<std::size_t>(r)];
        for (std::size_t i = 0; i < rs.size(); ++i) {
            const step& peer_step =
                s.steps[static_cast<std::size_t>(rs[i].peer)][walker.match(r, i)];
            if (peer_step.round != rs[i].round) return false;
        }
    }
    return true;
}

double alpha_beta_gamma_time(const schedule& s, const abg_params& p) {
    if (!is_lockstep(s)) {
        throw std::invalid_argument("alpha_beta_gamma_time '" + s.algorithm +
                                    "': a SEND and its RECV sit in different rounds; the "
                                    "lockstep model needs them in the same round");
    }
    std::vector<double> slowest(round_count(s), 0.0);
    const double bytes = static_cast<double>(p.element_bytes);
    for (const auto& rs : s.steps) {
        for (const step_group& g : group_by_round(rs)) {
            uint64_t sent = 0, received = 0, reduced = 0;
            for (std::size_t i = g.begin; i < g.end; ++i) {
                const step& st = rs[i];
                if (st.kind == step_kind::SEND) {
                    sent += st.range.count;
                } else {
                    received += st.range.count;
                    if (st.kind == step_kind::RECV_REDUCE) reduced += st.range.count;
                }
            }
            const double t = p.alpha +
                             p.beta * bytes * static_cast<double>(std::max(sent, received)) +
                             p.gamma * bytes * static_cast<double>(reduced);
            slowest[g.round] = std::max(slowest[g.round], t);
        }
    }
    double total = 0.0;
    for (double t : slowest) total += t;
    return total;
}

}  // namespace trainvp::collectives
