#include "kit/audit_log.h"

namespace trainvp {

void audit_log::check(const std::string& block, const std::string& what, bool holds,
                      const std::string& detail) {
    ++m_checks;
    if (holds) return;
    m_violations.push_back(block + ": " + what + (detail.empty() ? "" : " (" + detail + ")"));
}

void flow_tally::audit(audit_log& log, const std::string& block, const std::string& what) const {
    const auto n = [](std::uint64_t x) { return std::to_string(x); };
    log.check(block, what + ": frames in = out + dropped", frames_in == frames_out + frames_dropped,
              "in " + n(frames_in) + ", out " + n(frames_out) + ", dropped " + n(frames_dropped));
    log.check(
        block, what + ": bytes in = out + dropped", bytes_in == bytes_out + bytes_dropped,
        "in " + n(bytes_in) + " B, out " + n(bytes_out) + " B, dropped " + n(bytes_dropped) + " B");
}

}  // namespace trainvp
