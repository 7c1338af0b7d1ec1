#include "noc/topology/noc_topology.h"

#include <cmath>
#include <stdexcept>

namespace trainvp::noc {

noc_topology::noc_topology(topology_kind kind, int k, int ports)
    : m_kind(kind),
      m_k(k),
      m_ports(ports),
      m_out(static_cast<std::size_t>(k * k * ports), -1),
      m_in(static_cast<std::size_t>(k * k * ports), -1) {
    if (k < 2) throw std::invalid_argument("a NoC needs at least 2 x 2 routers");
}

void noc_topology::add(int src, int src_port, int dst, int dst_port, int dim, double length,
                       channel_kind kind) {
    auto& out = m_out[static_cast<std::size_t>(src * m_ports + src_port)];
    auto& in = m_in[static_cast<std::size_t>(dst * m_ports + dst_port)];
    if (out >= 0) {
        throw std::invalid_argument("output port " + port_name(src_port) + " of router " +
                                    std::to_string(src) + " drives two links");
    }
    if (in >= 0) {
        throw std::invalid_argument("input port " + port_name(dst_port) + " of router " +
                                    std::to_string(dst) + " selects two links");
    }
    out = in = static_cast<int>(m_channels.size());
    m_channels.push_back(noc_channel{src, src_port, dst, dst_port, dim, length, kind});
}

noc_topology noc_topology::mesh(int k) {
    noc_topology t(topology_kind::MESH, k, 5);
    for (int y = 0; y < k; ++y) {
        for (int x = 0; x < k; ++x) {
            const int r = t.router_at(x, y);
            // The port a link arrives at is named after the direction it travels, so a flit
            // on the +x port of its router keeps going +x (look-ahead routing needs no turn
            // bookkeeping).
            if (x + 1 < k)
                t.add(r, PORT_XP, t.router_at(x + 1, y), PORT_XP, 0, 1.0, channel_kind::MESH);
            if (x > 0)
                t.add(r, PORT_XM, t.router_at(x - 1, y), PORT_XM, 0, 1.0, channel_kind::MESH);
            if (y + 1 < k)
                t.add(r, PORT_YP, t.router_at(x, y + 1), PORT_YP, 1, 1.0, channel_kind::MESH);
            if (y > 0)
                t.add(r, PORT_YM, t.router_at(x, y - 1), PORT_YM, 1, 1.0, channel_kind::MESH);
        }
    }
    return t;
}

noc_topology noc_topology::torus(int k, bool dateline) {
    noc_topology t(topology_kind::TORUS, k, 5);
    t.m_vc_classes = dateline ? 2 : 1;
    // Unfolded layout, as aries.md Fig. 6(a) draws the torus: neighbours one pitch apart, the
    // wrap link of a ring spans k - 1 pitches (its length sets its latency and energy).
    for (int y = 0; y < k; ++y) {
        for (int x = 0; x < k; ++x) {
            const int r = t.router_at(x, y);
            const bool wx = x + 1 == k, wy = y + 1 == k;
            const double lx = wx ? k - 1 : 1, ly = wy ? k - 1 : 1;
            t.add(r, PORT_XP, t.router_at((x + 1) % k, y), PORT_XP, 0, lx,
                  wx ? channel_kind::WRAP : channel_kind::MESH);
            t.add(r, PORT_XM, t.router_at((x + k - 1) % k, y), PORT_XM, 0, x == 0 ? k - 1 : 1,
                  x == 0 ? channel_kind::WRAP : channel_kind::MESH);
            t.add(r, PORT_YP, t.router_at(x, (y + 1) % k), PORT_YP, 1, ly,
                  wy ? channel_kind::WRAP : channel_kind::MESH);
            t.add(r, PORT_YM, t.router_at(x, (y + k - 1) % k), PORT_YM, 1, y == 0 ? k - 1 : 1,
                  y == 0 ? channel_kind::WRAP : channel_kind::MESH);
        }
    }
    return t;
}

noc_topology noc_topology::flattened_butterfly(int k) {
    // Port 1 + i (i < k - 1) reaches the i-th other router of the row, port k + i the i-th
    // other router of the column; a link arrives at the port that names its source.
    noc_topology t(topology_kind::FLATTENED_BUTTERFLY, k, 2 * k - 1);
    auto row_port = [](int self, int other) { return 1 + (other < self ? other : other - 1); };
    auto col_port = [k](int self, int other) { return k + (other < self ? other : other - 1); };
    for (int y = 0; y < k; ++y) {
        for (int x = 0; x < k; ++x) {
            const int r = t.router_at(x, y);
            for (int o = 0; o < k; ++o) {
                if (o == x) continue;
                t.add(r, row_port(x, o), t.router_at(o, y), row_port(o, x), 0, std::abs(o - x),
                      std::abs(o - x) == 1 ? channel_kind::MESH : channel_kind::EXPRESS);
            }
            for (int o = 0; o < k; ++o) {
                if (o == y) continue;
                t.add(r, col_port(y, o), t.router_at(x, o), col_port(o, y), 1, std::abs(o - y),
                      std::abs(o - y) == 1 ? channel_kind::MESH : channel_kind::EXPRESS);
            }
        }
    }
    return t;
}

noc_topology noc_topology::aries(int k, const std::vector<bypass_segment>& segments) {
    noc_topology base = mesh(k);
    noc_topology t(topology_kind::ARIES, k, 5);
    std::vector<bool> out_taken(base.m_out.size(), false), in_taken(base.m_in.size(), false);
    // Track occupancy: per (dim, line, track), which unit spans [i, i+1] are used.
    std::vector<int> span_used(static_cast<std::size_t>(2 * k * 2 * k), -1);
    for (std::size_t s = 0; s < segments.size(); ++s) {
        const auto& g = segments[s];
        const std::string what = "bypass segment " + std::to_string(s) + ": ";
        if (g.dim < 0 || g.dim > 1 || g.line < 0 || g.line >= k || g.track < 0 || g.track > 1 ||
            g.from < 0 || g.from >= k || g.to < 0 || g.to >= k || g.from == g.to) {
            throw std::invalid_argument(what + "is off the " + std::to_string(k) + " x " +
                                        std::to_string(k) +
                                        " grid (dim 0|1, line and ends in [0, " +
                                        std::to_string(k - 1) + "], track 0|1, from != to)");
        }
        const int lo = std::min(g.from, g.to), hi = std::max(g.from, g.to);
        for (int i = lo; i < hi; ++i) {
            auto& u =
                span_used[static_cast<std::size_t>(((g.dim * k + g.line) * 2 + g.track) * k + i)];
            if (u >= 0) {
                throw std::invalid_argument(what + "overlaps bypass segment " + std::to_string(u) +
                                            " on the same track (a segment switch cuts a track "
                                            "only at routers)");
            }
            u = static_cast<int>(s);
        }
        auto at = [&](int pos) {
            return g.dim == 0 ? t.router_at(pos, g.line) : t.router_at(g.line, pos);
        };
        auto check_port = [&](int p) {
            if (p < PORT_XP || p > PORT_YM) {
                throw std::invalid_argument(what +
                                            "a bypass link connects to a directional port "
                                            "(1..4: +x, -x, +y, -y), not " +
                                            std::to_string(p));
            }
        };
        const channel_kind kind = g.dim == 0 ? channel_kind::BYPASS_X : channel_kind::BYPASS_Y;
        auto use = [&](int src, int out, int dst, int in) {
            check_port(out);
            check_port(in);
            const auto o = static_cast<std::size_t>(src * 5 + out);
            const auto i = static_cast<std::size_t>(dst * 5 + in);
            if (out_taken[o] || in_taken[i]) {
                throw std::invalid_argument(what + "port " + t.port_name(out_taken[o] ? out : in) +
                                            " of router " +
                                            std::to_string(out_taken[o] ? src : dst) +
                                            " already selects another bypass link (one link per "
                                            "port at a time)");
            }
            out_taken[o] = in_taken[i] = true;
            t.add(src, out, dst, in, g.dim, hi - lo, kind);
        };
        if (g.fwd_out >= 0 || g.fwd_in >= 0) use(at(g.from), g.fwd_out, at(g.to), g.fwd_in);
        if (g.bwd_out >= 0 || g.bwd_in >= 0) use(at(g.to), g.bwd_out, at(g.from), g.bwd_in);
    }
    // The mesh links whose ports' muxes did not select a bypass link.
    for (const auto& c : base.m_channels) {
        if (out_taken[static_cast<std::size_t>(c.src * 5 + c.src_port)] ||
            in_taken[static_cast<std::size_t>(c.dst * 5 + c.dst_port)]) {
            continue;
        }
        t.add(c.src, c.src_port, c.dst, c.dst_port, c.dim, c.length, c.kind);
    }
    return t;
}

channel_kind noc_topology::mux_selection(int r, int p) const {
    const int c = in_channel(r, p);
    return c < 0 ? channel_kind::MESH : m_channels[static_cast<std::size_t>(c)].kind;
}

int noc_topology::next_class(int prev, int cls, int next) const {
    if (prev < 0 || m_vc_classes < 2) return 0;
    const auto& a = m_channels[static_cast<std::size_t>(prev)];
    const auto& b = m_channels[static_cast<std::size_t>(next)];
    if (a.dim != b.dim) return 0;
    return a.kind == channel_kind::WRAP ? 1 : cls;
}

std::string noc_topology::port_name(int p) const {
    if (p == PORT_LOCAL) return "local";
    if (m_ports == 5) {
        static const char* names[] = {"local", "+x", "-x", "+y", "-y"};
        return names[p];
    }
    return p < m_k ? "row" + std::to_string(p) : "col" + std::to_string(p - m_k + 1);
}

std::string noc_topology::channel_name(int c) const {
    const auto& ch = m_channels[static_cast<std::size_t>(c)];
    return "r" + std::to_string(ch.src) + " " + port_name(ch.src_port) + " -> r" +
           std::to_string(ch.dst);
}

}  // namespace trainvp::noc
