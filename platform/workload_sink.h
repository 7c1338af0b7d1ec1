// A block that runs work given in the config's `workload:` section (a host's op list).  The
// simulation hands each listed block its entry after elaboration:
//
//   workload:
//     ops:
//       node[0].host: [ {op: send, to: 1, bytes: 64MB} ]
//
// The block parses `ops` itself and throws input_error (with `key` as the full key) when it is
// wrong.
#pragma once

#include <string>

#include "platform/config_node.h"
#include "workloads/iteration/critical_path.h"

namespace trainvp {

class workload_sink {
public:
    virtual ~workload_sink() = default;
    virtual void accept_workload(const config_node& ops, const std::string& key) = 0;
    // The ops it ran, with their times, for the iteration breakdown (critical_path.h); the
    // simulation calls it once the run has ended.  Ops that never started are left out, and so
    // is everything after them on their unit.
    virtual workloads::host_run ran() const = 0;
};

}  // namespace trainvp
