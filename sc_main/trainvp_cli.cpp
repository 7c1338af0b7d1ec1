#include "sc_main/trainvp_cli.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include <systemc>

#include "core/did_you_mean.h"
#include "ip/codecs/codec_registry.h"
#include "kit/registry.h"
#include "kit/version.h"
#include "platform/platform_loader.h"
#include "platform/plugin_loader.h"
#include "platform/simulation.h"
#include "sc_main/run_progress.h"
#include "sc_main/sweep_plan.h"
#include "sc_main/sweep_runner.h"
#include "sc_main/sweep_spec.h"
#include "sc_main/sweep_table.h"
#include "traces/atomic_file.h"
#include "workloads/collectives/collective_registry.h"
#include "workloads/drivers/section_registry.h"

namespace trainvp {

namespace fs = std::filesystem;

namespace {

constexpr int k_ok = 0;
constexpr int k_sim_error = 1;
constexpr int k_bad_input = 2;

const char* k_usage =
    "usage: trainvp <command> [options]\n"
    "\n"
    "commands:\n"
    "  run CONFIG.yaml [--set KEY=VALUE ...] [--out DIR] [--vcd] [--seed N] [--quiet] [--force]\n"
    "                  [--plugin LIB.so ...]\n"
    "        simulate; writes stats.json, stats.csv, timeline.json, config.resolved.yaml\n"
    "        (and waves.vcd with --vcd) into DIR (default out/<config name>); --force\n"
    "        overwrites the results of an earlier run there\n"
    "  check CONFIG.yaml [--set KEY=VALUE ...] [--plugin LIB.so ...]\n"
    "        load, build and bind the platform without simulating\n"
    "  sweep SWEEP.yaml [--jobs N] [--out DIR] [--force] [--emit-jobs FILE]\n"
    "        run every point of a grid of --set edits as its own process (N at once, default\n"
    "        the core count); each point's outputs in DIR/<point>, one row per point in\n"
    "        DIR/sweep.csv (default DIR out/<sweep name>); a rerun skips finished points,\n"
    "        --force runs them again; --emit-jobs writes the points as shell commands (GNU\n"
    "        parallel, a Slurm array) instead of running them\n"
    "  sweep --merge DIR\n"
    "        build DIR/sweep.csv from the point folders of a sweep run elsewhere\n"
    "  describe [TYPE] [--markdown] [--plugin LIB.so ...]\n"
    "        list IP types and workload sections, or one type's params, sockets,\n"
    "        statistics and signals (`describe simulation` lists the simulation: settings,\n"
    "        `describe workload.NAME` a workload section's keys, `describe collectives`\n"
    "        and `describe codecs` the registered collective algorithms and codecs)\n"
    "\n"
    "  --set KEY=VALUE   SECTION.KEY=VALUE edits the config (simulation.seed=3);\n"
    "                    BLOCK.PARAM=VALUE sets a block's param (node[*].mem.latency=90ns)\n"
    "  --plugin LIB.so   load IP types from a plugin library (docs/adding-ip.md), as a\n"
    "                    config's `plugins:` list does\n"
    "  --version, --help\n"
    "\n"
    "exit codes: 0 ok, 1 simulation error (stall, failed invariant, output error), 2 bad input\n";

std::string pad(const std::string& s, std::size_t w) {
    return s.size() >= w ? s + "  " : s + std::string(w - s.size(), ' ');
}

std::string md_cell(std::string s) {
    std::string out;
    for (char c : s) {
        if (c == '|')
            out += "\\|";
        else
            out += c;
    }
    return out;
}

std::string default_of(const param_decl& p) {
    if (p.kind == param_kind::GROUP || p.kind == param_kind::GROUP_LIST) return "-";
    return p.required ? "(required)" : (p.default_text.empty() ? "\"\"" : p.default_text);
}

// A workload section's key without a default is absent unless given (not an empty string).
std::string section_default_of(const param_decl& p) {
    return p.required ? "(required)" : (p.default_text.empty() ? "(not set)" : p.default_text);
}

// "workload.training" -> the section registered as "training", or null.
const drivers::section_info* section_named(const std::string& name) {
    const std::string prefix = "workload.";
    if (name.compare(0, prefix.size(), prefix) != 0) return nullptr;
    return drivers::section_registry::global().find(name.substr(prefix.size()));
}

// The params of a declaration list with the keys of each sub-map after it, named by their
// path in the map (`router.vcs`, `bypass.segments[].dim`), so that each key is documented.
void flatten_params(const std::vector<param_decl>& ps, const std::string& prefix,
                    std::vector<std::pair<std::string, const param_decl*>>& out) {
    for (const auto& p : ps) {
        out.emplace_back(prefix + p.name, &p);
        if (p.kind == param_kind::GROUP) flatten_params(p.fields, prefix + p.name + ".", out);
        if (p.kind == param_kind::GROUP_LIST) {
            flatten_params(p.fields, prefix + p.name + "[].", out);
        }
    }
}

std::vector<std::pair<std::string, const param_decl*>> flat_params(
    const std::vector<param_decl>& ps) {
    std::vector<std::pair<std::string, const param_decl*>> out;
    flatten_params(ps, "", out);
    return out;
}

const char* stat_kind_name(stat_kind k) {
    switch (k) {
        case stat_kind::COUNTER:
            return "counter";
        case stat_kind::SCALAR:
            return "scalar";
        case stat_kind::DISTRIBUTION:
            return "distribution";
    }
    return "?";
}

// `describe collectives` / `describe codecs` (detail = true), or both lists' one-line entries
// for the overview: the name registries next to the IP types.
std::string describe_registries(const std::string& which, bool detail) {
    std::ostringstream os;
    auto origin = [](const std::string& o) { return o == "built in" ? "" : " (" + o + ")"; };
    if (which != "codecs") {
        const auto& reg = collectives::collective_registry::global();
        os << (detail ? "" : "\n")
           << "collectives (a schedule each; `algorithm:` of workload.training, `collective:` "
              "of noc.interposer; trainvp describe collectives):\n";
        for (std::size_t i = 0; i < reg.size(); ++i) {
            const auto& c = reg.at(i);
            if (!detail) {
                os << "  " << pad(c.name, 24) << c.description.substr(0, c.description.find(": "))
                   << origin(reg.origin(c.name)) << "\n";
                continue;
            }
            std::string fabrics;
            for (auto f : c.fabrics) {
                fabrics += (fabrics.empty() ? "" : ", ") + std::string(collectives::fabric_name(f));
            }
            os << "\n  " << c.name << origin(reg.origin(c.name)) << "\n    " << c.description
               << "\n    needs:   " << collectives::describe_needs(c.needs)
               << "\n    fabrics: " << (fabrics.empty() ? "none yet (schedule only)" : fabrics)
               << "\n";
        }
    }
    if (which != "collectives") {
        const auto& reg = codecs::codec_registry::global();
        os << (detail && which == "codecs" ? "" : "\n")
           << "codecs (gradient formats; trainvp describe codecs):\n";
        for (std::size_t i = 0; i < reg.size(); ++i) {
            const auto& c = reg.at(i);
            if (!detail) {
                os << "  " << pad(c.name, 24) << c.description.substr(0, c.description.find(": "))
                   << origin(reg.origin(c.name)) << "\n";
                continue;
            }
            os << "\n  " << c.name << origin(reg.origin(c.name)) << "\n    " << c.description
               << "\n";
            for (const auto& p : c.params) {
                std::ostringstream range;
                range << "default " << p.default_value << ", range [" << p.min << ", " << p.max
                      << "]" << (p.integer ? ", integer" : "");
                os << "    " << pad(p.name, 22) << pad(range.str(), 36) << p.description << "\n";
            }
        }
    }
    return os.str();
}

}  // namespace

void trainvp_cli::usage() const { m_out << k_usage; }

int trainvp_cli::main(const std::vector<std::string>& args) {
    for (const auto& e : m_registry.deferred_errors()) {
        m_err << "trainvp: error: " << e << "\n";
    }
    if (!m_registry.deferred_errors().empty()) return k_bad_input;
    if (args.empty()) {
        m_err << k_usage;
        return k_bad_input;
    }
    const std::string& cmd = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        usage();
        return k_ok;
    }
    if (cmd == "--version") {
        m_out << "trainvp " << TRAINVP_VERSION << " (SystemC " << sc_core::sc_version_string
              << ")\n";
        return k_ok;
    }
    try {
        if (cmd == "run") return cmd_run(rest, false);
        if (cmd == "check") return cmd_run(rest, true);
        if (cmd == "describe") return cmd_describe(rest);
        if (cmd == "sweep") return cmd_sweep(rest);
    } catch (const input_error& e) {
        m_err << e.what() << "\n";
        return k_bad_input;
    } catch (const sim_error& e) {
        m_err << "trainvp: error: " << e.what() << "\n";
        return k_sim_error;
    } catch (const sc_core::sc_report& e) {
        m_err << "trainvp: error: " << e.what() << "\n";
        return k_sim_error;
    } catch (const std::exception& e) {
        m_err << "trainvp: internal error: " << e.what() << "\n";
        return k_sim_error;
    }
    m_err << "trainvp: error: unknown command '" << cmd << "'"
          << did_you_mean(cmd, {"run", "check", "sweep", "describe"}) << "\n"
          << k_usage;
    return k_bad_input;
}

int trainvp_cli::cmd_run(const std::vector<std::string>& args, bool check_only) {
    const source_loc cmdline{"command line", 0, 0};
    std::string config, out_dir;
    std::vector<std::string> sets, plugin_paths;
    bool vcd = false, quiet = false, force = false, json = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](const std::string& opt) -> std::string {
            if (i + 1 >= args.size()) throw input_error(cmdline, opt, "needs a value");
            return args[++i];
        };
        if (a == "--set") {
            sets.push_back(value(a));
        } else if (a.rfind("--set=", 0) == 0) {
            sets.push_back(a.substr(6));
        } else if (a == "--plugin") {
            plugin_paths.push_back(value(a));
        } else if (a == "--out" && !check_only) {
            out_dir = value(a);
        } else if (a == "--vcd" && !check_only) {
            vcd = true;
        } else if (a == "--quiet" && !check_only) {
            quiet = true;
        } else if (a == "--json" && !check_only) {
            json = true;
        } else if (a == "--force" && !check_only) {
            force = true;
        } else if (a == "--seed") {
            sets.push_back("simulation.seed=" + value(a));
        } else if (!a.empty() && a[0] == '-') {
            std::vector<std::string> opts{"--set", "--seed", "--plugin"};
            if (!check_only)
                opts.insert(opts.end(), {"--out", "--vcd", "--quiet", "--json", "--force"});
            throw input_error(cmdline, a, "unknown option" + did_you_mean(a, opts));
        } else if (config.empty()) {
            config = a;
        } else {
            throw input_error(cmdline, a, "only one config file may be given");
        }
    }
    if (config.empty()) throw input_error(cmdline, "", "no config file given");

    // Plugins first: the config's blocks may be of their types.
    plugin_loader plugins(m_registry);
    for (const auto& p : plugin_paths) plugins.load(p, cmdline, "--plugin");
    config_node doc = config_node::load_file(config);
    if (const config_node* listed = doc.find("plugins")) plugins.load_listed(*listed);
    platform_loader loader(m_registry);
    platform_desc desc = loader.load_document(std::move(doc), config, sets);
    desc.plugins = plugins.loaded();
    simulation sim(std::move(desc), m_registry);
    sim.elaborate();
    if (check_only) {
        m_out << config << ": ok (" << sim.blocks().size() << " blocks, "
              << sim.desc().connections.size() << " connections)\n";
        for (const auto& w : sim.warnings()) m_out << "warning: " << w << "\n";
        return k_ok;
    }

    if (out_dir.empty()) out_dir = (fs::path("out") / fs::path(config).stem()).string();
    // A previous run's results are not overwritten by accident.
    if (!force && fs::exists(fs::path(out_dir) / "stats.json")) {
        throw input_error(cmdline, "--out",
                          "'" + out_dir +
                              "' holds the results of an earlier run; give --force "
                              "to overwrite them or --out to write elsewhere");
    }
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec || !fs::is_directory(out_dir)) {
        throw sim_error("cannot create output folder '" + out_dir + "': " + ec.message());
    }
    if (vcd) sim.trace_to((fs::path(out_dir) / "waves.vcd.part").string());
    // On a terminal, a progress line while the run lasts (simulated results are the same).
    run_progress progress(m_out, static_cast<double>(sim.desc().settings.max_time.ps) * 1e-12);
    run_progress_hook hook;
    hook.fn = [&progress](const sc_core::sc_time& now, double wall_s) {
        progress.update(now.to_seconds(), wall_s);
    };
    run_result r = sim.run(!quiet && !json && run_progress::wanted() ? &hook : nullptr);
    progress.finish();
    sim.write_outputs(out_dir, r);
    const run_summary summary = sim.make_summary(r);
    if (json) {
        m_out << summary.json();
    } else if (quiet) {
        m_out << summary.headline();
    } else {
        m_out << "trainvp " << TRAINVP_VERSION << ": " << config << "\n" << summary.text();
        m_out << "outputs in " << out_dir << "/\n";
    }
    if (r.status == run_status::STALLED) {
        m_err << "trainvp: error: " << r.stall_report << "\n";
        return k_sim_error;
    }
    if (r.status == run_status::FAILED) {
        m_err << "trainvp: error: " << r.error << "\n";
        return k_sim_error;
    }
    return k_ok;
}

int trainvp_cli::cmd_sweep(const std::vector<std::string>& args) {
    const source_loc cmdline{"command line", 0, 0};
    std::string file, out_dir, jobs_file, merge_dir;
    unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
    bool force = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](const std::string& opt) -> std::string {
            if (i + 1 >= args.size()) throw input_error(cmdline, opt, "needs a value");
            return args[++i];
        };
        if (a == "--jobs" || a == "-j") {
            const std::string v = value(a);
            const bool digits =
                !v.empty() && v.size() < 6 && std::all_of(v.begin(), v.end(), [](char c) {
                    return std::isdigit(static_cast<unsigned char>(c));
                });
            if (!digits || std::stoul(v) == 0) {
                throw input_error(cmdline, a, "'" + v + "' is not a number of jobs (1 or more)");
            }
            jobs = static_cast<unsigned>(std::stoul(v));
        } else if (a == "--out") {
            out_dir = value(a);
        } else if (a == "--force") {
            force = true;
        } else if (a == "--emit-jobs") {
            jobs_file = value(a);
        } else if (a == "--merge") {
            merge_dir = value(a);
        } else if (!a.empty() && a[0] == '-') {
            throw input_error(cmdline, a,
                              "unknown option" + did_you_mean(a, {"--jobs", "--out", "--force",
                                                                  "--emit-jobs", "--merge"}));
        } else if (file.empty()) {
            file = a;
        } else {
            throw input_error(cmdline, a, "only one sweep file may be given");
        }
    }
    if (!merge_dir.empty()) {
        if (!file.empty() || !out_dir.empty() || !jobs_file.empty() || force) {
            throw input_error(cmdline, "--merge",
                              "takes only the sweep's output folder (trainvp sweep --merge DIR)");
        }
        return merge(merge_dir);
    }
    if (file.empty()) throw input_error(cmdline, "", "no sweep file given");

    const sweep_spec spec = sweep_spec::load(file, m_registry);
    if (out_dir.empty()) out_dir = (fs::path("out") / fs::path(file).stem()).string();
    const sweep_plan plan(spec, out_dir);
    const fs::path plan_file = fs::path(out_dir) / sweep_plan::k_plan_file;
    if (fs::exists(plan_file)) {
        std::ifstream in(plan_file, std::ios::binary);
        std::stringstream old;
        old << in.rdbuf();
        if (old.str() != plan.json() && !force) {
            throw input_error(cmdline, "--out",
                              "'" + out_dir +
                                  "' holds a different sweep (or its base config changed); give "
                                  "--force to start it over or --out to write elsewhere");
        }
        if (force) {
            // Only what the earlier sweep wrote goes: its point folders and its table.
            const sweep_plan earlier = sweep_plan::read(out_dir);
            for (const auto& p : earlier.points()) fs::remove_all(earlier.point_dir(p));
            fs::remove(fs::path(out_dir) / sweep_plan::k_table_file);
        }
    }
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec || !fs::is_directory(out_dir)) {
        throw sim_error("cannot create output folder '" + out_dir + "': " + ec.message());
    }
    write_file_atomically(plan_file.string(), plan.json());
    const std::string self = fs::read_symlink("/proc/self/exe").string();

    if (!jobs_file.empty()) {
        std::string text;
        for (const auto& p : plan.points()) text += plan.shell_command(p, self) + "\n";
        write_file_atomically(jobs_file, text);
        m_out << "sweep: " << plan.points().size() << " points written to " << jobs_file
              << " (one shell command each); run them, e.g. `parallel < " << jobs_file
              << "`, then `trainvp sweep --merge " << out_dir << "`\n";
        return k_ok;
    }

    const bool tty = isatty(STDOUT_FILENO) == 1;
    sweep_runner runner(plan, self, jobs, m_out, tty);
    const auto o = runner.run();
    if (o.skipped) {
        m_out << "sweep: " << o.skipped << " of " << plan.points().size()
              << " points had results already (resumed; --force runs them again)\n";
    }
    return merge(out_dir);
}

int trainvp_cli::merge(const std::string& dir) {
    const sweep_plan plan = sweep_plan::read(dir);
    const sweep_table table(plan, m_registry);
    const std::string csv = (fs::path(dir) / sweep_plan::k_table_file).string();
    write_file_atomically(csv, table.csv());
    m_out << "sweep: " << plan.points().size() << " points, " << table.finished() << " finished";
    if (table.failed()) m_out << ", " << table.failed() << " failed";
    if (table.missing()) m_out << ", " << table.missing() << " without a result";
    m_out << "; table in " << csv << "\n";
    return table.failed() + table.missing() == 0 ? k_ok : k_sim_error;
}

std::string trainvp_cli::describe_text(const std::string& name) const {
    std::ostringstream os;
    const std::vector<param_decl>* params = nullptr;
    const type_info* t = nullptr;
    auto default_text = default_of;
    if (name == "simulation") {
        os << "simulation: settings of a run (the `simulation:` section of a config)\n";
        params = &sim_settings::decls();
    } else if (const drivers::section_info* s = section_named(name)) {
        os << name << ": " << s->description << "\n";
        if (s->params.empty()) return os.str();
        params = &s->params;
        default_text = section_default_of;
    } else {
        t = m_registry.find(name);
        os << t->name << ": " << t->description << "\n";
        if (m_registry.origin(name) != "built in") os << "(" << m_registry.origin(name) << ")\n";
        params = &t->params;
    }
    os << "\nparams:\n";
    for (const auto& [key, decl] : flat_params(*params)) {
        const param_decl& p = *decl;
        os << "  " << pad(key, 16) << pad(p.unit_text(), 28) << pad(default_text(p), 12)
           << (p.range_text.empty() ? "" : "range " + p.range_text + "  ") << p.description << "\n";
    }
    if (t == nullptr) return os.str();
    os << "\nsockets:\n";
    for (const auto& p : t->ports) {
        os << "  " << pad(p.name + (p.is_array ? "[i]" : ""), 16)
           << pad(p.role == port_role::INITIATOR ? "initiator" : "target", 11) << pad(p.protocol, 8)
           << p.description << "\n";
    }
    os << "\nstatistics:\n";
    for (const auto& s : t->stats) {
        os << "  " << pad(s.name, 18) << pad(s.unit, 6) << pad(stat_kind_name(s.kind), 14)
           << s.description << "\n";
    }
    os << "\nsignals (VCD):\n";
    for (const auto& s : t->signals) os << "  " << pad(s.name, 16) << s.description << "\n";
    return os.str();
}

int trainvp_cli::cmd_describe(const std::vector<std::string>& args) {
    const source_loc cmdline{"command line", 0, 0};
    bool markdown = false;
    std::string type;
    plugin_loader plugins(m_registry);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--markdown") {
            markdown = true;
        } else if (a == "--plugin") {
            if (i + 1 >= args.size()) throw input_error(cmdline, a, "needs a value");
            plugins.load(args[++i], cmdline, "--plugin");
        } else if (!a.empty() && a[0] == '-') {
            throw input_error(cmdline, a,
                              "unknown option" + did_you_mean(a, {"--markdown", "--plugin"}));
        } else {
            type = a;
        }
    }
    if (markdown) {
        m_out << reference_markdown();
        return k_ok;
    }
    if (type == "collectives" || type == "codecs") {
        m_out << describe_registries(type, true);
        return k_ok;
    }
    if (type.empty()) {
        m_out << "IP types (trainvp describe TYPE for details; `simulation` for run settings):\n";
        for (const auto& [name, t] : m_registry.types()) {
            std::string first = t.description.substr(0, t.description.find(". "));
            const std::string origin = m_registry.origin(name);
            m_out << "  " << pad(name, 22) << first
                  << (origin == "built in" ? "" : " (" + origin + ")") << "\n";
        }
        m_out << describe_registries("", false);
        m_out << "\nWorkload sections (the keys of a config's `workload:`; trainvp describe "
                 "workload.NAME for details):\n";
        for (const auto& [name, s] : drivers::section_registry::global().sections()) {
            m_out << "  " << pad("workload." + name, 22)
                  << s.description.substr(0, s.description.find(". ")) << "\n";
        }
        return k_ok;
    }
    if (type != "simulation" && m_registry.find(type) == nullptr &&
        section_named(type) == nullptr) {
        auto names = m_registry.names();
        names.push_back("simulation");
        names.push_back("collectives");
        names.push_back("codecs");
        for (const std::string& s : drivers::section_registry::global().names()) {
            names.push_back("workload." + s);
        }
        throw input_error(source_loc{"command line", 0, 0}, type,
                          "unknown IP type" + did_you_mean(type, names) +
                              "; known types: " + join(m_registry.names(), ", "));
    }
    m_out << describe_text(type);
    return k_ok;
}

std::string trainvp_cli::reference_markdown() const {
    std::ostringstream os;
    os << "# IP reference\n\n"
       << "Generated by `trainvp describe --markdown` from the blocks' and the workload "
          "sections' own declarations; do not edit by hand (regenerate with "
          "`tools/gen_docs.sh`).\n\n";
    auto params_table = [&](const std::vector<param_decl>& ps,
                            std::string (*default_text)(const param_decl&)) {
        os << "| param | unit | default | range | description |\n|---|---|---|---|---|\n";
        for (const auto& [key, decl] : flat_params(ps)) {
            const param_decl& p = *decl;
            os << "| `" << key << "` | " << md_cell(p.unit_text()) << " | `"
               << md_cell(default_text(p)) << "` | " << md_cell(p.range_text) << " | "
               << md_cell(p.description) << " |\n";
        }
        os << "\n";
    };
    os << "## simulation\n\nSettings of a run (the `simulation:` section of a config).\n\n";
    params_table(sim_settings::decls(), default_of);
    // The workload sections: the keys of a config's `workload:` (workloads/drivers/).
    for (const auto& [name, s] : drivers::section_registry::global().sections()) {
        os << "## workload." << name << "\n\n" << s.description << "\n\n";
        if (!s.params.empty()) params_table(s.params, section_default_of);
    }
    for (const auto& [name, t] : m_registry.types()) {
        os << "## " << name << "\n\n" << t.description << "\n\n";
        if (!t.params.empty()) params_table(t.params, default_of);
        if (!t.ports.empty()) {
            os << "| socket | role | protocol | description |\n|---|---|---|---|\n";
            for (const auto& p : t.ports) {
                os << "| `" << p.name << (p.is_array ? "[i]" : "") << "` | "
                   << (p.role == port_role::INITIATOR ? "initiator" : "target") << " | "
                   << p.protocol << " | " << md_cell(p.description) << " |\n";
            }
            os << "\n";
        }
        if (!t.stats.empty()) {
            os << "| statistic | unit | kind | description |\n|---|---|---|---|\n";
            for (const auto& s : t.stats) {
                os << "| `" << s.name << "` | " << s.unit << " | " << stat_kind_name(s.kind)
                   << " | " << md_cell(s.description) << " |\n";
            }
            os << "\n";
        }
        if (!t.signals.empty()) {
            os << "| VCD signal | description |\n|---|---|\n";
            for (const auto& s : t.signals) {
                os << "| `" << s.name << "` | " << md_cell(s.description) << " |\n";
            }
            os << "\n";
        }
    }
    return os.str();
}

}  // namespace trainvp
