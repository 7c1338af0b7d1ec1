#include "workloads/collectives/communicator_groups.h"

#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace trainvp::collectives {

namespace {

void check_parts(const char* what, const std::vector<schedule>& parts) {
    if (parts.empty()) throw std::invalid_argument(std::string(what) + ": no schedules");
    for (const schedule& p : parts) {
        if (p.ranks != parts[0].ranks || p.elements != parts[0].elements) {
            throw std::invalid_argument(std::string(what) + ": '" + p.algorithm + "' has " +
                                        std::to_string(p.ranks) + " ranks and " +
                                        std::to_string(p.elements) + " elements, '" +
                                        parts[0].algorithm + "' " + std::to_string(parts[0].ranks) +
                                        " and " + std::to_string(parts[0].elements));
        }
    }
}

std::string joined_names(const std::vector<schedule>& parts, const char* sep) {
    std::string out;
    for (const schedule& p : parts) {
        if (out.find(p.algorithm) == std::string::npos)
            out += (out.empty() ? "" : sep) + p.algorithm;
    }
    return out;
}

}  // namespace

schedule on_group(const schedule& s, const std::vector<int>& members, int world) {
    const std::string what = "on_group '" + s.algorithm + "'";
    if (members.size() != static_cast<std::size_t>(s.ranks)) {
        throw std::invalid_argument(what + ": " + std::to_string(members.size()) +
                                    " members for a schedule of " + std::to_string(s.ranks) +
                                    " ranks");
    }
    std::vector<bool> taken(world > 0 ? static_cast<std::size_t>(world) : 0, false);
    for (int m : members) {
        if (m < 0 || m >= world) {
            throw std::invalid_argument(what + ": member " + std::to_string(m) +
                                        " is not a rank of a world of " + std::to_string(world));
        }
        if (taken[static_cast<std::size_t>(m)]) {
            throw std::invalid_argument(what + ": member " + std::to_string(m) + " twice");
        }
        taken[static_cast<std::size_t>(m)] = true;
    }
    schedule out;
    out.algorithm = s.algorithm;
    out.ranks = world;
    out.elements = s.elements;
    out.steps.resize(static_cast<std::size_t>(world));
    out.contributes.assign(static_cast<std::size_t>(world), true);
    for (int r = 0; r < s.ranks; ++r) {
        const std::size_t w = static_cast<std::size_t>(members[static_cast<std::size_t>(r)]);
        out.contributes[w] = s.contributes[static_cast<std::size_t>(r)];
        std::vector<step>& to = out.steps[w];
        to = s.steps[static_cast<std::size_t>(r)];
        for (step& st : to) st.peer = members[static_cast<std::size_t>(st.peer)];
    }
    return out;
}

schedule in_parallel(const std::vector<schedule>& parts) {
    check_parts("in_parallel", parts);
    schedule out;
    out.algorithm = joined_names(parts, "|");
    out.ranks = parts[0].ranks;
    out.elements = parts[0].elements;
    out.steps.resize(static_cast<std::size_t>(out.ranks));
    out.contributes.assign(static_cast<std::size_t>(out.ranks), true);
    std::vector<int> owner(static_cast<std::size_t>(out.ranks), -1);
    for (std::size_t k = 0; k < parts.size(); ++k) {
        for (std::size_t r = 0; r < out.steps.size(); ++r) {
            const schedule& p = parts[k];
            if (!p.contributes[r]) out.contributes[r] = false;
            if (p.steps[r].empty()) continue;
            if (owner[r] >= 0) {
                throw std::invalid_argument(
                    "in_parallel: rank " + std::to_string(r) + " has steps in '" +
                    parts[static_cast<std::size_t>(owner[r])].algorithm + "' and in '" +
                    p.algorithm + "' (compose overlapping groups with in_sequence)");
            }
            owner[r] = static_cast<int>(k);
            out.steps[r] = p.steps[r];
        }
    }
    return out;
}

schedule in_sequence(const std::vector<schedule>& parts) {
    check_parts("in_sequence", parts);
    schedule out;
    out.algorithm = joined_names(parts, ";");
    out.ranks = parts[0].ranks;
    out.elements = parts[0].elements;
    out.steps.resize(static_cast<std::size_t>(out.ranks));
    out.contributes = parts[0].contributes;
    std::map<std::pair<int, int>, uint32_t> used;  // (src, dst) -> tags used so far
    uint32_t first_round = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const schedule& p = parts[k];
        std::map<std::pair<int, int>, uint32_t> used_here;
        for (int r = 0; r < out.ranks; ++r) {
            if (k > 0 && !p.contributes[static_cast<std::size_t>(r)]) {
                throw std::invalid_argument("in_sequence: rank " + std::to_string(r) +
                                            " does not contribute to '" + p.algorithm +
                                            "', which is not the first part");
            }
            for (step st : p.steps[static_cast<std::size_t>(r)]) {
                const std::pair<int, int> pair = st.kind == step_kind::SEND
                                                     ? std::make_pair(r, st.peer)
                                                     : std::make_pair(st.peer, r);
                const auto it = used.find(pair);
                const uint32_t base = it == used.end() ? 0 : it->second;
                if (st.kind == step_kind::SEND) {
                    uint32_t& top = used_here[pair];
                    if (st.tag + 1 > top) top = st.tag + 1;
                }
                st.tag += base;
                st.round += first_round;
                out.steps[static_cast<std::size_t>(r)].push_back(st);
            }
        }
        for (const auto& [pair, count] : used_here) used[pair] += count;
        first_round += round_count(p);
    }
    return out;
}

parallel_groups make_parallel_groups(int tp, int dp) {
    if (tp < 1 || dp < 1) {
        throw std::invalid_argument("make_parallel_groups: tp and dp must be at least 1, got " +
                                    std::to_string(tp) + " x " + std::to_string(dp));
    }
    parallel_groups g;
    g.tensor_parallel.assign(static_cast<std::size_t>(dp), {});
    g.data_parallel.assign(static_cast<std::size_t>(tp), {});
    for (int d = 0; d < dp; ++d) {
        for (int t = 0; t < tp; ++t) {
            g.tensor_parallel[static_cast<std::size_t>(d)].push_back(d * tp + t);
            g.data_parallel[static_cast<std::size_t>(t)].push_back(d * tp + t);
        }
    }
    return g;
}

}  // namespace trainvp::collectives
