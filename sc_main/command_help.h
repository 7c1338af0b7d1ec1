// The commands of `trainvp` with their help: the overview `trainvp help` prints and each
// command's own (`trainvp help run`, `trainvp run --help`), and the names the bash completion
// (scripts/trainvp-completion.bash) offers.  One entry per command; trainvp_cli dispatches by
// the same names.
#pragma once

#include <string>
#include <vector>

namespace trainvp {

struct command_help {
    std::string name;                  // "run"
    std::string synopsis;              // "run CONFIG.yaml [--set KEY=VALUE ...] ..."
    std::string summary;               // one line for the overview
    std::string details;               // what it does, its options, examples
    std::vector<std::string> options;  // for completion and did-you-mean

    // Every command, in the overview's order.
    static const std::vector<command_help>& all();
    // The command called `name`, or null.
    static const command_help* find(const std::string& name);
    // The names of all commands.
    static std::vector<std::string> names();
    // `trainvp help`: usage, the commands, common options, exit codes.
    static std::string overview();
    // `trainvp help NAME` / `trainvp NAME --help`.
    std::string text() const;
};

}  // namespace trainvp
