// Assembles a schedule one transfer at a time, so builders think in messages (src -> dst,
// range, round) and never have to keep a SEND and its RECV consistent by hand.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

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

    int ranks() const { return m_schedule.ranks; }
    uint64_t elements() const { return m_schedule.elements; }

    // Orders each rank's steps by round (stable, so emission order is kept within a round) and
    // hands the schedule over; the builder is empty afterwards.
    schedule finish();

private:
    void check_rank(int rank, const char* what) const;

    schedule m_schedule;
    std::unordered_map<uint64_t, uint32_t> m_next_tag;  // key: src * ranks + dst
};

}  // namespace trainvp::collectives
