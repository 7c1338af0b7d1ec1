#include "sc_main/command_help.h"

#include <sstream>

namespace trainvp {

namespace {

const char* k_exit_codes =
    "exit codes: 0 ok, 1 simulation error (stall, failed invariant, output error), 2 bad input\n";

const char* k_set_option =
    "  --set KEY=VALUE   edit the config, repeatable: SECTION.KEY=VALUE (simulation.seed=3,\n"
    "                    workload.training.model=vgg16) or BLOCK.PARAM=VALUE\n"
    "                    (node[*].mem.latency=90ns, switch.overflow=drop)\n";
const char* k_help_option = "  -h, --help        this help\n";
const char* k_plugin_option =
    "  --plugin LIB.so   load IP types from a plugin library first (docs/adding-ip.md), as a\n"
    "                    config's `plugins:` list does; repeatable\n";

std::vector<command_help> make_commands() {
    std::vector<command_help> c;
    c.push_back(
        {"run",
         "run CONFIG.yaml [--set KEY=VALUE ...] [--out DIR] [--vcd] [--vcd-signals GLOBS] "
         "[--vcd-window FROM:TO] [--vcd-max-size SIZE] [--seed N] [--quiet | --json] [--report] "
         "[--force] [--plugin LIB.so ...]",
         "simulate a platform and print its summary",
         std::string(
             "Simulates the platform CONFIG.yaml describes and prints a summary: status, the\n"
             "iteration time and its critical-path breakdown, bottlenecks and warnings, then the\n"
             "headline statistics grouped by block type (identical per-node lines folded).\n"
             "Writes stats.json, stats.csv, timeline.json (ui.perfetto.dev) and\n"
             "config.resolved.yaml (run it to reproduce the run) into DIR.\n"
             "\n"
             "options:\n") +
             k_set_option +
             "  --out DIR         output folder (default out/<config name>)\n"
             "  --vcd             also write waves.vcd (link busy, queue depths, engine busy;\n"
             "                    GTKWave; scopes are the config's paths, node[0].nic)\n"
             "  --vcd-signals GLOBS  only these signals (implies --vcd): comma-separated globs\n"
             "                    over names like node[0].nic.tx_busy; * matches anything,\n"
             "                    brackets are literal ('node[0].*', '*.tx_queue'); repeatable\n"
             "  --vcd-window FROM:TO  only value changes in this simulated time (implies --vcd):\n"
             "                    0:10us, 5us: (to the end)\n"
             "  --vcd-max-size SIZE  stop tracing, with a warning, once waves.vcd reaches SIZE\n"
             "                    (default 256MB)\n"
             "  --seed N          the same as --set simulation.seed=N\n"
             "  --quiet           print only the headline (finished: iteration time 630.9 ms)\n"
             "  --json            print the summary as JSON on stdout, nothing else\n"
             "  --report          also write report.html (see trainvp report)\n"
             "  --force           overwrite the results of an earlier run in DIR\n" +
             k_plugin_option + k_help_option +
             "\n"
             "examples:\n"
             "  trainvp run configs/papers/inceptionn/inc_c_alexnet.yaml\n"
             "  trainvp run configs/examples/two_nodes.yaml --vcd --out /tmp/two\n"
             "  trainvp run configs/examples/two_nodes.yaml --vcd-signals 'node[0].*' "
             "--vcd-window 0:10us --out /tmp/two\n"
             "  trainvp run configs/papers/inceptionn/inc_c_alexnet.yaml --set "
             "node[*].nic.error_bound=2^-6\n",
         {"--set", "--out", "--vcd", "--vcd-signals", "--vcd-window", "--vcd-max-size", "--seed",
          "--quiet", "--json", "--report", "--force", "--plugin"}});
    c.push_back({"check",
                 "check CONFIG.yaml [--set KEY=VALUE ...] [--plugin LIB.so ...]",
                 "validate a config without simulating",
                 std::string("Loads, builds and binds the platform without simulating; prints\n"
                             "`CONFIG: ok (N blocks, M connections)` and any warnings (a NIC\n"
                             "faster than its PCIe slot).\n"
                             "\n"
                             "options:\n") +
                     k_set_option + k_plugin_option + k_help_option,
                 {"--set", "--seed", "--plugin"}});
    c.push_back(
        {"sweep",
         "sweep SWEEP.yaml [--jobs N] [--out DIR] [--force] [--emit-jobs FILE] | sweep --merge "
         "DIR",
         "run a grid of --set edits, one process per point",
         "Runs every point of a sweep file's grid (docs/user-guide.md, Sweeps) as its own\n"
         "process, N at once; each point's outputs in DIR/<point>, one row per point in\n"
         "DIR/sweep.csv (default DIR out/<sweep name>).  A rerun skips finished points.\n"
         "On a terminal a progress bar shows points done, the rate and the ETA.  `trainvp\n"
         "report DIR` writes DIR/report.html: the table and a line plot of a chosen column.\n"
         "\n"
         "options:\n"
         "  --jobs N, -j N    points at once (default: the core count)\n"
         "  --out DIR         output folder of the sweep\n"
         "  --force           run finished points again (or start over a different sweep)\n"
         "  --emit-jobs FILE  write the points as shell commands (GNU parallel, a Slurm array)\n"
         "                    instead of running them\n"
         "  --merge DIR       build DIR/sweep.csv from the point folders of a sweep run\n"
         "                    elsewhere\n"
         "  -h, --help        this help\n"
         "\n"
         "example:\n"
         "  trainvp sweep configs/sweeps/ring_scaling.yaml --jobs 2\n",
         {"--jobs", "--out", "--force", "--emit-jobs", "--merge"}});
    c.push_back(
        {"describe",
         "describe [TYPE] [--markdown] [--names] [--plugin LIB.so ...]",
         "list IP types, workload sections, the model zoo; one type's details",
         std::string(
             "Without TYPE: the IP types, collectives, codecs, workload sections and the zoo,\n"
             "one line each.  With TYPE: its params (unit, default, range), sockets,\n"
             "statistics and VCD signals.  TYPE may be an IP type (nic.inceptionn), a unique\n"
             "prefix of one (nic.inc), `simulation` (run settings), `workload` (every\n"
             "workload section) or workload.NAME, `collectives`, `codecs`, `zoo` (the models)\n"
             "or zoo.MODEL (its layers and parameters; zoo.PATH for a model file anywhere,\n"
             "e.g. one tools/import_torch_model.py wrote; --markdown: exact counts).\n"
             "\n"
             "options:\n"
             "  --markdown        as Markdown (docs/ip-reference.md is every type's)\n"
             "  --names           every name describe takes, one a line (for completion)\n") +
             k_plugin_option + k_help_option +
             "\n"
             "examples:\n"
             "  trainvp describe nic.inceptionn\n"
             "  trainvp describe zoo.alexnet\n",
         {"--markdown", "--names", "--plugin"}});
    c.push_back({"diff",
                 "diff OUT_A OUT_B [--threshold PERCENT] [--all]",
                 "compare two runs' statistics",
                 "Compares the stats.json of two run folders: the headline statistics (iteration\n"
                 "time and breakdown, simulated time, each block type's headline stats), then\n"
                 "every statistic whose values differ by more than the threshold, with both\n"
                 "values and the ratio B / A.\n"
                 "\n"
                 "options:\n"
                 "  --threshold PERCENT  smallest relative difference listed (default 1)\n"
                 "  --all                list every differing statistic (no limit of 40 lines)\n"
                 "  -h, --help           this help\n"
                 "\n"
                 "example:\n"
                 "  trainvp run configs/papers/inceptionn/inc_alexnet.yaml --out out/inc\n"
                 "  trainvp run configs/papers/inceptionn/inc_c_alexnet.yaml --out out/inc_c\n"
                 "  trainvp diff out/inc out/inc_c\n",
                 {"--threshold", "--all"}});
    c.push_back({"report",
                 "report OUT_DIR",
                 "write a run's or a sweep's self-contained report.html",
                 "Writes OUT_DIR/report.html from a run's outputs: one self-contained page (no\n"
                 "network: styles and script inline, charts as inline SVG) with the run's status\n"
                 "and config, the iteration breakdown as a stacked bar, every host's ops as a\n"
                 "Gantt chart, per-block utilisation as a sortable table with bars, the\n"
                 "cluster's node x utilisation heatmap, a NoC's routers and links coloured by\n"
                 "utilisation (bypass links drawn as arcs), the audit and every statistic.\n"
                 "`trainvp run --report` writes it with the other outputs.  For a sweep's output\n"
                 "folder (sweep.csv): the sweep table and a line plot of a chosen column.\n"
                 "\n"
                 "options:\n"
                 "  -h, --help        this help\n"
                 "\n"
                 "example:\n"
                 "  trainvp report out/inc_alexnet\n"
                 "  trainvp report out/ring_scaling\n",
                 {}});
    c.push_back({"help",
                 "help [COMMAND]",
                 "this overview, or one command's help",
                 "Prints the overview of the commands, or COMMAND's options and examples (the\n"
                 "same as `trainvp COMMAND --help`).\n",
                 {}});
    return c;
}

}  // namespace

const std::vector<command_help>& command_help::all() {
    static const std::vector<command_help> k_all = make_commands();
    return k_all;
}

const command_help* command_help::find(const std::string& name) {
    for (const auto& c : all()) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

std::vector<std::string> command_help::names() {
    std::vector<std::string> out;
    for (const auto& c : all()) out.push_back(c.name);
    return out;
}

std::string command_help::overview() {
    std::ostringstream os;
    os << "usage: trainvp <command> [options]\n\ncommands:\n";
    for (const auto& c : all()) {
        os << "  " << c.name << std::string(c.name.size() < 10 ? 10 - c.name.size() : 1, ' ')
           << c.summary << "\n";
    }
    os << "\n`trainvp help COMMAND` or `trainvp COMMAND --help` shows a command's options.\n"
       << "  --version, --help\n\n"
       << k_exit_codes;
    return os.str();
}

std::string command_help::text() const {
    return "usage: trainvp " + synopsis + "\n\n" + details + "\n" + k_exit_codes;
}

}  // namespace trainvp
