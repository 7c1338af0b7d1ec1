// The IP Type-of-Service byte as configs write it (a send op's `tos`, the training section's
// `tos`): one parser for every place that reads one, so that they accept the same spellings
// and say the same thing about a bad one.  Pure C++: the workload layers below the blocks and
// the blocks that classify frames by ToS (ip/nic) all reach it.
#pragma once

#include <cstdint>
#include <string>

#include "core/config_node.h"

namespace trainvp {

// The ToS value that marks a flow as compressible (inceptionn.md §VI-B: "a reserved ToS value
// of 0x28").
constexpr std::uint8_t k_tos_compressible = 0x28;

// A ToS byte: decimal (40) or 0x-prefixed hexadecimal (0x28), 0..255.  `key` is the value's
// full key for the input_error a bad value throws.
std::uint8_t parse_tos(const config_node& value, const std::string& key);

}  // namespace trainvp
