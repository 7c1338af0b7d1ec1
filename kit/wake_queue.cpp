// sc_spawn lives behind this switch in SystemC 2.3.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "kit/wake_queue.h"

#include <stdexcept>
#include <utility>

#include "kit/sim_context.h"

namespace trainvp {

void wake_queue::engine::schedule(std::uint64_t at, state s) {
    ++m_gen;  // a wake-up already queued for this engine is now stale
    m_state = s;
    m_at = at;
    m_queue->push(*this, at);
}

void wake_queue::spawn() {
    if (m_spawned) return;
    m_spawned = true;
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.set_sensitivity(&m_due);
    o.dont_initialize();
    sc_core::sc_spawn([this] { run(); }, "trainvp_wake_queue", &o);
}

void wake_queue::start(engine& e, std::string who, std::function<void()> body) {
    if (!m_spawned) throw std::logic_error("wake_queue: engine '" + who + "' started before spawn");
    e.m_queue = this;
    e.m_who = std::move(who);
    e.m_body = std::move(body);
    e.schedule(0, engine::state::WOKEN);
}

void wake_queue::push(engine& e, std::uint64_t at) {
    if (at != m_last_at) {
        auto [it, fresh] = m_times.try_emplace(at, 0);
        if (fresh) {
            if (m_free.empty()) {
                it->second = static_cast<std::uint32_t>(m_buckets.size());
                m_buckets.emplace_back();
            } else {
                it->second = m_free.back();
                m_free.pop_back();
            }
        }
        m_last_at = at;
        m_last_bucket = it->second;
    }
    m_buckets[m_last_bucket].push_back(ref{&e, e.m_gen});
    if (m_running || at >= m_armed_at) return;  // run() reaches it
    // Earlier than the method is notified for (or not notified): an earlier notification
    // overrides a pending later one.
    m_armed_at = at;
    const std::uint64_t now = sim_now().value();
    m_due.notify(ps_time(at > now ? at - now : 0));
}

void wake_queue::run() {
    const std::uint64_t now = sim_now().value();
    m_running = true;
    m_armed_at = std::numeric_limits<std::uint64_t>::max();
    while (!m_times.empty() && m_times.begin()->first <= now && m_ctx.error().empty()) {
        const auto it = m_times.begin();
        const std::uint32_t b = it->second;
        // By index: a wake-up asked for now while the bucket runs joins its end.
        for (std::size_t k = 0; k < m_buckets[b].size(); ++k) {
            const std::vector<ref>& bucket = m_buckets[b];
            // Many engines due at once (the nodes of a large platform in step): fetch the
            // engine k_ahead on and the hot state of the one k_ahead / 2 on while this one runs.
            if (k + k_ahead < bucket.size()) {
                const char* e = reinterpret_cast<const char*>(bucket[k + k_ahead].e);
                __builtin_prefetch(e);
                __builtin_prefetch(e + engine::k_line);  // its state and body: two lines at most
            }
            if (k + k_ahead / 2 < bucket.size()) prefetch_hot(*bucket[k + k_ahead / 2].e);
            const ref r = bucket[k];
            if (r.gen != r.e->m_gen) continue;  // superseded by an earlier wake
            run_engine(*r.e);
            if (!m_ctx.error().empty()) break;  // a failed run stops (sim_context::fail)
        }
        m_buckets[b].clear();
        m_free.push_back(b);
        if (m_last_at == it->first) m_last_at = std::numeric_limits<std::uint64_t>::max();
        m_times.erase(it);
    }
    m_running = false;
    if (!m_times.empty() && m_ctx.error().empty()) {
        m_armed_at = m_times.begin()->first;
        m_due.notify(ps_time(m_armed_at - now));
    }
}

void wake_queue::prefetch_hot(const engine& e) {
    const char* p = static_cast<const char*>(e.m_hot);
    for (std::uint8_t i = 0; i < e.m_hot_lines; ++i) __builtin_prefetch(p + i * engine::k_line);
}

void wake_queue::run_engine(engine& e) {
    ++m_activations;
    e.m_state = engine::state::RUNNING;
    m_ctx.guard(e.m_who, e.m_body);
    if (e.m_state == engine::state::RUNNING) e.m_state = engine::state::ENDED;
}

}  // namespace trainvp
