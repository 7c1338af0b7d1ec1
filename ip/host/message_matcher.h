// A host's messages in flight (ip/host/README.md, "send" and "recv"): the SENDs it posted that
// await SEND_DONE, by message id; the RECV each unit has posted and not yet matched; and the
// messages that arrived before their RECV (the unexpected queue, matched first come first
// served by source node and tag, as MPI orders messages of one source and tag).
//
// Pure C++ (no SystemC): times are integer picoseconds, the value of the host's sc_time at a
// resolution of 1 ps (kit/sim_time.h), so that it is unit-tested alone
// (tests/unit/host/test_message_matcher.cpp).  A message of a 1024-node ring touches it twice
// (the RECEIVED at the receiver, the SEND_DONE at the sender): no allocation per message, and
// what a message reads is in a few cache lines.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "kit/flat_queue.h"
#include "workloads/ops/op.h"

namespace trainvp::ip {

class alignas(64) message_matcher {
public:
    static constexpr std::size_t k_none = static_cast<std::size_t>(-1);
    // A SEND (or ALLREDUCE) op awaiting SEND_DONE, with what SEND_DONE needs of it (its slot
    // is not visited again).
    struct pending_send {
        std::size_t op = k_none;
        std::uint64_t started_ps = 0;  // when its unit started it
        std::uint64_t bytes = 0;
        std::uint64_t address = 0;
        ops::op_kind kind = ops::op_kind::SEND;
        std::uint8_t tos = 0;
    };
    // A RECEIVED notification not yet matched to a RECV.
    struct arrival {
        std::uint32_t peer = 0;
        std::uint32_t tag = 0;
        std::uint64_t bytes = 0;
        std::uint64_t at_ps = 0;
        std::shared_ptr<std::vector<std::uint8_t>> data;
        std::uint64_t msg_id = 0;  // at the source
    };

    // SENDs.  Records `p` under the next message id (handed out in order from 0) and returns
    // that id.  Recorded before the descriptor goes to the NIC: its SEND_DONE may come back
    // within the call.
    std::uint64_t post_send(const pending_send& p) {
        m_sends.push_back(p);  // at m_next_msg_id - m_sends_base
        ++m_sends_pending;
        return m_next_msg_id++;
    }
    // SEND_DONE for message `msg_id`: its send, taken off the table, in `out`; false when this
    // host never sent it or has completed it.
    bool complete_send(std::uint64_t msg_id, pending_send& out);
    // SENDs awaiting SEND_DONE: how many, and their ops in message order (stall reports).
    std::size_t sends_pending() const { return m_sends_pending; }
    std::vector<std::size_t> pending_send_ops() const;

    // RECVs.  Unit u starts RECV `op` of a message from `peer` with `tag`: it takes the first
    // unexpected arrival that matches (true, the arrival in `out`, off the queue), or the
    // receive is posted for the unit (false) until receive() matches it.
    bool post_recv(std::size_t u, std::size_t op, std::uint32_t peer, std::uint32_t tag,
                   arrival& out);
    // A message from `peer` with `tag` arrived: the first unit (in unit order) whose posted
    // receive it matches, that posting cleared; k_none when none does (then add_unexpected).
    std::size_t receive(std::uint32_t peer, std::uint32_t tag) {
        for (std::size_t u = 0; u < ops::k_op_units; ++u) {
            posted_recv& p = m_posted[u];
            if (p.op == k_none || p.peer != peer || p.tag != tag) continue;
            p.op = k_none;
            return u;
        }
        return k_none;
    }
    void add_unexpected(arrival a) { m_unexpected.push_back(std::move(a)); }
    // Messages that arrived and no receive has taken yet; the oldest of them (when there is
    // one).
    std::size_t unexpected() const { return m_unexpected.size(); }
    const arrival& first_unexpected() const { return m_unexpected.front(); }

private:
    // Per unit: the RECV it has started and not yet matched (op k_none: none) and what it
    // matches, so that a RECEIVED notification reads these, not every unit's front op slot.
    struct posted_recv {
        std::size_t op = k_none;
        std::uint32_t peer = 0;
        std::uint32_t tag = 0;
    };

    // In cache lines by when they are touched (the matcher is aligned to a line).  Line 0: a
    // RECEIVED (receive), a RECV's start (post_recv).
    std::array<posted_recv, ops::k_op_units> m_posted{};
    // Line 1: a SEND's start (post_send), its SEND_DONE (complete_send).  The SEND op of each
    // message awaiting SEND_DONE, by message id: m_sends[id - m_sends_base], op k_none once
    // done (ids are handed out in order and mostly complete in order, so this stays short; no
    // node allocated per message as a map would).
    flat_queue<pending_send> m_sends;
    std::uint64_t m_sends_base = 0;
    std::size_t m_sends_pending = 0;
    std::uint64_t m_next_msg_id = 0;
    // Line 2 (its ends): a RECV's start, an arrival no unit waits for.
    std::deque<arrival> m_unexpected;
};

}  // namespace trainvp::ip
