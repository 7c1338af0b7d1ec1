#include "kit/retransmit_tally.h"

namespace trainvp {

void retransmit_tally::audit(audit_log& log, const std::string& block, const std::string& what,
                             bool drained) const {
    const auto n = [](std::uint64_t x) { return std::to_string(x); };
    log.check(block, what + ": frames sent + resent = delivered + dropped",
              frames_first + frames_resent == frames_delivered + frames_dropped,
              "sent " + n(frames_first) + ", resent " + n(frames_resent) + ", delivered " +
                  n(frames_delivered) + ", dropped " + n(frames_dropped));
    log.check(block, what + ": bytes sent + resent = delivered + dropped",
              bytes_first + bytes_resent == bytes_delivered + bytes_dropped,
              "sent " + n(bytes_first) + " B, resent " + n(bytes_resent) + " B, delivered " +
                  n(bytes_delivered) + " B, dropped " + n(bytes_dropped) + " B");
    if (!drained) return;
    log.check(block, what + ": every dropped byte resent",
              bytes_resent == bytes_dropped && frames_resent == frames_dropped,
              "dropped " + n(frames_dropped) + " frames / " + n(bytes_dropped) + " B, resent " +
                  n(frames_resent) + " / " + n(bytes_resent) + " B");
}

}  // namespace trainvp
