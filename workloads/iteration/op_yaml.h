// An op list written back as the YAML form workload.ops takes (workloads/ops/README.md), so
// that a generated list can be put in a config: parse_ops() reads back the same ops.
#pragma once

#include <string>
#include <vector>

#include "workloads/ops/op.h"

namespace trainvp::workloads {

// One flow map per op, each on its own line starting with `indent` then "- ".  `after` is
// written by name, so every op another op waits for must be named; names are unique per
// list.  Every value carries its unit (bytes in B, times in ps, addresses in hex).  Throws
// std::invalid_argument when an `after` index is not an earlier op or names an unnamed op.
std::string ops_yaml(const std::vector<ops::op>& list, const std::string& indent = "");

// The fields ops_yaml writes for op `i` of `list`, in order, as (key, scalar text) with the
// text unquoted; `after` is not among them (op_after gives its names).  For building a config
// tree without going through YAML text (a 1024-node ring's op lists are millions of ops).
struct op_field {
    std::string key;
    std::string value;
};
std::vector<op_field> op_fields(const std::vector<ops::op>& list, std::size_t i);
// The names of the ops op `i` waits for; throws as ops_yaml does.
std::vector<std::string> op_after(const std::vector<ops::op>& list, std::size_t i);

}  // namespace trainvp::workloads
