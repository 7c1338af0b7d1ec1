// What a sweep runs: its points with their --set edits, the base config and the output folder.
// Written as DIR/sweep.json before any point runs, so that a rerun can resume (same plan) and
// `trainvp sweep --merge DIR` can build sweep.csv from the points' folders wherever they ran.
#pragma once

#include <string>
#include <vector>

#include "sc_main/sweep_spec.h"

namespace trainvp {

class sweep_plan {
public:
    sweep_plan() = default;
    // `dir` is the sweep's output folder; paths are made absolute so that the commands run
    // from any folder (GNU parallel, a Slurm job on another machine with the same file system).
    sweep_plan(const sweep_spec& spec, const std::string& dir);

    // DIR/sweep.json; throws input_error when it is missing or unreadable.
    static sweep_plan read(const std::string& dir);
    std::string json() const;

    const std::string& dir() const { return m_dir; }
    const std::vector<std::string>& paths() const { return m_paths; }
    const std::vector<sweep_point>& points() const { return m_points; }

    std::string point_dir(const sweep_point& p) const;
    // `trainvp run` of one point: argv of the process the local runner starts.
    std::vector<std::string> run_argv(const sweep_point& p, const std::string& binary) const;
    // The same as one shell command that starts from an empty point folder and records the
    // point's stderr (run.err) and exit code (exit_code, written last), exactly as the local
    // runner does.
    std::string shell_command(const sweep_point& p, const std::string& binary) const;

    // A point has a result when its exit_code file says 0, 1 or 2 (ok, simulation error, bad
    // input: rerunning gives the same); a crash or a kill is run again.
    bool has_result(const sweep_point& p) const;

    // Names of the files in a point's folder written by the sweep (besides the run's outputs).
    static constexpr const char* k_exit_file = "exit_code";
    static constexpr const char* k_err_file = "run.err";
    static constexpr const char* k_plan_file = "sweep.json";
    static constexpr const char* k_table_file = "sweep.csv";

private:
    std::string m_sweep, m_base, m_dir, m_description;
    std::vector<std::string> m_paths;
    std::vector<sweep_point> m_points;
};

// Quotes a word for a POSIX shell when it needs it.
std::string shell_quote(const std::string& word);

// The exit code recorded in a point folder, or -1 when there is none.
int read_exit_code(const std::string& point_dir);

}  // namespace trainvp
