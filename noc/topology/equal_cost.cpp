#include "noc/topology/equal_cost.h"

namespace trainvp::noc {

int equal_cost::bisection_channels(const noc_topology& t) {
    const int k = t.size();
    const int cut = k / 2;  // columns [0, cut) | [cut, k)
    int n = 0;
    for (const auto& c : t.channels()) {
        if (c.dim != 0) continue;
        const int from = t.x(c.src), to = t.x(c.dst);
        if (c.kind == channel_kind::BYPASS_X) continue;  // counted as tracks below
        // From the left half to the right: a torus's -x wrap link (column 0 to k - 1) too.
        n += from < cut && to >= cut ? 1 : 0;
    }
    if (t.kind() == topology_kind::ARIES) n += 2 * k;  // two bypass tracks per row
    return n;
}

double equal_cost::width_factor(const noc_topology& t) {
    const noc_topology mesh = noc_topology::mesh(t.size());
    return static_cast<double>(bisection_channels(mesh)) /
           static_cast<double>(bisection_channels(t));
}

}  // namespace trainvp::noc
