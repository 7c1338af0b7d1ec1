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

#include <cstdint>
#include <string>
#include <vector>

#include "platform/config_node.h"
#include "platform/error.h"
#include "workloads/iteration/critical_path.h"
#include "workloads/ops/op.h"

namespace trainvp {

// A generated op list as the tree `workload.ops` gives (the fields workloads::ops_yaml writes),
// built directly rather than as YAML text; op i is at line i + 1 of "<training>".
config_node ops_tree(const std::vector<ops::op>& list);

class workload_sink {
public:
    virtual ~workload_sink() = default;
    virtual void accept_workload(const config_node& ops, const std::string& key) = 0;
    // A generated op list (workload.training).  By default it is handed to accept_workload as
    // a tree; a block may take the ops as they are instead (for a 1024-node ring the tree and
    // its parsing are most of the set-up time, bench/run_benchmarks.py).
    virtual void accept_ops(const std::vector<ops::op>& list, const std::string& key) {
        accept_workload(ops_tree(list), key);
    }
    // Functional payload mode (DESIGN.md): the initial contents of the block's memory at
    // [address, address + bytes.size()), e.g. a worker's gradient.  Messages sent from that
    // range carry its bytes, and receives and sums into it change them.
    virtual void accept_data(std::uint64_t address, std::vector<std::uint8_t> bytes,
                             const source_loc& where, const std::string& key) {
        (void)address;
        (void)bytes;
        throw input_error(where, key, "this block does not hold data (functional mode)");
    }
    // The ops it ran, with their times, for the iteration breakdown (critical_path.h); the
    // simulation calls it once the run has ended.  Ops that never started are left out, and so
    // is everything after them on their unit.
    virtual workloads::host_run ran() const = 0;
};

}  // namespace trainvp
