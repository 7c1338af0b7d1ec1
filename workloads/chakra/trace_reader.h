// Reads one rank's Chakra execution trace (`PREFIX.<rank>.et`) into an et_trace, checked.
//
// The file is a stream of messages, each prefixed by its length as a base-128 varint (at most
// 5 bytes, as protobuf's CodedOutputStream::WriteVarint32 writes it): one GlobalMetadata, then
// Node messages until the end of the file.  That is how Chakra writes and reads traces
// (src/third_party/utils/protolib.py encodeMessage/decodeMessage, protoio.hh
// ProtoOutputStream/ProtoInputStream, and src/feeder/et_feeder.cpp, which reads the
// GlobalMetadata first; github.com/mlcommons/chakra at 21585d8f).
//
// Every mistake is an input_error naming the file, the node (its id, or the message's position
// and byte offset when no id is known yet) and the field: a bad or truncated length prefix, a
// message that is not one, an unknown or invalid node type, a duplicate id, a dependency on a
// node not in the trace or on a cycle, a missing or mistyped attribute, a size, rank or group
// out of range.  Pure C++ (no SystemC).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "workloads/chakra/et_trace.h"

namespace trainvp::chakra {

class trace_reader {
public:
    // The largest message accepted (a Node of a real trace is a few hundred bytes; the limit
    // keeps a corrupt length prefix from asking for gigabytes).
    static constexpr std::uint32_t k_max_message = 64u << 20;
    // The largest duration_micros accepted: 10^12 us (11.6 days) stays exact in picoseconds.
    static constexpr std::uint64_t k_max_duration_micros = 1000000000000ull;

    // Reads the file at `path`, the trace of `rank` in a job of `world` ranks; `display` is how
    // messages name the file.  Throws input_error.
    static et_trace read_file(const std::string& path, const std::string& display, int rank,
                              int world);
    // The same from bytes in memory (the fuzz target's entry).
    static et_trace parse(const std::uint8_t* data, std::size_t size, const std::string& display,
                          int rank, int world);
};

}  // namespace trainvp::chakra
