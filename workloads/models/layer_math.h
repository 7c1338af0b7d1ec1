// The per-kind formulas: from a layer's kind, hyper-parameters and input shapes to its output
// shape, parameter count, FLOPs and bytes.  Kept apart from the YAML loader so that the formulas
// can be tested (and read) on their own.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "workloads/models/layer_info.h"

namespace trainvp::models {

// A layer that cannot be derived (shape mismatch, kernel larger than its input...).  key() names
// the layer key at fault ("in_channels", "kernel", "inputs") or is empty for the layer as a
// whole, so that the loader can point at the right place in the file.
class layer_error : public std::runtime_error {
public:
    layer_error(std::string key, const std::string& what)
        : std::runtime_error(what), m_key(std::move(key)) {}
    const std::string& key() const { return m_key; }

private:
    std::string m_key;
};

class layer_math {
public:
    // Fills INFO's output_shape, params, FLOPs and bytes from its kind, spec, inputs and
    // input_shapes, for BATCH samples and BYTES_PER_VALUE bytes per stored value.  Throws
    // layer_error on inconsistent input.
    static void derive(layer_info& info, std::int64_t batch, std::int64_t bytes_per_value);
};

}  // namespace trainvp::models
