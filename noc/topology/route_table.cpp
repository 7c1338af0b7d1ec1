#include "noc/topology/route_table.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace trainvp::noc {

route_table::route_table(int routers, int unset_port)
    : m_routers(routers),
      m_port(static_cast<std::size_t>(routers) * static_cast<std::size_t>(routers),
             static_cast<std::int8_t>(unset_port)) {}

void route_table::set_alternate(int router, int dst, int port) {
    if (m_alt.empty()) m_alt.assign(m_port.size(), -1);
    m_alt[static_cast<std::size_t>(router) * static_cast<std::size_t>(m_routers) +
          static_cast<std::size_t>(dst)] = static_cast<std::int8_t>(port);
}

namespace {

// The output port of `r` whose channel reaches `next` (preferring a mesh or wrap link).
int port_to(const noc_topology& t, int r, int next) {
    for (int p = 1; p < t.ports(); ++p) {
        const int c = t.out_channel(r, p);
        if (c < 0) continue;
        const auto& ch = t.channels()[static_cast<std::size_t>(c)];
        if (ch.dst == next && ch.kind != channel_kind::BYPASS_X &&
            ch.kind != channel_kind::BYPASS_Y) {
            return p;
        }
    }
    throw std::invalid_argument("dimension-order routing needs a link from router " +
                                std::to_string(r) + " to router " + std::to_string(next) +
                                ", and its port is muxed elsewhere or absent");
}

// The next coordinate along one dimension from `a` towards `b` (a != b).
int step(const noc_topology& t, int a, int b) {
    const int k = t.size();
    switch (t.kind()) {
        case topology_kind::FLATTENED_BUTTERFLY:
            return b;
        case topology_kind::TORUS: {
            const int fwd = (b - a + k) % k;
            return fwd <= k - fwd ? (a + 1) % k : (a + k - 1) % k;
        }
        default:
            return b > a ? a + 1 : a - 1;
    }
}

// ARIES: in the current dimension, the link (mesh or bypass) that gets furthest towards the
// destination without passing it.  Moves stay monotone within a dimension, so with the
// dimension order the channel dependencies stay acyclic (the check confirms it).
int aries_port(const noc_topology& t, int r, int d, bool x_first) {
    const bool move_x = x_first ? t.x(r) != t.x(d) : t.y(r) == t.y(d);
    const int dim = move_x ? 0 : 1;
    const int here = move_x ? t.x(r) : t.y(r), goal = move_x ? t.x(d) : t.y(d);
    int best = -1, best_gain = 0;
    for (int p = 1; p < t.ports(); ++p) {
        const int c = t.out_channel(r, p);
        if (c < 0) continue;
        const auto& ch = t.channels()[static_cast<std::size_t>(c)];
        if (ch.dim != dim) continue;
        const int there = move_x ? t.x(ch.dst) : t.y(ch.dst);
        const int gain = goal > here ? there - here : here - there;
        if (gain > best_gain && gain <= std::abs(goal - here)) {
            best = p;
            best_gain = gain;
        }
    }
    if (best < 0) {
        throw std::invalid_argument("dimension-order routing on ARIES finds no link from router " +
                                    std::to_string(r) + " towards router " + std::to_string(d) +
                                    " (the ports it needs are muxed to bypass links)");
    }
    return best;
}

}  // namespace

route_table route_table::dimension_order(const noc_topology& t, bool x_first) {
    route_table rt(t.routers());
    for (int r = 0; r < t.routers(); ++r) {
        for (int d = 0; d < t.routers(); ++d) {
            if (r == d) {
                rt.set(r, d, PORT_LOCAL);
                continue;
            }
            const int x = t.x(r), y = t.y(r), dx = t.x(d), dy = t.y(d);
            int next;
            if ((x_first && x != dx) || (!x_first && y == dy)) {
                next = t.router_at(step(t, x, dx), y);
            } else {
                next = t.router_at(x, step(t, y, dy));
            }
            if (t.kind() == topology_kind::ARIES) {
                rt.set(r, d, aries_port(t, r, d, x_first));
            } else {
                rt.set(r, d, port_to(t, r, next));
            }
        }
    }
    return rt;
}

}  // namespace trainvp::noc
