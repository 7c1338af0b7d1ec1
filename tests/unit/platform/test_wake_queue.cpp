// wake_queue: the blocks' event-driven engines (kit/wake_queue.h).  Each TEST elaborates
// SystemC, so each runs in its own process.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <systemc>

#include "kit/sim_context.h"
#include "kit/sim_time.h"
#include "kit/wake_queue.h"

namespace trainvp {
namespace {

struct fixture {
    sim_settings settings;
    sim_context ctx{settings};
    fixture() { ctx.wakes().spawn(); }
};

// When (ps) and by whom each activation ran.
struct log_entry {
    std::uint64_t at;
    std::string who;
    bool operator==(const log_entry& o) const { return at == o.at && who == o.who; }
};

TEST(wake_queue, same_time_wakes_run_in_the_order_asked_for) {
    fixture f;
    std::vector<log_entry> log;
    wake_queue::engine a, b, c;
    int ra = 0, rb = 0, rc = 0;
    // Each runs at 0, then sleeps until 100 ps; c asks first, then b, then a.
    auto body = [&](wake_queue::engine& e, int& runs, const char* who, std::uint64_t delay) {
        return [&, who, delay] {
            log.push_back({sim_now().value(), who});
            if (runs++ == 0) e.sleep_for(ps_time(delay));
        };
    };
    f.ctx.wakes().start(a, "a", body(a, ra, "a", 100));
    f.ctx.wakes().start(b, "b", body(b, rb, "b", 100));
    f.ctx.wakes().start(c, "c", body(c, rc, "c", 50));
    sc_core::sc_start();
    // At 0 in start order; c alone at 50; then a and b at 100 in the order they slept.
    const std::vector<log_entry> want = {{0, "a"},  {0, "b"},   {0, "c"},
                                         {50, "c"}, {100, "a"}, {100, "b"}};
    EXPECT_EQ(log, want);
    EXPECT_EQ(f.ctx.wakes().activations(), 6u);
}

TEST(wake_queue, the_earliest_wake_of_a_parked_engine_wins_and_it_runs_once) {
    fixture f;
    std::vector<std::uint64_t> runs;
    wake_queue::engine e, waker;
    f.ctx.wakes().start(e, "e", [&] {
        runs.push_back(sim_now().value());
        if (runs.size() == 1) e.park();
    });
    int step = 0;
    f.ctx.wakes().start(waker, "waker", [&] {
        if (step++ == 0) {
            EXPECT_TRUE(e.parked());
            e.wake(ps_time(300));
            e.wake(ps_time(200));  // earlier: wins
            e.wake(ps_time(400));  // later: ignored
        }
    });
    sc_core::sc_start();
    EXPECT_EQ(runs, (std::vector<std::uint64_t>{0, 200}));
}

TEST(wake_queue, an_engine_waiting_for_a_time_is_not_woken) {
    fixture f;
    std::vector<std::uint64_t> runs;
    wake_queue::engine e, waker;
    f.ctx.wakes().start(e, "e", [&] {
        runs.push_back(sim_now().value());
        if (runs.size() == 1) e.sleep_until(ps_time(1000));
    });
    f.ctx.wakes().start(waker, "waker", [&] { e.wake(ps_time(10)); });
    sc_core::sc_start();
    EXPECT_EQ(runs, (std::vector<std::uint64_t>{0, 1000}));
}

// A wake asked for by a SystemC process at a time the queue has already run reaches the
// engine at that same time (a later delta cycle), and one asked for an earlier time than the
// queue is notified for moves the queue's notification earlier.
class poker : public sc_core::sc_module {
public:
    poker(const sc_core::sc_module_name& n, wake_queue::engine& e) : sc_module(n), m_e(e) {
        SC_HAS_PROCESS(poker);
        SC_THREAD(run);
    }
    void run() {
        wait(ps_time(500));
        m_e.wake(sc_core::SC_ZERO_TIME);
    }

private:
    wake_queue::engine& m_e;
};

TEST(wake_queue, wakes_from_systemc_processes_run_at_their_time) {
    fixture f;
    std::vector<std::uint64_t> runs;
    wake_queue::engine e, late;
    f.ctx.wakes().start(e, "e", [&] {
        runs.push_back(sim_now().value());
        if (runs.size() < 3) e.park();
    });
    // Keeps the queue notified for 900 ps while e is parked; the thread wakes e at 500.
    f.ctx.wakes().start(late, "late", [&] {
        if (sim_now().value() == 0) late.sleep_until(ps_time(900));
    });
    poker p("poker", e);
    sc_core::sc_start();
    EXPECT_EQ(runs, (std::vector<std::uint64_t>{0, 500}));
    EXPECT_EQ(sim_now().value(), 900u);
}

TEST(wake_queue, an_error_in_an_engine_fails_the_run_and_stops_the_queue) {
    fixture f;
    wake_queue::engine bad, other;
    int other_runs = 0;
    f.ctx.wakes().start(bad, "node[1].host", [&] {
        if (sim_now().value() == 0) {
            bad.sleep_for(ps_time(10));
            return;
        }
        throw std::runtime_error("boom");
    });
    f.ctx.wakes().start(other, "other", [&] {
        ++other_runs;
        other.sleep_for(ps_time(10));
    });
    sc_core::sc_start();
    EXPECT_EQ(f.ctx.error(), "internal error in node[1].host: boom");
    // At 10 ps `bad` ran first (it asked first) and failed; `other` did not run then.
    EXPECT_EQ(other_runs, 1);
}

}  // namespace
}  // namespace trainvp
