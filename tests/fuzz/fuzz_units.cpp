// Fuzz target: arbitrary bytes through the units parser on its own (core/units.h), in every
// family and as a plain number.  Any text must parse to a finite quantity or fail with a
// reason: never a crash, an out-of-bounds read, a NaN or an infinity.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/units.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    using trainvp::units::family;
    for (auto f :
         {family::NUMBER, family::TIME, family::FREQUENCY, family::SIZE, family::BANDWIDTH,
          family::COMPUTE, family::ENERGY, family::ENERGY_PER_BIT, family::ENERGY_PER_BIT_LENGTH,
          family::LENGTH, family::POWER, family::POWER_PER_BIT, family::POWER_PER_BIT_LENGTH}) {
        std::string why;
        const auto q = trainvp::units::parse(text, f, why);
        if (q && !std::isfinite(q->value)) std::abort();
        if (!q && why.empty()) std::abort();  // a failure always says why
    }
    const auto n = trainvp::units::parse_number(text);
    if (n && !std::isfinite(*n)) std::abort();
    return 0;
}
