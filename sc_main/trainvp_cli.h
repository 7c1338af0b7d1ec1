// The `trainvp` command line: run, check, sweep, describe, diff, help (command_help.h),
// --version; --plugin and a
// config's `plugins:` load IP plugins into the registry first (platform/plugin_loader.h).  The only
// place where errors become exit codes: 0 ok, 1 simulation error, 2 bad input.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace trainvp {

class registry;
struct vcd_options;

class trainvp_cli {
public:
    trainvp_cli(registry& reg, std::ostream& out, std::ostream& err)
        : m_registry(reg), m_out(out), m_err(err) {}

    int main(const std::vector<std::string>& args);

    // The IP reference (docs/ip-reference.md) as Markdown, from the declarations.
    std::string reference_markdown() const;

private:
    int cmd_run(const std::vector<std::string>& args);
    int cmd_check(const std::vector<std::string>& args);
    int run_or_check(const std::vector<std::string>& args, bool check_only);
    static void parse_vcd_window(const std::string& opt, const std::string& v, vcd_options& out);
    // --vcd-max-size's default: 256 MB.
    static constexpr unsigned long long k_vcd_max_bytes = 256ull * 1000 * 1000;
    int cmd_diff(const std::vector<std::string>& args);
    int cmd_report(const std::vector<std::string>& args);
    // DIR/report.html from DIR's outputs; returns its path.
    std::string write_report(const std::string& dir);
    int cmd_describe(const std::vector<std::string>& args);
    int cmd_sweep(const std::vector<std::string>& args);
    int merge(const std::string& dir);
    std::string describe_text(const std::string& type) const;
    // One type's (or `simulation`'s, a workload section's) part of the IP reference.
    std::string markdown_of(const std::string& type) const;
    // Every name `describe` takes: IP types, simulation, collectives, codecs, workload
    // sections, zoo models.
    std::vector<std::string> describe_names() const;
    std::string describe_zoo() const;
    std::string describe_model(const std::string& name) const;
    // The same as a markdown table with exact counts per sample (tools/ and tests read it).
    std::string describe_model_markdown(const std::string& name) const;
    void usage() const;

    registry& m_registry;
    std::ostream& m_out;
    std::ostream& m_err;
};

}  // namespace trainvp
