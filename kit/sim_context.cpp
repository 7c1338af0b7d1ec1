#include "kit/sim_context.h"

#include <cstring>

#include "core/error.h"

namespace trainvp {

namespace {
sim_context* g_current = nullptr;
}

void sim_settings::declare(param_list<sim_settings>& d) {
    d.param("max_time", &sim_settings::max_time, "0s",
            "Stop at this simulated time even if the workload has not finished (0s: no limit)")
        .range("0s", "1e6s");
    d.param("stall_timeout", &sim_settings::stall_timeout, "1ms",
            "A stall is reported when blocks hold work and nothing progresses for this long "
            "(at least 1ns: 0s would report every run that holds work as stalled)")
        .range("1ns", "1e6s");
    d.param("quantum", &sim_settings::quantum, "1us",
            "Global quantum of loosely-timed initiators (tlm_global_quantum; 0s: every "
            "initiator synchronises at each transaction)")
        .range("0s", "1s");
    d.param("warmup", &sim_settings::warmup, "0s",
            "Statistics are reset at this simulated time (0s: no warm-up; below max_time when "
            "that is set, checked)")
        .range("0s", "1e6s");
    d.param("seed", &sim_settings::seed, "1", "Seed of every random stream in the run")
        .range("0", "2^62");
    d.param("timeline", &sim_settings::timeline, "true",
            "Record spans of activity into timeline.json (every op's span is kept until the "
            "end of the run: memory grows with the run; false for long soak runs)");
    d.param("breakdown", &sim_settings::breakdown, "true",
            "Record every host op's times for the `iteration` critical-path breakdown in "
            "stats.json (a compact record of ~90 B per op, kept until the end of the run: "
            "memory grows with the run; false drops the breakdown, for long soak runs)");
    d.choice("granularity", &sim_settings::grain,
             {{"packet", granularity::PACKET},
              {"message", granularity::MESSAGE},
              {"flow", granularity::FLOW}},
             "packet",
             "Cluster network detail (DESIGN.md: granularity is a knob). packet: every Ethernet "
             "frame is a transaction. message: a message crosses each NIC, link and switch as "
             "one transaction with all its frames' wire bytes, pipelined across hops as its "
             "frames would be (head after one frame, tail after the slowest hop); frame counts "
             "are kept. Within 3 % of packet where the NICs' DMA keeps up with the network "
             "(docs/user-guide.md lists the configs checked and where it does not). flow: the "
             "cluster network is one fabric.flow block whose links carry messages as flows "
             "sharing capacity max-min fairly; NICs, links and switches outside it run as at "
             "message level");
    d.param("memory_limit", &sim_settings::memory_limit, "0B",
            "A platform whose estimated memory exceeds this is refused, with the estimate and "
            "the knob that reduces it: before it is built, its blocks times ~16 KiB each; "
            "once its workload is handed out, also the hosts' op windows and, growing with "
            "the run, the timeline's spans and the breakdown's records (0B: the machine's "
            "available memory, MemAvailable of /proc/meminfo)")
        .range("0B", "1024TiB");
}

const std::vector<param_decl>& sim_settings::decls() {
    static const std::vector<param_decl> list = [] {
        param_list<sim_settings> d;
        declare(d);
        return d.params();
    }();
    return list;
}

std::mt19937_64 sim_context::rng_for(const std::string& path) const {
    // FNV-1a of the path, mixed with the seed: stable across runs and platforms.
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : path) {
        h ^= c;
        h *= 1099511628211ull;
    }
    std::seed_seq seq{static_cast<std::uint32_t>(m_settings.seed),
                      static_cast<std::uint32_t>(m_settings.seed >> 32),
                      static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(h >> 32)};
    return std::mt19937_64(seq);
}

void sim_context::guard(const std::string& who, const std::function<void()>& body) {
    try {
        body();
    } catch (const sc_core::sc_unwind_exception&) {
        throw;  // the kernel killing or resetting a thread: not an error
    } catch (const run_interrupt::stop&) {
        // SIGINT / SIGTERM: stop_for_interrupt stopped the kernel; the run ends `interrupted`.
    } catch (const sim_error& e) {
        fail(e.what());
    } catch (const input_error& e) {
        fail(e.what());
    } catch (const sc_core::sc_report& e) {
        if (std::strcmp(e.get_msg_type(), sc_core::SC_ID_WAIT_NOT_ALLOWED_) == 0) {
            // A method (an event-driven engine) called a target that waits.
            fail(who +
                 ": a block it called waits inside b_transport, but its engine is an "
                 "event-driven method: targets must be loosely timed (annotate the delay "
                 "instead of waiting; docs/adding-ip.md)");
        } else {
            fail("internal error in " + who + ": " + e.what());
        }
    } catch (const std::exception& e) {
        fail("internal error in " + who + ": " + e.what());
    }
}

void sim_context::stop_for_interrupt() {
    // Outside a running process (elaboration, the end of the run) there is nothing to unwind.
    if (!sc_core::sc_is_running() || sc_core::sc_get_current_process_b() == nullptr) return;
    // Once: a second sc_stop makes SystemC warn (W545), and every process that reports
    // progress after the signal comes here.
    static bool stopped = false;
    if (!stopped) sc_core::sc_stop();
    stopped = true;
    throw run_interrupt::stop{};
}

sim_context* sim_context::current() { return g_current; }
void sim_context::set_current(sim_context* c) { g_current = c; }

}  // namespace trainvp
