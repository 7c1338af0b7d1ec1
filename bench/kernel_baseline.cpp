// SystemC kernel baseline: two threads notifying each other through timed events, the cheapest
// thing a simulation can do per event.  Every trainvp rate can be read as a fraction of this.
//   kernel_baseline [EVENTS]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <systemc>

namespace {

struct ping_pong : sc_core::sc_module {
    SC_HAS_PROCESS(ping_pong);
    ping_pong(const sc_core::sc_module_name& n, long events) : sc_module(n), m_events(events) {
        SC_THREAD(ping);
        SC_THREAD(pong);
    }
    void ping() {
        for (long i = 0; i < m_events / 2; ++i) {
            m_a.notify(1, sc_core::SC_NS);
            wait(m_b);
        }
    }
    void pong() {
        while (true) {
            wait(m_a);
            m_b.notify(1, sc_core::SC_NS);
        }
    }
    long m_events;
    sc_core::sc_event m_a, m_b;
};

}  // namespace

// libsystemc prints its banner before sc_main; a static initialiser runs earlier still.
static const bool g_quiet_banner = [] {
    return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
}();

int sc_main(int argc, char* argv[]) {
    const long events = argc > 1 ? std::atol(argv[1]) : 10000000;
    ping_pong top("top", events);
    const auto t0 = std::chrono::steady_clock::now();
    sc_core::sc_start();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "{\"bench\":\"kernel_baseline\",\"events\":%ld,\"wall_s\":%.4f,\"events_per_s\":%.4g}\n",
        events, wall, static_cast<double>(events) / wall);
    return 0;
}
