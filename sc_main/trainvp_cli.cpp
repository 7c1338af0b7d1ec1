#include "sc_main/trainvp_cli.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include <systemc>

#include "core/did_you_mean.h"
#include "core/units.h"
#include "ip/codecs/codec_registry.h"
#include "kit/registry.h"
#include "kit/run_interrupt.h"
#include "kit/version.h"
#include "platform/platform_loader.h"
#include "platform/plugin_loader.h"
#include "platform/simulation.h"
#include "sc_main/command_help.h"
#include "sc_main/run_diff.h"
#include "sc_main/run_progress.h"
#include "sc_main/run_report.h"
#include "sc_main/sweep_plan.h"
#include "sc_main/sweep_report.h"
#include "sc_main/sweep_runner.h"
#include "sc_main/sweep_spec.h"
#include "sc_main/sweep_table.h"
#include "traces/atomic_file.h"
#include "workloads/collectives/collective_registry.h"
#include "workloads/drivers/section_registry.h"
#include "workloads/models/model_loader.h"

namespace trainvp {

namespace fs = std::filesystem;

namespace {

constexpr int k_ok = 0;
constexpr int k_sim_error = 1;
constexpr int k_bad_input = 2;

std::string pad(const std::string& s, std::size_t w) {
    return s.size() >= w ? s + "  " : s + std::string(w - s.size(), ' ');
}

// The first sentence of a description, for one-line lists: up to the first ". " that does not
// end an abbreviation ("e.g. the") or precede a number ("Fig. 8", "§ 3. 2").
std::string first_sentence(const std::string& text) {
    static const std::vector<std::string> k_abbreviations = {
        "Fig", "Figs", "Eq",  "Eqs", "Sec", "Ref",    "Refs", "Tab", "No",  "vs",
        "cf",  "e.g",  "i.e", "etc", "al",  "approx", "resp", "Alg", "Def", "ca"};
    std::size_t from = 0;
    while (true) {
        const std::size_t dot = text.find(". ", from);
        if (dot == std::string::npos) return text;
        std::size_t w = dot;
        while (w > 0 && text[w - 1] != ' ' && text[w - 1] != '(') --w;
        const std::string word = text.substr(w, dot - w);
        const char next = dot + 2 < text.size() ? text[dot + 2] : '\0';
        const bool number = next >= '0' && next <= '9';
        if (!number && std::find(k_abbreviations.begin(), k_abbreviations.end(), word) ==
                           k_abbreviations.end()) {
            return text.substr(0, dot);
        }
        from = dot + 2;
    }
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
                os << "  " << pad(c.name, 24)
                   << first_sentence(c.description.substr(0, c.description.find(": ")))
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
                os << "  " << pad(c.name, 24)
                   << first_sentence(c.description.substr(0, c.description.find(": ")))
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

void trainvp_cli::usage() const { m_out << command_help::overview(); }

namespace {

bool is_help(const std::string& a) { return a == "--help" || a == "-h"; }

}  // namespace

int trainvp_cli::main(const std::vector<std::string>& args) {
    for (const auto& e : m_registry.deferred_errors()) {
        m_err << "trainvp: error: " << e << "\n";
    }
    if (!m_registry.deferred_errors().empty()) return k_bad_input;
    if (args.empty()) {
        m_err << command_help::overview();
        return k_bad_input;
    }
    const std::string& cmd = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (is_help(cmd) || (cmd == "help" && rest.empty())) {
        usage();
        return k_ok;
    }
    if (cmd == "help") {
        if (const command_help* h = command_help::find(is_help(rest[0]) ? "help" : rest[0])) {
            m_out << h->text();
            return k_ok;
        }
        m_err << "command line: error: help: unknown command '" << rest[0] << "'"
              << did_you_mean(rest[0], command_help::names()) << "\n";
        return k_bad_input;
    }
    // `trainvp COMMAND --help` anywhere among its arguments.
    if (const command_help* h = command_help::find(cmd)) {
        if (std::any_of(rest.begin(), rest.end(), is_help)) {
            m_out << h->text();
            return k_ok;
        }
    }
    if (cmd == "--version") {
        m_out << "trainvp " << TRAINVP_VERSION << " (SystemC " << sc_core::sc_version_string
              << ")\n";
        return k_ok;
    }
    try {
        using handler = int (trainvp_cli::*)(const std::vector<std::string>&);
        static const std::map<std::string, handler> k_handlers = {
            {"run", &trainvp_cli::cmd_run},           {"check", &trainvp_cli::cmd_check},
            {"describe", &trainvp_cli::cmd_describe}, {"sweep", &trainvp_cli::cmd_sweep},
            {"diff", &trainvp_cli::cmd_diff},         {"report", &trainvp_cli::cmd_report},
        };
        auto it = k_handlers.find(cmd);
        if (it != k_handlers.end()) return (this->*(it->second))(rest);
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
          << did_you_mean(cmd, command_help::names()) << "\n"
          << command_help::overview();
    return k_bad_input;
}

namespace {
// The command's platform is left standing when the command returns: the process ends right
// after, and SystemC takes modules and processes out of its lists one at a time by linear
// search, O(blocks^2): ~2 s of a 4096-endpoint run's exit, more than its output.  The pointer
// is held in a static so that LeakSanitizer sees it reachable.
simulation& keep_until_exit(std::unique_ptr<simulation> sim) {
    static std::vector<simulation*> kept;
    kept.push_back(sim.release());
    return *kept.back();
}
}  // namespace

int trainvp_cli::cmd_run(const std::vector<std::string>& args) { return run_or_check(args, false); }

int trainvp_cli::cmd_check(const std::vector<std::string>& args) {
    return run_or_check(args, true);
}

int trainvp_cli::cmd_report(const std::vector<std::string>& args) {
    const source_loc cmdline{"command line", 0, 0};
    std::string dir;
    for (const auto& a : args) {
        if (!a.empty() && a[0] == '-') throw input_error(cmdline, a, "unknown option");
        if (!dir.empty()) throw input_error(cmdline, a, "only one run folder may be given");
        dir = a;
    }
    if (dir.empty()) throw input_error(cmdline, "report", "needs a run's output folder");
    const std::string file = write_report(dir);
    m_out << "report: " << file << "\n";
    return k_ok;
}

std::string trainvp_cli::write_report(const std::string& dir) {
    const std::string file = (fs::path(dir) / "report.html").string();
    if (sweep_report::is_sweep(dir)) {
        write_file_atomically(file, sweep_report(dir).html());
    } else {
        write_file_atomically(file, run_report(dir).html());
    }
    return file;
}

int trainvp_cli::cmd_diff(const std::vector<std::string>& args) {
    const source_loc cmdline{"command line", 0, 0};
    std::vector<std::string> dirs;
    double threshold = 0.01;
    bool all = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--threshold") {
            if (i + 1 >= args.size()) throw input_error(cmdline, a, "needs a value");
            const std::string v = args[++i];
            char* end = nullptr;
            const double pct = std::strtod(v.c_str(), &end);
            if (v.empty() || end == nullptr || *end != '\0' || !(pct >= 0.0) || pct > 1e6) {
                throw input_error(cmdline, a,
                                  "'" + v + "' is not a percentage (a number >= 0, e.g. 5)");
            }
            threshold = pct / 100.0;
        } else if (a == "--all") {
            all = true;
        } else if (!a.empty() && a[0] == '-') {
            throw input_error(cmdline, a,
                              "unknown option" + did_you_mean(a, {"--threshold", "--all"}));
        } else {
            dirs.push_back(a);
        }
    }
    if (dirs.size() != 2) {
        throw input_error(cmdline, "diff",
                          "needs two run output folders (trainvp diff OUT_A OUT_B), got " +
                              std::to_string(dirs.size()));
    }
    const run_diff d(dirs[0], dirs[1], m_registry);
    m_out << d.text(threshold, all ? 0 : 40);
    return k_ok;
}

// `--vcd-window FROM:TO`: times with units ("0:10us", "5us:", ":2ms"); an empty end is open.
void trainvp_cli::parse_vcd_window(const std::string& opt, const std::string& v, vcd_options& out) {
    const source_loc cmdline{"command line", 0, 0};
    const std::size_t colon = v.find(':');
    if (colon == std::string::npos) {
        throw input_error(cmdline, opt, "'" + v + "' is not FROM:TO (e.g. 0:10us, 5us:)");
    }
    auto time_of = [&](const std::string& t, std::uint64_t empty) -> std::uint64_t {
        if (t.empty()) return empty;
        if (t == "0") return 0;
        std::string why;
        const auto q = units::parse(t, units::family::TIME, why);
        if (!q || q->value < 0) throw input_error(cmdline, opt, "'" + t + "': " + why);
        return units::round_ps(q->value * 1e12);
    };
    out.from_ps = time_of(v.substr(0, colon), 0);
    out.to_ps = time_of(v.substr(colon + 1), UINT64_MAX);
    if (out.to_ps <= out.from_ps) {
        throw input_error(cmdline, opt, "'" + v + "': the window ends before it starts");
    }
}

int trainvp_cli::run_or_check(const std::vector<std::string>& args, bool check_only) {
    const source_loc cmdline{"command line", 0, 0};
    std::string config, out_dir;
    std::vector<std::string> sets, plugin_paths;
    bool vcd = false, quiet = false, force = false, json = false, report = false;
    vcd_options vcd_opt;
    vcd_opt.max_bytes = k_vcd_max_bytes;
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
        } else if (a == "--vcd-signals" && !check_only) {
            vcd_opt.signals.push_back(value(a));
            vcd = true;
        } else if (a == "--vcd-window" && !check_only) {
            parse_vcd_window(a, value(a), vcd_opt);
            vcd = true;
        } else if (a == "--vcd-max-size" && !check_only) {
            const std::string v = value(a);
            std::string why;
            const auto q = units::parse(v, units::family::SIZE, why);
            if (!q || q->value < 1) throw input_error(cmdline, a, "'" + v + "': " + why);
            vcd_opt.max_bytes = static_cast<std::uint64_t>(q->value);
            vcd = true;
        } else if (a == "--quiet" && !check_only) {
            quiet = true;
        } else if (a == "--json" && !check_only) {
            json = true;
        } else if (a == "--report" && !check_only) {
            report = true;
        } else if (a == "--force" && !check_only) {
            force = true;
        } else if (a == "--seed") {
            sets.push_back("simulation.seed=" + value(a));
        } else if (!a.empty() && a[0] == '-') {
            std::vector<std::string> opts{"--set", "--seed", "--plugin"};
            if (!check_only)
                opts.insert(opts.end(),
                            {"--out", "--vcd", "--vcd-signals", "--vcd-window", "--vcd-max-size",
                             "--quiet", "--json", "--report", "--force"});
            throw input_error(cmdline, a, "unknown option" + did_you_mean(a, opts));
        } else if (config.empty()) {
            config = a;
        } else {
            throw input_error(cmdline, a, "only one config file may be given");
        }
    }
    if (config.empty()) throw input_error(cmdline, "", "no config file given");
    // From here on SIGINT / SIGTERM stop a run cleanly: the run ends at once with status
    // interrupted (even one signalled while the platform was being built), exit 128 + sig.
    if (!check_only) run_interrupt::install();

    // Plugins first: the config's blocks may be of their types.
    plugin_loader plugins(m_registry);
    for (const auto& p : plugin_paths) plugins.load(p, cmdline, "--plugin");
    config_node doc = config_node::load_file(config);
    if (const config_node* listed = doc.find("plugins")) plugins.load_listed(*listed);
    platform_loader loader(m_registry);
    platform_desc desc = loader.load_document(std::move(doc), config, sets);
    desc.plugins = plugins.loaded();
    // Kept until the process exits, never torn down (keep_until_exit).
    simulation& sim = keep_until_exit(std::make_unique<simulation>(std::move(desc), m_registry));
    sim.elaborate();
    const auto [idle_key, idle] = sim.nothing_to_do();
    if (!idle.empty()) throw input_error(source_loc{config, 0, 0}, idle_key, idle);
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
    // An earlier run's files that this run may not write again go (none is left beside this
    // run's stats.json as if it were this run's; write_outputs replaces the others), and so do
    // the temporaries of a run killed while writing (*.tmp.PID, waves.vcd.part.vcd).  stats.json
    // first: it marks a complete set, and this one no longer is.
    fs::remove(fs::path(out_dir) / "stats.json", ec);
    if (ec) throw sim_error("cannot write '" + out_dir + "/stats.json': " + ec.message());
    for (const auto& e : fs::directory_iterator(out_dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name == "report.html" || name == "waves.vcd" || name == "waves.vcd.part.vcd" ||
            name.find(".tmp.") != std::string::npos) {
            fs::remove(e.path(), ec);
        }
    }
    if (vcd) sim.trace_to((fs::path(out_dir) / "waves.vcd.part").string(), vcd_opt);
    // On a terminal, a progress line while the run lasts (simulated results are the same).
    run_progress progress(m_out, static_cast<double>(sim.desc().settings.max_time.ps) * 1e-12);
    run_progress_hook hook;
    hook.fn = [&progress](const sc_core::sc_time& now, double wall_s) {
        progress.update(now.to_seconds(), wall_s);
    };
    run_result r = sim.run(!quiet && !json && run_progress::wanted() ? &hook : nullptr);
    progress.finish();
    sim.write_outputs(out_dir, r);
    if (report) write_report(out_dir);
    const run_summary summary = sim.make_summary(r);
    if (json) {
        m_out << summary.json();
    } else if (quiet) {
        m_out << summary.headline();
    } else {
        m_out << "trainvp " << TRAINVP_VERSION << ": " << config << "\n" << summary.text();
        m_out << "outputs in " << out_dir << "/\n";
    }
    if (r.status == run_status::INTERRUPTED) {
        m_err << "trainvp: interrupted by " << (r.signal == SIGINT ? "SIGINT" : "SIGTERM") << " at "
              << units::format_time(r.end_time.to_seconds()) << " of simulated time; " << out_dir
              << "/ holds the run so far (status interrupted)\n";
        return run_interrupt::exit_code(r.signal);
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
    // SIGINT / SIGTERM: no new point starts, the running ones get the signal and stop cleanly,
    // the table is written, and a rerun resumes with the points that have no result.
    run_interrupt::install();
    sweep_runner runner(plan, self, jobs, m_out, tty);
    const auto o = runner.run();
    if (o.skipped) {
        m_out << "sweep: " << o.skipped << " of " << plan.points().size()
              << " points had results already (resumed; --force runs them again)\n";
    }
    const int code = merge(out_dir);
    if (const int sig = run_interrupt::received()) {
        m_err << "trainvp: sweep interrupted by " << (sig == SIGINT ? "SIGINT" : "SIGTERM")
              << "; run the same command again to resume it\n";
        return run_interrupt::exit_code(sig);
    }
    return code;
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

std::vector<std::string> trainvp_cli::describe_names() const {
    std::vector<std::string> names = m_registry.names();
    names.push_back("simulation");
    names.push_back("collectives");
    names.push_back("codecs");
    names.push_back("workload");
    for (const std::string& s : drivers::section_registry::global().names()) {
        names.push_back("workload." + s);
    }
    names.push_back("zoo");
    for (const std::string& m : models::zoo_model_names()) names.push_back("zoo." + m);
    return names;
}

int trainvp_cli::cmd_describe(const std::vector<std::string>& args) {
    const source_loc cmdline{"command line", 0, 0};
    bool markdown = false, list_names = false;
    std::string type;
    plugin_loader plugins(m_registry);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--markdown") {
            markdown = true;
        } else if (a == "--names") {
            list_names = true;
        } else if (a == "--plugin") {
            if (i + 1 >= args.size()) throw input_error(cmdline, a, "needs a value");
            plugins.load(args[++i], cmdline, "--plugin");
        } else if (!a.empty() && a[0] == '-') {
            throw input_error(
                cmdline, a,
                "unknown option" + did_you_mean(a, {"--markdown", "--names", "--plugin"}));
        } else if (!type.empty()) {
            throw input_error(cmdline, a, "describe takes one TYPE (got '" + type + "' already)");
        } else {
            type = a;
        }
    }
    if (list_names) {
        for (const auto& n : describe_names()) m_out << n << "\n";
        return k_ok;
    }
    if (markdown && type.empty()) {
        m_out << reference_markdown();
        return k_ok;
    }
    if (type.empty()) {
        m_out << "IP types (trainvp describe TYPE for details; `simulation` for run settings):\n";
        for (const auto& [name, t] : m_registry.types()) {
            const std::string origin = m_registry.origin(name);
            m_out << "  " << pad(name, 22) << first_sentence(t.description)
                  << (origin == "built in" ? "" : " (" + origin + ")") << "\n";
        }
        m_out << describe_registries("", false);
        m_out << "\nWorkload sections (the keys of a config's `workload:`; trainvp describe "
                 "workload.NAME for details, `describe workload` for all):\n";
        for (const auto& [name, sec] : drivers::section_registry::global().sections()) {
            m_out << "  " << pad("workload." + name, 22) << first_sentence(sec.description) << "\n";
        }
        m_out << "\nModel zoo (`model:` of workload.training; trainvp describe zoo.NAME for "
                 "its layers):\n  "
              << join(models::zoo_model_names(), ", ") << "\n";
        return k_ok;
    }
    const std::vector<std::string> names = describe_names();
    // zoo.PATH describes a model file anywhere (one with a '/' or ending in .yaml), as
    // workload.training.model accepts one.
    const bool model_file = type.compare(0, 4, "zoo.") == 0 &&
                            (type.find('/') != std::string::npos ||
                             (type.size() > 9 && type.compare(type.size() - 5, 5, ".yaml") == 0));
    if (!model_file && std::find(names.begin(), names.end(), type) == names.end()) {
        // A unique prefix names its type; several are listed; none is an error.
        std::vector<std::string> matches;
        for (const auto& n : names) {
            if (n.compare(0, type.size(), type) == 0) matches.push_back(n);
        }
        if (matches.empty()) {
            throw input_error(cmdline, type,
                              "unknown IP type" + did_you_mean(type, names) +
                                  "; known types: " + join(m_registry.names(), ", ") +
                                  " (trainvp describe lists them all)");
        }
        if (matches.size() > 1) {
            m_out << matches.size() << " names start with '" << type
                  << "' (trainvp describe NAME for one):\n";
            for (const auto& n : matches) m_out << "  " << n << "\n";
            return k_ok;
        }
        type = matches.front();
    }
    if (type == "collectives" || type == "codecs") {
        m_out << describe_registries(type, true);
        return k_ok;
    }
    if (type == "workload") {
        bool first = true;
        for (const auto& [name, sec] : drivers::section_registry::global().sections()) {
            (void)sec;
            m_out << (first ? "" : "\n")
                  << (markdown ? markdown_of("workload." + name)
                               : describe_text("workload." + name));
            first = false;
        }
        return k_ok;
    }
    if (type == "zoo") {
        m_out << describe_zoo();
        return k_ok;
    }
    if (type.compare(0, 4, "zoo.") == 0) {
        m_out << (markdown ? describe_model_markdown(type.substr(4))
                           : describe_model(type.substr(4)));
        return k_ok;
    }
    m_out << (markdown ? markdown_of(type) : describe_text(type));
    return k_ok;
}

std::string trainvp_cli::describe_zoo() const {
    std::ostringstream os;
    os << "Model zoo (" << models::zoo_dir()
       << "): `model: NAME` of workload.training; trainvp describe zoo.NAME for its layers.\n"
       << "  " << pad("name", 16) << pad("layers", 6) << pad("params", 12) << pad("weights", 10)
       << "source\n";
    for (const auto& name : models::zoo_model_names()) {
        models::model_options o;
        o.batch = 1;
        const models::model m = models::load_zoo_model(name, o);
        std::ostringstream params;
        params << m.totals().params;
        os << "  " << pad(name, 16) << pad(std::to_string(m.layers().size()), 6)
           << pad(params.str(), 12) << pad(units::format_size(m.totals().weight_bytes), 10)
           << m.source() << "\n";
    }
    return os.str();
}

std::string trainvp_cli::describe_model(const std::string& name) const {
    models::model_options o;
    o.batch = 1;
    const models::model m = models::load_zoo_model(name, o);
    std::ostringstream os;
    os << "zoo." << m.name() << ": " << m.source() << "\n  file: " << m.file()
       << "\n  input: " << m.input().str() << " per sample\n";
    os << "\nparameters (workload.training.model_parameters):\n";
    if (m.parameters().empty()) os << "  (none)\n";
    for (const auto& [k, v] : m.parameters()) os << "  " << pad(k, 16) << v << "\n";
    os << "\nlayers (batch 1; FLOPs per sample, a multiply-add is 2):\n  " << pad("name", 22)
       << pad("kind", 10) << pad("output", 16) << pad("params", 12) << pad("forward", 10)
       << "backward\n";
    auto flops = [](double f) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.4g", f);
        return std::string(buf);
    };
    for (const auto& l : m.layers()) {
        os << "  " << pad(l.name, 22) << pad(models::to_string(l.kind), 11)
           << pad(l.output_shape.str(), 16) << pad(std::to_string(l.params), 12)
           << pad(flops(static_cast<double>(l.forward_flops)), 10)
           << flops(static_cast<double>(l.backward_flops())) << "\n";
    }
    const auto& t = m.totals();
    os << "\ntotal: " << m.layers().size() << " layers, " << t.params << " params ("
       << units::format_size(static_cast<double>(t.weight_bytes)) << " of fp32 weights; the "
       << "gradient an all-reduce moves), forward " << flops(static_cast<double>(t.forward_flops))
       << " FLOP, backward " << flops(static_cast<double>(t.backward_flops())) << " FLOP\n";
    return os.str();
}

std::string trainvp_cli::describe_model_markdown(const std::string& name) const {
    models::model_options o;
    o.batch = 1;
    const models::model m = models::load_zoo_model(name, o);
    std::ostringstream os;
    os << "## zoo." << m.name() << "\n\n"
       << md_cell(m.source()) << " (" << m.layers().size() << " layers; input " << m.input().str()
       << "; FLOPs per sample, a multiply-add is 2)\n\n"
       << "| layer | kind | output | params | forward FLOPs | backward input FLOPs | "
          "backward weight FLOPs |\n|---|---|---|---|---|---|---|\n";
    for (const auto& l : m.layers()) {
        std::string kind = models::to_string(l.kind);
        if (l.kind == models::layer_kind::GENERIC) kind += " " + l.spec.op;
        os << "| " << l.name << " | " << md_cell(kind) << " | " << l.output_shape.str() << " | "
           << l.params << " | " << l.forward_flops << " | " << l.backward_input_flops << " | "
           << l.backward_weight_flops << " |\n";
    }
    const auto& t = m.totals();
    os << "| total | | | " << t.params << " | " << t.forward_flops << " | "
       << t.backward_input_flops << " | " << t.backward_weight_flops << " |\n";
    return os.str();
}

namespace {

void md_params_table(std::ostringstream& os, const std::vector<param_decl>& ps,
                     std::string (*default_text)(const param_decl&)) {
    os << "| param | unit | default | range | description |\n|---|---|---|---|---|\n";
    for (const auto& [key, decl] : flat_params(ps)) {
        const param_decl& p = *decl;
        os << "| `" << key << "` | " << md_cell(p.unit_text()) << " | `" << md_cell(default_text(p))
           << "` | " << md_cell(p.range_text) << " | " << md_cell(p.description) << " |\n";
    }
    os << "\n";
}

}  // namespace

std::string trainvp_cli::markdown_of(const std::string& name) const {
    std::ostringstream os;
    if (name == "simulation") {
        os << "## simulation\n\nSettings of a run (the `simulation:` section of a config).\n\n";
        md_params_table(os, sim_settings::decls(), default_of);
        return os.str();
    }
    if (const drivers::section_info* s = section_named(name)) {
        os << "## " << name << "\n\n" << s->description << "\n\n";
        if (!s->params.empty()) md_params_table(os, s->params, section_default_of);
        return os.str();
    }
    const type_info& t = *m_registry.find(name);
    os << "## " << name << "\n\n" << t.description << "\n\n";
    if (!t.params.empty()) md_params_table(os, t.params, default_of);
    if (!t.ports.empty()) {
        os << "| socket | role | protocol | description |\n|---|---|---|---|\n";
        for (const auto& p : t.ports) {
            os << "| `" << p.name << (p.is_array ? "[i]" : "") << "` | "
               << (p.role == port_role::INITIATOR ? "initiator" : "target") << " | " << p.protocol
               << " | " << md_cell(p.description) << " |\n";
        }
        os << "\n";
    }
    if (!t.stats.empty()) {
        os << "| statistic | unit | kind | description |\n|---|---|---|---|\n";
        for (const auto& st : t.stats) {
            os << "| `" << st.name << "` | " << st.unit << " | " << stat_kind_name(st.kind) << " | "
               << md_cell(st.description) << " |\n";
        }
        os << "\n";
    }
    if (!t.signals.empty()) {
        os << "| VCD signal | description |\n|---|---|\n";
        for (const auto& sg : t.signals) {
            os << "| `" << sg.name << "` | " << md_cell(sg.description) << " |\n";
        }
        os << "\n";
    }
    return os.str();
}

std::string trainvp_cli::reference_markdown() const {
    std::ostringstream os;
    os << "# IP reference\n\n"
       << "Generated by `trainvp describe --markdown` from the blocks' and the workload "
          "sections' own declarations; do not edit by hand (regenerate with "
          "`tools/gen_docs.sh`).\n\n";
    os << markdown_of("simulation");
    // The workload sections: the keys of a config's `workload:` (workloads/drivers/).
    for (const auto& [name, s] : drivers::section_registry::global().sections()) {
        (void)s;
        os << markdown_of("workload." + name);
    }
    for (const auto& [name, t] : m_registry.types()) {
        (void)t;
        os << markdown_of(name);
    }
    return os.str();
}

}  // namespace trainvp
