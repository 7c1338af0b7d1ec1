// A VCD signal selection (`--vcd-signals`): globs over signal names such as
// `node[0].nic.tx_busy`, where `*` matches any run of characters (dots included), `?` one
// character, and everything else itself -- brackets too, so `node[0].*` selects node 0 and
// `node[*].nic.*` every node's NIC.
#pragma once

#include <string>
#include <vector>

namespace trainvp {

class signal_glob {
public:
    // Comma-separated globs; empty: every signal.
    explicit signal_glob(const std::vector<std::string>& patterns);

    bool empty() const { return m_patterns.empty(); }
    bool matches(const std::string& name) const;
    // The globs that matched no name given to matches() so far.
    std::vector<std::string> unmatched() const;

    static bool match(const std::string& pattern, const std::string& name);

private:
    std::vector<std::string> m_patterns;
    mutable std::vector<bool> m_used;
};

}  // namespace trainvp
