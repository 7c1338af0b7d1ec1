// A 0x-prefixed hexadecimal integer, as configs write addresses and ToS bytes (0x28,
// 0x10000000): one reader for both (core/tos.cpp, workloads/ops/op_parser.cpp).  Pure C++.
#pragma once

#include <cstdint>
#include <string>

namespace trainvp {

// True and `out` set when `text` is 0x (or 0X) followed by 1 to 16 hex digits; false (and
// `out` untouched) otherwise, so the caller reads `text` as a number instead.
bool parse_hex_integer(const std::string& text, std::uint64_t& out);

}  // namespace trainvp
