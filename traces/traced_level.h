// A value traced into the VCD whose changes are known ahead of time.  Loosely-timed blocks
// compute that a link is busy from t0 to t1 without waiting until then, so they post the
// changes (+1 at t0, -1 at t1); when tracing is on, a method applies them at their times.
// When tracing is off, posting costs nothing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "traces/busy_histogram.h"

namespace trainvp {

// What goes into the VCD: a time window, and the size at which tracing stops (the file is
// checked every few thousand value changes).  Shared by every traced_level of a run.
struct vcd_limits {
    std::uint64_t from_ps = 0;
    std::uint64_t to_ps = UINT64_MAX;  // exclusive
    std::uint64_t max_bytes = UINT64_MAX;
    std::string file;  // the file being written, whose size is checked
    // Filled in as the run goes.
    std::uint64_t changes = 0;
    bool stopped = false;
    std::uint64_t stopped_at_ps = 0;
    std::uint64_t size_at_stop = 0;
    // Counts one value change; stops tracing once the file is past max_bytes.
    void count_change(std::uint64_t now_ps);
};

// A level's changes (time, delta), recorded for the timeline's counter tracks when the run
// writes one; recording stops (`full`) past k_max changes, to bound the memory (16 B each).
struct level_series {
    static constexpr std::size_t k_max = 100000;
    std::vector<std::pair<std::uint64_t, std::int64_t>> changes;
    bool full = false;
    void add(std::uint64_t at_ps, std::int64_t delta) {
        if (full) return;
        if (changes.size() >= k_max) {
            full = true;
            changes = {};
            return;
        }
        changes.emplace_back(at_ps, delta);
    }
};

class traced_level {
public:
    enum class style { FLAG, LEVEL };  // FLAG traces (level > 0) as one bit

    explicit traced_level(style s = style::LEVEL);
    ~traced_level();
    traced_level(const traced_level&) = delete;
    traced_level& operator=(const traced_level&) = delete;
    traced_level(traced_level&&) noexcept;

    // Starts tracing into `tf` under `name`.  Call during elaboration.
    // `limits` (kept by the caller for the run; null: everything) bounds what is written.
    void enable(sc_core::sc_trace_file* tf, const std::string& name, vcd_limits* limits = nullptr);
    bool enabled() const { return m_state != nullptr; }
    // Also counts every busy() interval into `h` (the run summary's per-phase bottlenecks);
    // null stops it.  Independent of tracing.
    void account_busy(busy_histogram* h) { m_account = h; }
    // Also records every change_at() into `s` (null stops it).  Independent of tracing.
    void record_levels(level_series* s) { m_record = s; }
    bool is_flag() const { return m_style == style::FLAG; }

    // Adds `delta` to the level at simulated time `at` (not before now).
    void change_at(const sc_core::sc_time& at, std::int64_t delta) {
        if (m_state) post(at, delta);
        if (m_record) m_record->add(at.value(), delta);
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
    level_series* m_record = nullptr;
};

}  // namespace trainvp
