// Fuzz target: arbitrary bytes as a host's op list (`workload.ops.<host>:`, workloads/ops/
// op_parser.h) through the YAML parser and the op-list parser: kinds, units, peers, tags and
// `after:` dependencies.  Any input must end in an op list or an input_error: never a crash, a
// hang, an out-of-bounds read or another exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/config_node.h"
#include "core/error.h"
#include "workloads/ops/op_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const trainvp::config_node doc = trainvp::config_node::parse(text, "fuzz.yaml");
        if (doc.is_nil()) return 0;
        const trainvp::ops::op_list ops = trainvp::ops::parse_ops(doc, "workload.ops.h");
        for (std::size_t i = 0; i < ops.size(); ++i) (void)ops.find(ops[i].name);
    } catch (const trainvp::input_error&) {
    }
    return 0;
}
