// The interposer's routers and the unidirectional channels between them, as plain data.  A
// topology is generated from its kind and size (mesh, torus, flattened butterfly, ARIES = mesh
// + segmented row/column bypass links); routing and the router model read it, nothing else
// knows how it was made.  Pure C++ (no SystemC).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainvp::noc {

enum class topology_kind { MESH, TORUS, FLATTENED_BUTTERFLY, ARIES };

// What a channel is physically: it decides the VC class rule (a torus wrap link is a
// dateline) and the ARIES input-port mux selection (mesh link, bypass-x or bypass-y).
enum class channel_kind { MESH, WRAP, EXPRESS, BYPASS_X, BYPASS_Y };

// Port 0 of every router is the local (injection/ejection) port.  Mesh, torus and ARIES
// routers have 5 ports: local, +x, -x, +y, -y.  A flattened-butterfly router has one port per
// other router of its row and of its column (2k - 1 ports).
enum : int { PORT_LOCAL = 0, PORT_XP = 1, PORT_XM = 2, PORT_YP = 3, PORT_YM = 4 };

struct noc_channel {
    int src = 0;          // router driving the channel
    int src_port = 0;     // its output port
    int dst = 0;          // router receiving it
    int dst_port = 0;     // its input port (for ARIES: the port whose mux selects this channel)
    int dim = 0;          // 0: x (within a row), 1: y (within a column)
    double length = 1.0;  // in chiplet pitches (1 for a mesh link)
    channel_kind kind = channel_kind::MESH;
};

// A bypass segment of an ARIES row or column bypass link (aries.md §III-B-2): the wire
// between positions `from` and `to` of row (dim 0) or column (dim 1) `line`, on bypass track
// `track` (0 or 1: two bidirectional bypass links per row and column), with the segment
// switches at both ends closed and the rest of the track cut off.  Each direction that is
// used names the ports it arrives at and leaves from (the muxes); a port of -1 leaves that
// direction unused.
struct bypass_segment {
    int dim = 0;
    int line = 0;
    int track = 0;
    int from = 0;
    int to = 0;
    int fwd_out = -1, fwd_in = -1;  // from -> to: output port at `from`, input port at `to`
    int bwd_out = -1, bwd_in = -1;  // to -> from
};

class noc_topology {
public:
    // k x k routers.  A torus with `dateline` set uses two VC classes (a packet moves to class
    // 1 after it crosses the wrap link of a dimension), which breaks the ring's channel
    // cycle; without it the dependency check rejects the torus.
    static noc_topology mesh(int k);
    static noc_topology torus(int k, bool dateline);
    static noc_topology flattened_butterfly(int k);
    // A mesh whose input ports' muxes select the given bypass segments instead of their mesh
    // links.  Throws std::invalid_argument when a segment is off the grid, two segments
    // overlap on one track, or a port is selected twice.
    static noc_topology aries(int k, const std::vector<bypass_segment>& segments);

    topology_kind kind() const { return m_kind; }
    int size() const { return m_k; }
    int routers() const { return m_k * m_k; }
    int ports() const { return m_ports; }
    int vc_classes() const { return m_vc_classes; }
    int x(int r) const { return r % m_k; }
    int y(int r) const { return r / m_k; }
    int router_at(int x, int y) const { return y * m_k + x; }

    const std::vector<noc_channel>& channels() const { return m_channels; }
    // Channel index leaving output port p of router r (-1: none, or the local port).
    int out_channel(int r, int p) const { return m_out[static_cast<std::size_t>(r * m_ports + p)]; }
    // Channel index arriving at input port p of router r (-1: none).
    int in_channel(int r, int p) const { return m_in[static_cast<std::size_t>(r * m_ports + p)]; }
    // The mux selection of an input port: the kind of the channel it receives (MESH when idle).
    channel_kind mux_selection(int r, int p) const;

    // Does a packet on `next` after `prev` (-1: just injected) in class `cls` use class 0 or
    // 1?  Class resets on a change of dimension and becomes 1 after a dateline (torus wrap).
    int next_class(int prev, int cls, int next) const;

    // "r5 +x -> r6" for messages.
    std::string channel_name(int c) const;
    std::string port_name(int p) const;

private:
    noc_topology(topology_kind kind, int k, int ports);
    void add(int src, int src_port, int dst, int dst_port, int dim, double length,
             channel_kind kind);

    topology_kind m_kind;
    int m_k;
    int m_ports;
    int m_vc_classes = 1;
    std::vector<noc_channel> m_channels;
    std::vector<int> m_out, m_in;
};

}  // namespace trainvp::noc
