#include "noc/collective/aries_ring_plan.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace trainvp::noc {

namespace {

// The mesh port from `a` to its neighbour `b` (a link travels out of and into the port named
// after its direction).
int direction(int k, int a, int b) {
    const int dx = b % k - a % k, dy = b / k - a / k;
    if (std::abs(dx) + std::abs(dy) != 1) {
        throw std::invalid_argument("ring neighbours " + std::to_string(a) + " and " +
                                    std::to_string(b) + " are not adjacent on the mesh");
    }
    if (dx == 1) return PORT_XP;
    if (dx == -1) return PORT_XM;
    return dy == 1 ? PORT_YP : PORT_YM;
}

}  // namespace

std::vector<bypass_segment> bandwidth_ring_segments(int k, const std::vector<int>& ring) {
    const std::size_t n = ring.size();
    std::vector<bool> out_used(static_cast<std::size_t>(k * k * 5), false),
        in_used(static_cast<std::size_t>(k * k * 5), false);
    auto at = [](int r, int p) { return static_cast<std::size_t>(r * 5 + p); };
    for (std::size_t i = 0; i < n; ++i) {
        const int a = ring[i], b = ring[(i + 1) % n];
        const int d = direction(k, a, b);
        out_used[at(a, d)] = in_used[at(b, d)] = true;
    }
    std::vector<bypass_segment> segs;
    for (std::size_t i = 0; i < n; ++i) {
        const int a = ring[i], b = ring[(i + 1) % n];
        int po = -1, pi = -1;
        for (int p = PORT_XP; p <= PORT_YM && po < 0; ++p) {
            if (!out_used[at(a, p)]) po = p;
        }
        for (int p = PORT_XP; p <= PORT_YM && pi < 0; ++p) {
            if (!in_used[at(b, p)]) pi = p;
        }
        if (po < 0 || pi < 0) {
            throw std::invalid_argument("no idle port for the bypass of ring edge " +
                                        std::to_string(a) + " -> " + std::to_string(b));
        }
        out_used[at(a, po)] = in_used[at(b, pi)] = true;
        bypass_segment g;
        const bool row = a / k == b / k;
        g.dim = row ? 0 : 1;
        g.line = row ? a / k : a % k;
        g.track = 0;
        g.from = row ? a % k : a / k;
        g.to = row ? b % k : b / k;
        g.fwd_out = po;
        g.fwd_in = pi;
        segs.push_back(g);
    }
    return segs;
}

route_table ring_route_table(const noc_topology& t, const std::vector<int>& ring) {
    route_table rt(t.routers());
    const std::size_t n = ring.size();
    for (std::size_t i = 0; i < n; ++i) {
        const int a = ring[i], b = ring[(i + 1) % n];
        rt.set(b, b, PORT_LOCAL);
        const int d = direction(t.size(), a, b);
        rt.set(a, b, d);
        for (int p = PORT_XP; p <= PORT_YM; ++p) {
            const int c = t.out_channel(a, p);
            if (p == d || c < 0) continue;
            const auto& ch = t.channels()[static_cast<std::size_t>(c)];
            if (ch.dst == b) rt.set_alternate(a, b, p);
        }
    }
    return rt;
}

}  // namespace trainvp::noc
