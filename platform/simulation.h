// One simulation: builds the blocks of a platform_desc inside a SystemC hierarchy, binds them,
// runs until every driver finished (or max_time, or a stall), and writes the outputs.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "kit/ip_module.h"
#include "kit/registry.h"
#include "platform/platform_desc.h"
#include "traces/busy_histogram.h"
#include "traces/run_summary.h"
#include "traces/stats_report.h"
#include "traces/traced_level.h"
#include "workloads/drivers/workload_section.h"
#include "workloads/iteration/critical_path.h"

namespace trainvp {

// INTERRUPTED: stopped by SIGINT or SIGTERM (run_interrupt.h) before it ended otherwise.
enum class run_status { FINISHED, MAX_TIME, STALLED, FAILED, IDLE, INTERRUPTED };

const char* run_status_name(run_status s);

struct run_result {
    run_status status = run_status::IDLE;
    sc_core::sc_time end_time;
    double wall_seconds = 0.0;
    std::string stall_report;  // the blocks that hold work, for STALLED
    std::string error;         // what failed, for FAILED (a block's sim_error)
    int signal = 0;            // the signal that stopped an INTERRUPTED run
    // The critical-path breakdown of a FINISHED run whose hosts ran ops (critical_path.h):
    // written to the stats as block "iteration" and printed in the summary, per iteration.
    // The end-of-run audit of a FINISHED run (audit_log.h): checks made and what broke; a broken
    // invariant turns the status into FAILED.
    bool audited = false;
    std::size_t audit_checks = 0;
    std::vector<std::string> audit_violations;
    bool has_breakdown = false;
    workloads::iteration_breakdown breakdown;
    int iterations = 1;  // workload.training.iterations (1 for op lists)
    // Per phase of the iteration (compute, communication), the busiest resource of each kind
    // and its utilisation in that phase, most loaded first (simulation::phase_bottlenecks).
    std::vector<std::string> bottlenecks;
    // What the workload's sections measured from the hosts' runs (workload.collective's time
    // and bandwidths per collective), written to the stats and the summary.
    std::vector<drivers::measured_stat> measured;
};

// Called during a run, between slices of sc_start, at most every `period_s` of wall time:
// simulated time so far and wall seconds since the run started.  Slicing changes no simulated
// result (the kernel keeps its queues between slices; see simulation::run).
struct run_progress_hook {
    double period_s = 0.5;
    std::function<void(const sc_core::sc_time& now, double wall_s)> fn;
};

// What `--vcd` writes: the signals whose names (`node[0].nic.tx_busy`) match one of the globs
// (none: all), from `from_ps` to `to_ps`, and no more than about `max_bytes` (tracing stops
// there, with a warning).
struct vcd_options {
    std::vector<std::string> signals;
    std::uint64_t from_ps = 0;
    std::uint64_t to_ps = UINT64_MAX;
    std::uint64_t max_bytes = UINT64_MAX;
};

class simulation {
public:
    simulation(platform_desc desc, const registry& reg);
    ~simulation();

    // Builds and binds every block.  Throws input_error for bad params, sockets or bindings.
    void elaborate();
    // Opens the VCD (call after elaborate, before run); `file_base` gets ".vcd" appended.
    // Throws input_error when a glob of `opt.signals` matches no signal.  Scopes are the
    // blocks' config paths (`node[0].nic`).
    void trace_to(const std::string& file_base, const vcd_options& opt = {});
    // How many signals the VCD carries (after trace_to).
    std::size_t traced_signals() const { return m_traced; }
    // Runs to the end (every driver finished, max_time, a stall or a failure).  With a hook,
    // sc_start runs in slices so that the hook can report progress.
    run_result run(const run_progress_hook* hook = nullptr);

    // Output documents.
    std::string stats_json(const run_result& r) const;
    std::string stats_csv(const run_result& r) const;
    std::string timeline_json() const { return m_ctx.spans().to_json(); }
    std::string resolved_config() const;
    // Writes stats.json, stats.csv, timeline.json and config.resolved.yaml into `dir`
    // atomically, and moves the VCD into place.
    void write_outputs(const std::string& dir, const run_result& r);
    // A few lines for a person: status, times, headline statistics (make_summary().text()).
    std::string summary(const run_result& r) const;
    // The summary as data, for text, one headline line or JSON (traces/run_summary.h).
    run_summary make_summary(const run_result& r) const;

    const platform_desc& desc() const { return m_desc; }
    ip_module* block(const std::string& path) const;
    const std::vector<ip_module*>& blocks() const { return m_blocks; }
    // Why running this platform would do nothing (no blocks; no driver; no driver with work
    // (ip_module::has_work), e.g. a template-only file or a workload that gives no ops), or empty.
    // The command line makes it an input error naming the file (issue 28: no silent nothing).
    // Returns the config key to blame ("components", "workload") and why.
    std::pair<std::string, std::string> nothing_to_do() const;
    // Things about the platform worth a line in the summary that do not stop it (binder.h).
    const std::vector<std::string>& warnings() const { return m_warnings; }

private:
    class controller;
    class group;
    struct tree_node;
    void build(const tree_node& node);
    void run_in_slices(std::uint64_t max_ps, const run_progress_hook& hook);
    void hand_out_workload();
    stats_report report(const run_result& r) const;
    static void blank_vcd_date(const std::string& path);
    static void restore_vcd_scopes(const std::string& path);
    template <typename F>
    void visit_stats(F&& f) const;

    platform_desc m_desc;
    const registry& m_registry;
    sim_context m_ctx;
    std::vector<std::unique_ptr<sc_core::sc_module>> m_owned;  // groups and blocks
    std::vector<ip_module*> m_blocks;                          // in config order
    std::map<std::string, ip_module*> m_by_path;
    std::unique_ptr<controller> m_controller;
    int m_iterations = 1;
    std::vector<drivers::run_measure> m_measures;  // the workload sections' (hand_out_workload)
    sc_core::sc_trace_file* m_vcd = nullptr;
    std::string m_vcd_base;
    std::unique_ptr<vcd_limits> m_vcd_limits;
    std::size_t m_traced = 0;
    // Busy time of every busy flag (declared signals fed by busy()) over simulated time, for
    // the per-phase bottlenecks; empty above k_max_accounted flags.
    struct busy_account {
        const ip_module* block;
        std::string signal;
        std::unique_ptr<busy_histogram> busy;
    };
    static constexpr std::size_t k_max_accounted = 2048;
    std::vector<busy_account> m_busy;
    // Queue depths (levels) for the timeline's counter tracks.
    struct level_account {
        const ip_module* block;
        std::string signal;
        std::unique_ptr<level_series> levels;
    };
    std::vector<level_account> m_levels;
    void account_busy();
    // The end-of-run audit's checks over every block's statistics: each utilisation in [0, 1].
    void audit_fractions(audit_log& log) const;
    // The timeline's counter tracks: link utilisation (busy flags of link blocks) and queue
    // depths (levels), after the run.
    void add_counter_tracks(std::uint64_t end_ps);
    std::vector<std::string> phase_bottlenecks(const std::vector<workloads::host_run>& runs,
                                               std::uint64_t end_ps) const;
    std::vector<std::string> m_warnings;
};

// SystemC name of a config path segment: node[2] -> node_2.
std::string sc_name_of(const std::string& segment);

}  // namespace trainvp
