// What a schedule costs, counted from the schedule alone (no data, no fabric): the numbers the
// closed-form tests assert, and an alpha-beta-gamma time for first-order comparisons.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

struct rank_cost {
    uint32_t rounds = 0;  // distinct rounds holding a step of this rank (its synchronisations)
    uint64_t messages_sent = 0;
    uint64_t elements_sent = 0;
    uint64_t elements_received = 0;
    uint64_t elements_reduced = 0;  // elements received with RECV_REDUCE
};

struct cost_summary {
    uint32_t rounds = 0;             // round_count(): the schedule's length in global rounds
    uint32_t reduce_rounds = 0;      // global rounds in which some rank reduces
    uint64_t elements_sent = 0;      // over all ranks
    std::size_t directed_links = 0;  // distinct (src, dst) pairs that carry a message
    std::vector<rank_cost> per_rank;
};

cost_summary summarize(const schedule& s);

// Parameters of the alpha-beta-gamma model, in seconds (any unit, used consistently).
struct abg_params {
    double alpha = 0.0;          // latency paid once per rank per round it takes part in
    double beta = 0.0;           // per byte on a rank's link
    double gamma = 0.0;          // per byte reduced
    uint32_t element_bytes = 4;  // FP32 gradients
};

// Lockstep alpha-beta-gamma time:
//   T = sum over rounds r of max over ranks p active in r of
//       alpha + beta * max(bytes_sent(p, r), bytes_received(p, r)) + gamma * bytes_reduced(p, r)
// Assumptions: all ranks advance round by round together (a round ends when its slowest rank
// is done), which needs every SEND and its RECV in the same round index; each rank has one
// full-duplex link, so its sends of a round serialise on the way out and its receives on the
// way in, and in and out overlap (hence the max: an aggregator's incast costs p*n*beta); all
// messages of a round share one alpha; reduction is not overlapped with transfer; ranks with
// no step in a round cost nothing in it.  Throws std::invalid_argument when a SEND and its
// RECV sit in different rounds (the model would have no meaning).
double alpha_beta_gamma_time(const schedule& s, const abg_params& p);

// True when every SEND and its matching RECV carry the same round index.  Assumes a valid
// schedule.
bool is_lockstep(const schedule& s);

}  // namespace trainvp::collectives
