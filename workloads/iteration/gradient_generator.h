// Gradients for functional-mode runs (DESIGN.md payload modes): each worker's gradient vector,
// drawn from a named distribution with a seed, or read from a raw float32 file.  Pure C++ (no
// SystemC).  The generator is portable (its own splitmix64 stream, Box-Muller and inverse-CDF
// transforms, not the standard library's implementation-defined distributions), so a seed
// gives the same floats on every platform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace trainvp::workloads {

enum class gradient_distribution {
    NORMAL,   // a = mean, b = standard deviation
    UNIFORM,  // a = low, b = high
    LAPLACE,  // a = mean, b = scale (heavier tails, like measured gradients)
    FILE,     // raw float32 little-endian: `elements` values for every rank, or
              // `elements x ranks` values, rank r's at offset r x elements
};

struct gradient_spec {
    gradient_distribution distribution = gradient_distribution::NORMAL;
    double a = 0.0;
    double b = 0.01;
    std::uint64_t seed = 1;
    std::string file;
};

// The gradient of `rank` (0-based) among `ranks`: `elements` floats.  Different ranks draw
// independent streams.  Throws std::invalid_argument on a bad spec (b <= 0 for normal and
// laplace, high <= low for uniform) and std::runtime_error when the file cannot be read or has
// the wrong size.
std::vector<float> generate_gradient(const gradient_spec& s, std::size_t rank, std::size_t ranks,
                                     std::size_t elements);

}  // namespace trainvp::workloads
