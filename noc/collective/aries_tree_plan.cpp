#include "noc/collective/aries_tree_plan.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace trainvp::noc {

namespace {

// A candidate leg: the hop from `start` to `end` along row (dim 0) or column (dim 1) `line`;
// from/to are the positions along the line.
struct leg {
    int start = 0, end = 0;
    int dim = 0, line = 0, from = 0, to = 0;
    int weight = 0;        // pairs whose route starts it
    bool aligned = false;  // started by a pair whose routers share a row or column
    std::size_t order = 0;
    int pitches() const { return std::abs(to - from); }
};

// The mesh port leaving `a` towards its neighbour `b` (also the input port at `b`).
int mesh_port(int k, int a, int b) {
    const int dx = b % k - a % k;
    if (dx == 1) return PORT_XP;
    if (dx == -1) return PORT_XM;
    return b / k > a / k ? PORT_YP : PORT_YM;
}

// Dimension-order next router from r towards d over mesh links.
int mesh_next(int k, int r, int d) {
    const int x = r % k, y = r / k, dx = d % k, dy = d / k;
    if (x != dx) return y * k + (dx > x ? x + 1 : x - 1);
    return (dy > y ? y + 1 : y - 1) * k + x;
}

class planner {
public:
    planner(int k, const std::vector<std::pair<int, int>>& pairs, int tracks)
        : m_k(k),
          m_pairs(pairs),
          m_tracks(tracks),
          m_span(static_cast<std::size_t>(2 * k * tracks * k), -1),
          m_out_taken(static_cast<std::size_t>(k * k * 5), false),
          m_in_taken(static_cast<std::size_t>(k * k * 5), false) {}

    tree_bypass_plan run() {
        std::vector<leg> legs = candidates();
        tree_bypass_plan plan;
        plan.legs_wanted = static_cast<int>(legs.size());
        // Legs of tree neighbours sharing a row or column first (Fig. 7(c) dedicates a link
        // to such a tree edge, both directions on one segment), then aries.md §IV-B-1's
        // "greedy policy to segment the bypassing links to connect any short-distanced
        // nodes": the shortest legs first (more of them fit on two tracks), then the most
        // used.
        std::sort(legs.begin(), legs.end(), [](const leg& a, const leg& b) {
            if (a.aligned != b.aligned) return a.aligned;
            if (a.pitches() != b.pitches()) return a.pitches() < b.pitches();
            return a.weight != b.weight ? a.weight > b.weight : a.order < b.order;
        });
        for (const leg& l : legs) {
            if (try_bridge(l)) {
                ++plan.legs_bridged;
                plan.pitches_saved += l.pitches() - 1;
            }
        }
        plan.segments = m_segments;
        plan.routes = table();
        return plan;
    }

private:
    struct bridge {
        int segment = 0;
        bool fwd = true;
        int end = 0;
    };
    using key = std::pair<int, int>;  // (start router, end router) of a bridged leg

    std::size_t at(int r, int p) const { return static_cast<std::size_t>(r * 5 + p); }
    std::size_t span(int dim, int line, int track, int i) const {
        return static_cast<std::size_t>(((dim * m_k + line) * m_tracks + track) * m_k + i);
    }

    // Every leg of two or more pitches of the pairs' dimension-order routes, once per
    // (start, end), weighted by the pairs that start it.
    std::vector<leg> candidates() const {
        std::map<key, std::size_t> index;
        std::vector<leg> out;
        auto add = [&](const leg& l) {
            const auto [it, fresh] = index.insert({{l.start, l.end}, out.size()});
            if (fresh) {
                out.push_back(l);
                out.back().order = out.size();
            }
            ++out[it->second].weight;
            out[it->second].aligned = out[it->second].aligned || l.aligned;
        };
        for (const auto& [s, d] : m_pairs) {
            const int sx = s % m_k, sy = s / m_k, dx = d % m_k, dy = d / m_k;
            const int corner = sy * m_k + dx;
            const bool al = sx == dx || sy == dy;
            if (std::abs(dx - sx) >= 2) add(leg{s, corner, 0, sy, sx, dx, 0, al});
            if (std::abs(dy - sy) >= 2) add(leg{corner, d, 1, dx, sy, dy, 0, al});
        }
        return out;
    }

    // Walks every pair's route with the bridges in `b`, calling visit(router, destination,
    // next, bridge or nullptr) for each hop.  At router r the current leg ends at the corner
    // (x(d), y(r)) in the x phase and at d in the y phase; a bridge from r to that end is
    // taken wherever a route meets it.
    template <typename F>
    void walk(const std::map<key, bridge>& b, F&& visit) const {
        for (const auto& [s, d] : m_pairs) {
            int r = s;
            while (r != d) {
                const int end = r % m_k != d % m_k ? (r / m_k) * m_k + d % m_k : d;
                const auto it = b.find({r, end});
                const int next = it != b.end() ? it->second.end : mesh_next(m_k, r, d);
                visit(r, d, next, it != b.end() ? &it->second : nullptr);
                r = next;
            }
        }
    }

    bool try_bridge(const leg& l) {
        // The segment: one with the same ends whose direction is free, or a free track.
        int seg = -1;
        bool fwd = true;
        for (std::size_t i = 0; i < m_segments.size() && seg < 0; ++i) {
            const auto& g = m_segments[i];
            if (g.dim != l.dim || g.line != l.line) continue;
            if (g.from == l.from && g.to == l.to && g.fwd_out < 0) {
                seg = static_cast<int>(i);
            } else if (g.from == l.to && g.to == l.from && g.bwd_out < 0) {
                seg = static_cast<int>(i);
                fwd = false;
            }
        }
        int track = -1;
        const int lo = std::min(l.from, l.to), hi = std::max(l.from, l.to);
        if (seg < 0) {
            for (int t = 0; t < m_tracks && track < 0; ++t) {
                bool free = true;
                for (int i = lo; i < hi; ++i) free = free && m_span[span(l.dim, l.line, t, i)] < 0;
                if (free) track = t;
            }
            if (track < 0) return false;
        }
        // The mesh links the routes still need once this leg is bridged.
        std::map<key, bridge> with = m_bridges;
        with[{l.start, l.end}] = bridge{-1, fwd, l.end};
        std::vector<bool> out_used(m_out_taken.size(), false), in_used(m_in_taken.size(), false);
        walk(with, [&](int r, int, int next, const bridge* b) {
            if (b) return;
            const int p = mesh_port(m_k, r, next);
            out_used[at(r, p)] = in_used[at(next, p)] = true;
        });
        const int travel =
            l.dim == 0 ? (l.to > l.from ? PORT_XP : PORT_XM) : (l.to > l.from ? PORT_YP : PORT_YM);
        auto pick = [&](int r, const std::vector<bool>& taken, const std::vector<bool>& used) {
            const int order[] = {travel, PORT_XP, PORT_XM, PORT_YP, PORT_YM};
            for (int p : order) {
                if (!taken[at(r, p)] && !used[at(r, p)]) return p;
            }
            return -1;
        };
        const int po = pick(l.start, m_out_taken, out_used);
        const int pi = pick(l.end, m_in_taken, in_used);
        if (po < 0 || pi < 0) return false;
        if (seg < 0) {
            bypass_segment g;
            g.dim = l.dim;
            g.line = l.line;
            g.track = track;
            g.from = l.from;
            g.to = l.to;
            seg = static_cast<int>(m_segments.size());
            m_segments.push_back(g);
            for (int i = lo; i < hi; ++i) m_span[span(l.dim, l.line, track, i)] = seg;
        }
        auto& g = m_segments[static_cast<std::size_t>(seg)];
        (fwd ? g.fwd_out : g.bwd_out) = po;
        (fwd ? g.fwd_in : g.bwd_in) = pi;
        m_out_taken[at(l.start, po)] = m_in_taken[at(l.end, pi)] = true;
        m_bridges[{l.start, l.end}] = bridge{seg, fwd, l.end};
        return true;
    }

    route_table table() const {
        route_table rt(m_k * m_k);
        walk(m_bridges, [&](int r, int d, int next, const bridge* b) {
            if (b) {
                const auto& g = m_segments[static_cast<std::size_t>(b->segment)];
                rt.set(r, d, b->fwd ? g.fwd_out : g.bwd_out);
            } else {
                rt.set(r, d, mesh_port(m_k, r, next));
            }
            rt.set(d, d, PORT_LOCAL);
        });
        return rt;
    }

    int m_k;
    const std::vector<std::pair<int, int>>& m_pairs;
    int m_tracks;
    std::vector<int> m_span;  // [dim][line][track][i]: segment using span [i, i+1], -1 free
    std::vector<bool> m_out_taken, m_in_taken;  // ports selecting a bypass link
    std::vector<bypass_segment> m_segments;
    std::map<key, bridge> m_bridges;
};

}  // namespace

std::vector<std::pair<int, int>> message_pairs(const collectives::schedule& s,
                                               const std::vector<int>& router_of) {
    std::vector<std::pair<int, int>> out;
    std::set<std::pair<int, int>> seen;
    for (int r = 0; r < s.ranks; ++r) {
        for (const auto& st : s.steps[static_cast<std::size_t>(r)]) {
            if (st.kind != collectives::step_kind::SEND) continue;
            const int a = router_of.at(static_cast<std::size_t>(r));
            const int b = router_of.at(static_cast<std::size_t>(st.peer));
            if (a != b && seen.insert({a, b}).second) out.push_back({a, b});
        }
    }
    return out;
}

tree_bypass_plan plan_tree_bypass(int k, const std::vector<std::pair<int, int>>& pairs,
                                  int tracks) {
    if (tracks < 1 || tracks > 2) {
        throw std::invalid_argument("ARIES has one or two bypass tracks per row and column, not " +
                                    std::to_string(tracks));
    }
    for (const auto& [s, d] : pairs) {
        if (s < 0 || d < 0 || s >= k * k || d >= k * k || s == d) {
            throw std::invalid_argument("tree bypass plan: pair " + std::to_string(s) + " -> " +
                                        std::to_string(d) + " is not two routers of the " +
                                        std::to_string(k) + " x " + std::to_string(k) + " grid");
        }
    }
    return planner(k, pairs, tracks).run();
}

}  // namespace trainvp::noc
