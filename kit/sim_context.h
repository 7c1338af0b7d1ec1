// What every block of one simulation shares: the `simulation:` settings, the timeline, the
// progress counter the stall watchdog reads, and the event that wakes the controller when a
// driver finishes.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include <systemc>

#include "core/param_decl.h"
#include "kit/run_interrupt.h"
#include "kit/sim_time.h"
#include "kit/wake_queue.h"
#include "traces/timeline.h"

namespace trainvp {

// How finely the cluster network is simulated (DESIGN.md "Granularity is a knob"): every
// frame as a transaction, each message as one transaction per hop with its frames' total
// serialisation (ip/ethernet/README.md, "Message granularity"), or the whole network as one
// fabric.flow block in which messages are flows sharing the links (ip/fabric/README.md).
enum class granularity { PACKET, MESSAGE, FLOW };

// The `simulation:` section of a config.
struct sim_settings {
    units::duration max_time;
    units::duration stall_timeout;
    units::duration quantum;
    units::duration warmup;
    std::uint64_t seed = 1;
    bool timeline = true;
    granularity grain = granularity::PACKET;
    bool breakdown = true;
    units::data_size memory_limit;  // 0: the machine's available memory

    static void declare(param_list<sim_settings>& d);
    static const std::vector<param_decl>& decls();
};

class sim_context {
public:
    explicit sim_context(const sim_settings& s) : m_settings(s), m_timeline(s.timeline) {}
    sim_context(const sim_context&) = delete;
    sim_context& operator=(const sim_context&) = delete;

    const sim_settings& settings() const { return m_settings; }
    timeline& spans() { return m_timeline; }
    const timeline& spans() const { return m_timeline; }

    // Blocks call this whenever work moves (a transaction completes, a packet leaves).
    void progress() { progress_until(sim_now()); }
    // Loosely-timed blocks know work will complete at a future time (a reservation that ends
    // at t); until then the platform is not stalled.
    // Both throw run_interrupt::stop inside a running process once SIGINT / SIGTERM came.
    void progress_until(const sc_core::sc_time& t) {
        if (t > m_progress_until) m_progress_until = t;
        if (run_interrupt::received() != 0) stop_for_interrupt();
    }
    const sc_core::sc_time& last_progress() const { return m_progress_until; }

    sc_core::sc_event& driver_done() { return m_driver_done; }

    // A block failed inside a process: the first error is kept and the run stops; the
    // simulation raises it as a sim_error once sc_start has returned, on the main stack (an
    // exception must not unwind through the SystemC kernel's coroutines).
    void fail(const std::string& message) {
        if (m_error.empty()) m_error = message;
        sc_core::sc_stop();
    }
    const std::string& error() const { return m_error; }
    // Whether the run ended with every driver finished (set before the blocks' end_of_run).
    // A run that stopped early (a failure, a stall, max_time) holds reservations made for
    // after its end: a block's statistics then cover only the time that ran
    // (resource_usage::busy_fraction).
    void set_run_complete(bool complete) { m_run_complete = complete; }
    bool run_complete() const { return m_run_complete; }
    // Stops the kernel and unwinds the calling process (run_interrupt::stop) when it runs.
    void stop_for_interrupt();
    // Runs a process's body (a thread, a method or a wake_queue engine of the block at `who`)
    // with its errors turned into a failed run (fail): an exception never unwinds through the
    // kernel.
    void guard(const std::string& who, const std::function<void()>& body);

    // The blocks' event-driven engines (kit/wake_queue.h).
    wake_queue& wakes() { return m_wakes; }

    // A block of the platform loses frames (a link with down intervals or a frame error rate,
    // ip/ethernet/README.md "Faults"): set while the platform is built, so that senders that
    // batch frames at message level send them one by one and each meets the faults on its own.
    void declare_frame_faults() { m_frame_faults = true; }
    bool frame_faults() const { return m_frame_faults; }

    // A random stream per block, derived from the run's seed and the block's path, so that
    // adding a block does not change the numbers another block draws.
    std::mt19937_64 rng_for(const std::string& path) const;

    // The context of the simulation being built or run (one per process: SystemC elaborates
    // once per process).
    static sim_context* current();
    static void set_current(sim_context* c);

private:
    sim_settings m_settings;
    timeline m_timeline;
    sc_core::sc_time m_progress_until;
    std::string m_error;
    bool m_run_complete = true;
    bool m_frame_faults = false;
    sc_core::sc_event m_driver_done{"trainvp_driver_done"};
    wake_queue m_wakes{*this};
};

}  // namespace trainvp
