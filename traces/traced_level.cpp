// sc_spawn lives behind this switch in SystemC 2.3.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "traces/traced_level.h"

namespace trainvp {

struct traced_level::state {
    std::int64_t level = 0;
    bool flag = false;
    // A level is traced as a VCD real: viewers show it as a decimal number (a 64-bit vector
    // shows as hex), and its value changes are shorter than 64 binary digits.
    double shown = 0.0;
    std::map<sc_core::sc_time, std::int64_t> pending;
    sc_core::sc_event wake;
};

traced_level::traced_level(style s) : m_style(s) {}
traced_level::~traced_level() = default;
traced_level::traced_level(traced_level&&) noexcept = default;

void traced_level::enable(sc_core::sc_trace_file* tf, const std::string& name) {
    m_state = std::make_unique<state>();
    state* st = m_state.get();
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
            if (sty == style::FLAG) st->flag = st->level > 0;
            st->shown = static_cast<double>(st->level);
            if (!st->pending.empty()) st->wake.notify(st->pending.begin()->first - now);
        },
        sc_core::sc_gen_unique_name("trainvp_trace"), &opt);
}

void traced_level::post(const sc_core::sc_time& at, std::int64_t delta) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time when = at < now ? now : at;
    m_state->pending[when] += delta;
    // The earliest pending change decides when the method runs next.
    m_state->wake.notify(m_state->pending.begin()->first - now);
}

}  // namespace trainvp
