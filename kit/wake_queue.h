// The platform's own queue of timed wake-ups for blocks' event-driven engines (host.cpu's
// units, nic.basic's TX engine).  One SystemC method runs every engine due at a time, in the
// order their wake-ups were asked for (a stated rule, not the kernel's order of same-time
// events).  An activation then touches the engine's own state and a 16 B entry in its wake
// time's bucket, instead of a process object, an event and a timed-event record of its own in
// SystemC's kernel: in the 512-node ring those were 144 of a message's 341 L1-missing lines
// (docs/status.md, "Event-driven engines").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <systemc>

#include "kit/sim_time.h"

namespace trainvp {

class sim_context;

class wake_queue {
public:
    // A block's engine: a body that runs once at time 0 (as a SystemC method does) and then
    // whenever it is due.  Before it returns, the body says what it waits for: a time
    // (sleep_until / sleep_for, as next_trigger(t)) or a wake() from other code (park, as
    // next_trigger(event)).  A body that says neither has ended and never runs again.
    class engine {
    public:
        engine() = default;
        engine(const engine&) = delete;
        engine& operator=(const engine&) = delete;

        // Within the body.
        void sleep_until(const sc_core::sc_time& t) { schedule(t.value(), state::TIMED); }
        void sleep_for(const sc_core::sc_time& d) {
            schedule(sim_now().value() + d.value(), state::TIMED);
        }
        void park() { m_state = state::PARKED; }

        // From other code: a parked engine runs after `delay` (of several wakes before it runs,
        // the earliest wins, as an sc_event's notifications do).  An engine that waits for a
        // time or is running is not woken: it must check its condition again when it runs (a
        // wake is for an engine that parked on that condition).
        void wake(const sc_core::sc_time& delay) {
            const std::uint64_t at = sim_now().value() + delay.value();
            if (m_state == state::PARKED || (m_state == state::WOKEN && at < m_at)) {
                schedule(at, state::WOKEN);
            }
        }
        // From other code: the engine runs no later than after `delay`, whatever it waits
        // for (a parked engine is woken; one sleeping until later runs earlier instead).
        void wake_by(const sc_core::sc_time& delay) {
            const std::uint64_t at = sim_now().value() + delay.value();
            if (m_state == state::PARKED ||
                ((m_state == state::WOKEN || m_state == state::TIMED) && at < m_at)) {
                schedule(at, m_state == state::TIMED ? state::TIMED : state::WOKEN);
            }
        }
        bool parked() const { return m_state == state::PARKED; }
        // The state the body reads first (its first k_hot_lines cache lines from `at`).  When
        // many engines are due at one time (the nodes of a large platform in step), the queue
        // prefetches it a few engines ahead, so that their cache misses overlap instead of
        // following one another (docs/performance.md).
        void hot_state(const void* at, std::size_t bytes) {
            m_hot = at;
            m_hot_lines = static_cast<std::uint8_t>(
                std::min<std::size_t>(k_hot_lines, (bytes + k_line - 1) / k_line));
        }

    private:
        friend class wake_queue;
        enum class state : std::uint8_t { ENDED, RUNNING, PARKED, TIMED, WOKEN };
        void schedule(std::uint64_t at, state s);

        static constexpr std::size_t k_line = 64;
        static constexpr std::size_t k_hot_lines = 4;
        wake_queue* m_queue = nullptr;
        state m_state = state::ENDED;
        std::uint8_t m_hot_lines = 0;  // hot_state
        std::uint32_t m_gen = 0;       // entries of an older generation are stale
        std::uint64_t m_at = 0;        // TIMED / WOKEN: when it runs (ps)
        const void* m_hot = nullptr;   // hot_state
        std::function<void()> m_body;
        std::string m_who;  // for errors: the block's path
    };

    explicit wake_queue(sim_context& ctx) : m_ctx(ctx) {}
    wake_queue(const wake_queue&) = delete;
    wake_queue& operator=(const wake_queue&) = delete;

    // Spawns the method that runs the queue (during elaboration, once).
    void spawn();
    // Registers e (during elaboration); its body first runs at time 0, in registration order.
    void start(engine& e, std::string who, std::function<void()> body);

    // Engine activations run so far (docs/performance.md).
    std::uint64_t activations() const { return m_activations; }

private:
    // A wake-up asked for; stale once its engine's generation has moved on.
    struct ref {
        engine* e;
        std::uint32_t gen;
    };
    void push(engine& e, std::uint64_t at);
    void run();
    void run_engine(engine& e);
    static void prefetch_hot(const engine& e);
    static constexpr std::size_t k_ahead = 8;

    sim_context& m_ctx;
    // The pending times, earliest first, each with its bucket in m_buckets: the wake-ups due
    // then, in the order they were asked for.  Engines of a large platform mostly wake at the
    // same few times (its nodes do the same work), so a time's bucket holds many and the map
    // stays short.
    std::map<std::uint64_t, std::uint32_t> m_times;
    std::vector<std::vector<ref>> m_buckets;
    std::vector<std::uint32_t> m_free;  // buckets not in use
    // The bucket last appended to and its time (max: none), found without the map.
    std::uint64_t m_last_at = std::numeric_limits<std::uint64_t>::max();
    std::uint32_t m_last_bucket = 0;
    std::uint64_t m_activations = 0;
    bool m_spawned = false;
    bool m_running = false;  // within run(): a push at the current time is run by this loop
    // The time the method is notified for (max: not notified).
    std::uint64_t m_armed_at = std::numeric_limits<std::uint64_t>::max();
    sc_core::sc_event m_due{"trainvp_wake_queue_due"};
};

}  // namespace trainvp
