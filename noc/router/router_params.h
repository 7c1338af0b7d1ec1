// What the interposer's routers are built with (aries.md §V), the `router:` sub-map of
// noc.interposer.  Pure C++; the keys are the members' names.
#pragma once

#include <cstdint>

#include "core/param_decl.h"

namespace trainvp::noc {

struct router_params {
    std::uint64_t vcs = 4;               // per input port
    std::uint64_t vc_buffers = 32;       // flits per VC
    std::uint64_t pipeline_stages = 2;   // before the link
    std::uint64_t local_port_width = 1;  // flits per cycle injected and ejected
    bool circuit_local = false;          // every input port may eject a flit per cycle

    static void declare(param_list<router_params>& d);
};

}  // namespace trainvp::noc
