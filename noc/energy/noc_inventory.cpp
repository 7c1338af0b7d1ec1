#include "noc/energy/noc_inventory.h"

namespace trainvp::noc {

noc_inventory noc_inventory::of(const noc_topology& t, int vcs, int vc_buffers, double pitch_mm) {
    noc_inventory n;
    const auto routers = static_cast<std::uint64_t>(t.routers());
    const auto ports = static_cast<std::uint64_t>(t.ports());
    n.routers = routers;
    n.ports = routers * ports;
    n.crosspoints = routers * ports * ports;
    n.buffer_slots =
        n.ports * static_cast<std::uint64_t>(vcs) * static_cast<std::uint64_t>(vc_buffers);
    for (const auto& c : t.channels()) n.link_mm += c.length * pitch_mm;
    if (t.kind() == topology_kind::ARIES) {
        // aries.md §III-B: a mux at each of the four directional input ports; a segment switch
        // where each of the two row and two column bypass tracks passes a router.
        n.muxes = routers * 4;
        n.segment_switches = routers * 4;
    }
    return n;
}

double noc_inventory::static_mw(const energy_params& e, double flit_bits) const {
    const double per_bit_uw =
        static_cast<double>(routers) * e.clock_static.uw_per_bit +
        static_cast<double>(crosspoints) * e.crosspoint_static.uw_per_bit +
        static_cast<double>(ports) * e.port_static.uw_per_bit +
        static_cast<double>(buffer_slots) * e.buffer_static.uw_per_bit +
        link_mm * e.link_static.uw_per_bit_mm +
        static_cast<double>(muxes) * e.mux_static.uw_per_bit +
        static_cast<double>(segment_switches) * e.segment_switch_static.uw_per_bit;
    return static_cast<double>(routers) * e.router_static.mw + per_bit_uw * flit_bits * 1e-3;
}

}  // namespace trainvp::noc
