// Assembles a schedule one transfer at a time, so builders think in messages (src -> dst,
// range, round) and never have to keep a SEND and its RECV consistent by hand.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

class schedule_builder {
public:
    // Every rank contributes until told otherwise.  Throws std::invalid_argument when ranks < 1.
    schedule_builder(std::string algorithm, int ranks, uint64_t elements);

    void set_contributes(int rank, bool contributes);

    // One message in `round`: src sends src_range, dst receives it into dst_range with
    // recv_kind.  The tag is the next unused one on the (src, dst) pair, so tags number a
    // pair's messages in the order the builder emits them.
    void transfer(int src, int dst, const chunk& src_range, const chunk& dst_range,
                  step_kind recv_kind, uint32_t round);
    void transfer(int src, int dst, const chunk& range, step_kind recv_kind, uint32_t round) {
        transfer(src, dst, range, range, recv_kind, round);
    }

    // Room for `steps` steps per rank (a builder that knows its count: no regrowth).
    void reserve_per_rank(std::size_t steps);

    int ranks() const { return m_schedule.ranks; }
    uint64_t elements() const { return m_schedule.elements; }

    // Orders each rank's steps by round (stable, so emission order is kept within a round) and
    // hands the schedule over; the builder is empty afterwards.
    schedule finish();

private:
    void check_rank(int rank, const char* what) const;

    schedule m_schedule;
    // Per source rank: (destination, next unused tag) of each pair it has sent on, in first-use
    // order.  A rank has few peers (1 in a ring, log N in a tree, N for one aggregator), so a
    // scan is cheaper than a hash map (whose src * ranks + dst keys all fell into one bucket
    // for a 256-rank ring: 257 buckets, keys 257 src + 1).
    std::vector<std::vector<std::pair<int, uint32_t>>> m_next_tag;
};

}  // namespace trainvp::collectives
