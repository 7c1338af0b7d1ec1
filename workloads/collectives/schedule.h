// The collective-schedule data model shared by every fabric (host drivers, the FPGA engine's
// control FSM, NoC route set-up).  Pure C++: no SystemC.  See README.md in this folder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace trainvp::collectives {

// An element range of the gradient vector.  Elements, not bytes: a consumer multiplies by its
// element size (4 for FP32, or a codec's compressed size).
struct chunk {
    uint64_t offset = 0;
    uint64_t count = 0;
};

inline bool operator==(const chunk& a, const chunk& b) {
    return a.offset == b.offset && a.count == b.count;
}
inline bool operator!=(const chunk& a, const chunk& b) { return !(a == b); }

// True when the two ranges share at least one element (empty ranges overlap nothing).
bool overlaps(const chunk& a, const chunk& b);

enum class step_kind {
    SEND,         // send local[range] to peer
    RECV_REDUCE,  // receive from peer and add elementwise into local[range]
    RECV_COPY,    // receive from peer and overwrite local[range]
};

const char* to_string(step_kind kind);

inline bool is_recv(step_kind kind) { return kind != step_kind::SEND; }

// One step of one rank.  Steps of a rank are listed in order; steps sharing a round on that
// rank run concurrently, and the rank enters its next round only when all of them completed.
// A SEND carries local[range] as it stood when the round started.  Receives of one round
// that overlap each other are applied in the order they are listed.  A SEND from a to b with
// tag t matches the RECV_* on b from a with tag t; (src, dst, tag) is unique in a schedule.
struct step {
    step_kind kind = step_kind::SEND;
    int peer = 0;
    chunk range;
    uint32_t round = 0;
    uint32_t tag = 0;
};

struct schedule {
    std::string algorithm;
    int ranks = 0;
    uint64_t elements = 0;
    std::vector<std::vector<step>> steps;  // [rank] -> ordered steps
    // false for ranks holding no input (an aggregator): their buffer starts at zero.  Every
    // rank, contributing or not, ends with the elementwise sum over contributing ranks.
    std::vector<bool> contributes;
};

// Consecutive steps of one rank that share a round: steps[begin, end).
struct step_group {
    uint32_t round = 0;
    std::size_t begin = 0;
    std::size_t end = 0;
};

// The round groups of one rank's step list, in order.
std::vector<step_group> group_by_round(const std::vector<step>& steps);

// Splits `elements` into `parts` contiguous chunks as evenly as possible: the first
// (elements % parts) chunks are one element larger.  Chunks may be empty when parts >
// elements.  Throws std::invalid_argument when parts < 1.
std::vector<chunk> partition(uint64_t elements, uint64_t parts);

// The same split applied to a sub-range (offsets are shifted by range.offset).
std::vector<chunk> partition(const chunk& range, uint64_t parts);

// One more than the largest round used by any rank (0 for a schedule without steps).
uint32_t round_count(const schedule& s);

// Removes every transfer whose range is empty (both its SEND and its RECV).  Builders keep
// empty transfers so every rank has the same round structure whatever the vector size; a
// consumer that cannot send an empty message can drop them: removing a matched pair only
// removes waits, so it cannot introduce a deadlock.
schedule without_empty_transfers(const schedule& s);

}  // namespace trainvp::collectives
