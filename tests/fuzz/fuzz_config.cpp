// Fuzz target: arbitrary bytes as a config file through the YAML parser, includes-free loading
// and expansion against the real IP registry, and the units parser.  Any input must end in a
// result or an input_error: never a crash, a hang, an out-of-bounds read or another exception.
// (Elaboration and binding are not fuzzed here: SystemC elaborates once per process.)
#include <cstddef>
#include <cstdint>
#include <string>

#include "platform/config_node.h"
#include "platform/platform_loader.h"
#include "platform/registry.h"
#include "platform/units.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (auto f : {trainvp::units::family::NUMBER, trainvp::units::family::TIME,
                   trainvp::units::family::SIZE, trainvp::units::family::BANDWIDTH,
                   trainvp::units::family::FREQUENCY, trainvp::units::family::COMPUTE}) {
        std::string why;
        (void)trainvp::units::parse(text.substr(0, 64), f, why);
    }
    try {
        trainvp::config_node doc = trainvp::config_node::parse(text, "fuzz.yaml");
        if (doc.is_nil()) return 0;
        trainvp::platform_loader loader(trainvp::registry::global());
        trainvp::platform_desc d = loader.load_document(doc, "fuzz.yaml");
        (void)trainvp::resolved_yaml(d, trainvp::registry::global());
    } catch (const trainvp::input_error&) {
    }
    return 0;
}
