// The YAML form of an op stream, as a host receives it from the config's `workload.ops`:
//
//   workload:
//     ops:
//       node[0].host:
//         - {op: compute, flops: 2.4e9, bytes: 64MB, name: b3}
//         - {op: send, to: 1, bytes: 64MB, tag: 3, name: s1, after: [b3]}
//
// Every value carries its unit (bytes "64MB", times "10us"; flops are plain numbers such as
// 1.2e9 or 2^30).  Every mistake is an input_error with the file:line:col of the offending
// value and its full key ("workload.ops.node[0].host[3].bytes").
#pragma once

#include <string>
#include <vector>

#include "core/config_node.h"
#include "workloads/ops/op_list.h"

namespace trainvp::ops {

// Parses `list` (a YAML sequence of op maps) whose full key is `key`.
op_list parse_ops(const config_node& list, const std::string& key);

// The keys an op of kind `k` accepts, in the order messages list them.
std::vector<std::string> keys_of(op_kind k);

}  // namespace trainvp::ops
