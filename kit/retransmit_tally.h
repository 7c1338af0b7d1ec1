// What a sender that resends lost frames keeps for the end-of-run audit (a NIC's TX path,
// ip/nic/README.md "Retransmission"): every transmission -- a message's first sending of a
// frame or a resend of a lost one -- is either delivered or dropped, and a finished run has
// resent every frame it lost:
//   first + retransmitted = delivered + dropped,   retransmitted = dropped (drained).
// Counted over the whole run (never reset at warm-up).  Pure C++, tested alone.
#pragma once

#include <cstdint>
#include <string>

#include "kit/audit_log.h"

namespace trainvp {

struct retransmit_tally {
    std::uint64_t frames_first = 0, bytes_first = 0;  // first transmissions
    std::uint64_t frames_resent = 0, bytes_resent = 0;
    std::uint64_t frames_delivered = 0, bytes_delivered = 0;
    std::uint64_t frames_dropped = 0, bytes_dropped = 0;

    // `frames` frames of `bytes` in all (a message-level train is several).
    void sent(std::uint64_t frames, std::uint64_t bytes, bool resend) {
        if (resend) {
            frames_resent += frames;
            bytes_resent += bytes;
        } else {
            frames_first += frames;
            bytes_first += bytes;
        }
    }
    void delivered(std::uint64_t frames, std::uint64_t bytes) {
        frames_delivered += frames;
        bytes_delivered += bytes;
    }
    void dropped(std::uint64_t frames, std::uint64_t bytes) {
        frames_dropped += frames;
        bytes_dropped += bytes;
    }
    // Checks both identities, in frames and bytes, for the stage named `what` of `block`.
    // `drained`: the run finished with nothing left to resend (else only the first holds).
    void audit(audit_log& log, const std::string& block, const std::string& what,
               bool drained) const;
};

}  // namespace trainvp
