// A value traced into the VCD whose changes are known ahead of time.  Loosely-timed blocks
// compute that a link is busy from t0 to t1 without waiting until then, so they post the
// changes (+1 at t0, -1 at t1); when tracing is on, a method applies them at their times.
// When tracing is off, posting costs nothing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <systemc>

#include "traces/busy_histogram.h"

namespace trainvp {

class traced_level {
public:
    enum class style { FLAG, LEVEL };  // FLAG traces (level > 0) as one bit

    explicit traced_level(style s = style::LEVEL);
    ~traced_level();
    traced_level(const traced_level&) = delete;
    traced_level& operator=(const traced_level&) = delete;
    traced_level(traced_level&&) noexcept;

    // Starts tracing into `tf` under `name`.  Call during elaboration.
    void enable(sc_core::sc_trace_file* tf, const std::string& name);
    bool enabled() const { return m_state != nullptr; }
    // Also counts every busy() interval into `h` (the run summary's per-phase bottlenecks);
    // null stops it.  Independent of tracing.
    void account_busy(busy_histogram* h) { m_account = h; }

    // Adds `delta` to the level at simulated time `at` (not before now).
    void change_at(const sc_core::sc_time& at, std::int64_t delta) {
        if (m_state) post(at, delta);
    }
    // Marks [start, end) as busy (+1 over the interval).
    void busy(const sc_core::sc_time& start, const sc_core::sc_time& end) {
        if (m_state && end > start) {
            post(start, +1);
            post(end, -1);
        }
        if (m_account) m_account->add(start.value(), end.value());
    }

private:
    struct state;
    void post(const sc_core::sc_time& at, std::int64_t delta);

    style m_style;
    std::unique_ptr<state> m_state;
    busy_histogram* m_account = nullptr;
};

}  // namespace trainvp
