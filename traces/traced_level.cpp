// sc_spawn lives behind this switch in SystemC 2.3.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "traces/traced_level.h"

#include <algorithm>
#include <filesystem>

namespace trainvp {

struct traced_level::state {
    std::int64_t level = 0;
    bool flag = false;
    // A level is traced as a VCD real: viewers show it as a decimal number (a 64-bit vector
    // shows as hex), and its value changes are shorter than 64 binary digits.
    double shown = 0.0;
    std::map<sc_core::sc_time, std::int64_t> pending;
    sc_core::sc_event wake;
    vcd_limits* limits = nullptr;
};

void vcd_limits::count_change(std::uint64_t now_ps) {
    if ((++changes & 4095) != 0 || max_bytes == UINT64_MAX) return;
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (!ec && size >= max_bytes) {
        stopped = true;
        stopped_at_ps = now_ps;
        size_at_stop = size;
    }
}

traced_level::traced_level(style s) : m_style(s) {}
traced_level::~traced_level() = default;
traced_level::traced_level(traced_level&&) noexcept = default;

void traced_level::enable(sc_core::sc_trace_file* tf, const std::string& name, vcd_limits* limits) {
    m_state = std::make_unique<state>();
    state* st = m_state.get();
    st->limits = limits;
    if (m_style == style::FLAG) {
        sc_core::sc_trace(tf, st->flag, name);
    } else {
        sc_core::sc_trace(tf, st->shown, name);
    }
    sc_core::sc_spawn_options opt;
    opt.spawn_method();
    opt.set_sensitivity(&st->wake);
    opt.dont_initialize();
    const style sty = m_style;
    sc_core::sc_spawn(
        [st, sty]() {
            const sc_core::sc_time now = sc_core::sc_time_stamp();
            auto it = st->pending.begin();
            while (it != st->pending.end() && it->first <= now) {
                st->level += it->second;
                it = st->pending.erase(it);
            }
            // Outside the window (or once the file is full) the traced value keeps still, so
            // the VCD gets no value changes.
            vcd_limits* lim = st->limits;
            const bool shown = lim == nullptr || (!lim->stopped && now.value() >= lim->from_ps &&
                                                  now.value() < lim->to_ps);
            if (shown) {
                const bool flag = st->level > 0;
                const auto level = static_cast<double>(st->level);
                const bool changed = sty == style::FLAG ? flag != st->flag : level != st->shown;
                st->flag = flag;
                st->shown = level;
                if (changed && lim) lim->count_change(now.value());
            }
            // The next change, or the window's start if that comes first (the value is
            // brought up to date there).
            const bool before_window = lim != nullptr && now.value() < lim->from_ps;
            if (!st->pending.empty() || before_window) {
                sc_core::sc_time next = sc_core::sc_max_time();
                if (!st->pending.empty()) next = st->pending.begin()->first;
                if (before_window)
                    next = std::min(next, sc_core::sc_time::from_value(lim->from_ps));
                st->wake.notify(next - now);
            }
        },
        sc_core::sc_gen_unique_name("trainvp_trace"), &opt);
    // At the window's start the value is brought up to date.
    if (limits && limits->from_ps > 0) {
        st->wake.notify(sc_core::sc_time::from_value(limits->from_ps));
    }
}

void traced_level::post(const sc_core::sc_time& at, std::int64_t delta) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time when = at < now ? now : at;
    // Changes after the window (or after the file filled up) are never shown.
    if (const vcd_limits* lim = m_state->limits) {
        if (lim->stopped || when.value() >= lim->to_ps) return;
    }
    m_state->pending[when] += delta;
    // The earliest pending change decides when the method runs next.
    m_state->wake.notify(m_state->pending.begin()->first - now);
}

}  // namespace trainvp
