// Fuzz target: arbitrary bytes as a model file (workloads/models/README.md) through the model
// reader: the YAML parser, parameters and expressions, layer shapes, FLOPs and bytes.  Any
// input must end in a model or an input_error: never a crash, a hang, an out-of-bounds read or
// another exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "workloads/models/model_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    trainvp::models::model_options opts;
    opts.batch = 8;
    try {
        const trainvp::models::model m = trainvp::models::parse_model(text, "fuzz.yaml", opts);
        (void)m.totals();
    } catch (const trainvp::input_error&) {
    }
    return 0;
}
