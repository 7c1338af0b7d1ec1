// The end-of-run audit (DESIGN.md: nothing is lost silently).  After a finished run every block
// checks its invariants (frames and bytes conserved, queues empty, every op done) into one
// audit_log; the run records how many checks it made and fails (exit 1) with every broken one,
// naming the block and what broke.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainvp {

class audit_log {
public:
    // One invariant of `block`: `what` says what must hold ("frames in = frames out"); `detail`
    // what was found, shown when it does not hold.
    void check(const std::string& block, const std::string& what, bool holds,
               const std::string& detail = {});

    std::size_t checks() const { return m_checks; }
    // "node[1].nic: frames in = frames out (in 10, out 9)", in the order the checks were made.
    const std::vector<std::string>& violations() const { return m_violations; }

private:
    std::size_t m_checks = 0;
    std::vector<std::string> m_violations;
};

// What enters and leaves a stage that forwards frames (a link direction, a switch, a NIC path):
// counted over the whole run (never reset at warm-up), so that in = out + dropped holds exactly
// once the run has drained.
struct flow_tally {
    std::uint64_t frames_in = 0, bytes_in = 0;
    std::uint64_t frames_out = 0, bytes_out = 0;
    std::uint64_t frames_dropped = 0, bytes_dropped = 0;

    void enter(std::uint64_t bytes) {
        ++frames_in;
        bytes_in += bytes;
    }
    void leave(std::uint64_t bytes) {
        ++frames_out;
        bytes_out += bytes;
    }
    void drop(std::uint64_t bytes) {
        ++frames_dropped;
        bytes_dropped += bytes;
    }
    // Checks frames and bytes: in = out + dropped, for the stage named `what` of `block`.
    void audit(audit_log& log, const std::string& block, const std::string& what) const;
};

}  // namespace trainvp
