// Walks a schedule the way a fabric would run it, without data: every SEND is paired with its
// RECV, and a pair fires only when the sender and the receiver are both in the round that holds
// it (rendezvous).  Rendezvous is the strictest reading of the model, so a schedule that
// completes here completes on any fabric that buffers more.  The validator uses the walk to
// find deadlocks; the functional executor uses it to move data.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

class schedule_walker {
public:
    struct callbacks {
        // The rank entered a round: steps [group.begin, group.end) may now fire.
        std::function<void(int rank, const step_group& group)> round_begin;
        // A SEND (src, send_step) met its RECV (dst, recv_step).
        std::function<void(int src, std::size_t send_step, int dst, std::size_t recv_step)>
            transfer;
        // Every step of the group fired; called before the rank's next round_begin.
        std::function<void(int rank, const step_group& group)> round_end;
    };

    // Pairs every SEND with its RECV.  Throws std::logic_error naming the rank and step of a
    // peer out of range, a duplicated (src, dst, tag), an unmatched step or a size mismatch.
    // The schedule must outlive the walker.
    explicit schedule_walker(const schedule& s);

    // Index, in the peer's step list, of the step matching steps[rank][step_index].
    std::size_t match(int rank, std::size_t step_index) const {
        return m_match[static_cast<std::size_t>(rank)][step_index];
    }

    const std::vector<step_group>& groups(int rank) const {
        return m_groups[static_cast<std::size_t>(rank)];
    }

    // Runs the whole schedule, deterministically (ranks are visited in index order).  Throws
    // std::logic_error when no pair can fire while steps remain, naming a blocked rank, its
    // step and where its peer is stuck.
    void walk(const callbacks& cb) const;

private:
    const schedule& m_schedule;
    std::vector<std::vector<std::size_t>> m_match;
    std::vector<std::vector<step_group>> m_groups;
};

// "rank 3 step 7 (SEND to 4, tag 2, round 1, [10, +5))": how every diagnostic names a step.
std::string describe_step(const schedule& s, int rank, std::size_t step_index);

}  // namespace trainvp::collectives
