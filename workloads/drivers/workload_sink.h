// A block that runs work given in the config's `workload:` section (a host's op list).  The
// workload sections (section_registry.h) hand each listed block its work after elaboration:
//
//   workload:
//     ops:
//       node[0].host: [ {op: send, to: 1, bytes: 64MB} ]
//
// The block parses `ops` itself and throws input_error (with `key` as the full key) when it is
// wrong.  Blocks implement it (host.cpu); the platform finds it on a block for the sections
// (platform_query.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config_node.h"
#include "core/error.h"
#include "workloads/iteration/critical_path.h"
#include "workloads/ops/op_list.h"
#include "workloads/ops/op_source.h"

namespace trainvp {

class workload_sink {
public:
    virtual ~workload_sink() = default;
    virtual void accept_workload(const config_node& ops, const std::string& key) = 0;
    // A generated op stream (workload.training), handed over as it is, in chunks (one per
    // iteration) that the block takes as it runs (ops/op_source.h): valid by construction
    // (every `after` names an earlier op).  An op the block cannot run is an input error at
    // `where` / `key` (the section that generated it), naming the op.
    virtual void accept_source(std::unique_ptr<ops::op_source> ops, const source_loc& where,
                               const std::string& key) = 0;
    // Functional payload mode (DESIGN.md): the initial contents of the block's memory at
    // [address, address + bytes.size()), e.g. a worker's gradient.  Messages sent from that
    // range carry its bytes, and receives and sums into it change them.
    virtual void accept_data(std::uint64_t address, std::vector<std::uint8_t> bytes,
                             const source_loc& where, const std::string& key) {
        (void)address;
        (void)bytes;
        throw input_error(where, key, "this block does not hold data (functional mode)");
    }
    // Functional mode: what [address, address + 4 expected.size()) must hold as float32 at the
    // end of a finished run (the exact all-reduced gradient) and by how much each value may
    // differ from it (float rounding and the lossy codecs' bounds).  Checked by the block's
    // end-of-run audit.  Only called on a block that accepted data.
    virtual void expect_data(std::uint64_t address, std::vector<double> expected,
                             std::vector<double> allowance) {
        (void)address;
        (void)expected;
        (void)allowance;
    }
    // The ops it ran, with their times, for the iteration breakdown (critical_path.h); the
    // simulation calls it once, after the run has ended (the block may hand over its records).
    // Ops that never started are left out, and so is everything after them on their unit.
    virtual workloads::host_run ran() = 0;
};

}  // namespace trainvp
