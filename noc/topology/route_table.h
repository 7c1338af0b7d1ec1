// Table-based routing: for each router and destination, the output port.  Filled before the
// run (dimension-order routing generated from the topology, or a collective's mapping set entry
// by entry); the router only looks it up.  Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "noc/topology/noc_topology.h"

namespace trainvp::noc {

class route_table {
public:
    route_table() = default;
    route_table(int routers, int unset_port = -1);

    // Dimension-order routing: x first (xy) or y first.  Mesh and ARIES step one router at a
    // time over mesh links; a torus takes the shorter way round each ring (ties: +);
    // a flattened butterfly jumps to the destination's column, then its row; ARIES takes, in
    // the current dimension, the mesh or bypass link that gets furthest without passing the
    // destination.  Throws std::invalid_argument when a needed link is missing (an ARIES port
    // muxed to a bypass link leaves its mesh link unused).
    static route_table dimension_order(const noc_topology& t, bool x_first = true);

    int port(int router, int dst) const {
        return m_port[static_cast<std::size_t>(router) * static_cast<std::size_t>(m_routers) +
                      static_cast<std::size_t>(dst)];
    }
    void set(int router, int dst, int port) {
        m_port[static_cast<std::size_t>(router) * static_cast<std::size_t>(m_routers) +
               static_cast<std::size_t>(dst)] = static_cast<std::int8_t>(port);
    }
    int routers() const { return m_routers; }

    // A second output port for (router, dst), taken by packets of route variant 1 (ARIES's
    // bandwidth-optimised ring sends every other packet over a bypass segment, aries.md
    // §IV-A-1); -1: none, variant 1 uses port().
    int alternate(int router, int dst) const {
        return m_alt.empty()
                   ? -1
                   : m_alt[static_cast<std::size_t>(router) * static_cast<std::size_t>(m_routers) +
                           static_cast<std::size_t>(dst)];
    }
    void set_alternate(int router, int dst, int port);
    bool has_alternates() const { return !m_alt.empty(); }
    // The port a packet of `variant` takes.
    int port(int router, int dst, int variant) const {
        const int a = variant ? alternate(router, dst) : -1;
        return a >= 0 ? a : port(router, dst);
    }

private:
    int m_routers = 0;
    std::vector<std::int8_t> m_port;
    std::vector<std::int8_t> m_alt;
};

}  // namespace trainvp::noc
