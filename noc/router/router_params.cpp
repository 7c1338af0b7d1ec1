#include "noc/router/router_params.h"

namespace trainvp::noc {

void router_params::declare(param_list<router_params>& d) {
    d.param("vcs", &router_params::vcs, "4",
            "Virtual channels per input port (aries.md §V: four virtual channels)")
        .range("1", "16");
    d.param("vc_buffers", &router_params::vc_buffers, "32",
            "Flit buffers per virtual channel (aries.md §V: 32 buffers per VC)")
        .range("1", "1024");
    d.param("pipeline_stages", &router_params::pipeline_stages, "2",
            "Router pipeline stages before the link (aries.md §V: two stages, look-ahead "
            "routing and speculative switch allocation)")
        .range("1", "8");
    d.param("local_port_width", &router_params::local_port_width, "1",
            "Flits per cycle a router's local port injects and ejects. 1 is a conventional "
            "router; ARIES's local port has a circuit-switched path (aries.md §III-B-1: data "
            "injected into the local port without buffering), and its bandwidth ring needs 2 "
            "to feed its two links per edge (an assumption: the paper gives no width)")
        .range("1", "4");
    d.param("circuit_local", &router_params::circuit_local, "false",
            "ARIES's circuit-switched local path (aries.md §III-B-1: 'at the virtual channel of "
            "each input port, a link is implemented to support circuit switching, where all the "
            "data can be directly injected into the local port'): a flit that has reached its "
            "destination router leaves through its input port's own link to the local port, "
            "so the ejection port takes one flit per cycle from every input port instead of "
            "local_port_width through the crossbar; it decides how fast a tree parent absorbs "
            "its children. Modelled as ejection bandwidth only: the flit is still buffered "
            "and timed through the router's stages (assumption: the paper gives no timing for "
            "the path)");
}

}  // namespace trainvp::noc
