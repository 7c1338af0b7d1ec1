#include "traces/signal_glob.h"

namespace trainvp {

signal_glob::signal_glob(const std::vector<std::string>& patterns) {
    for (const auto& p : patterns) {
        std::size_t start = 0;
        while (start <= p.size()) {
            const std::size_t comma = p.find(',', start);
            const std::string one =
                p.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (!one.empty()) m_patterns.push_back(one);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
    }
    m_used.assign(m_patterns.size(), false);
}

bool signal_glob::matches(const std::string& name) const {
    if (m_patterns.empty()) return true;
    bool any = false;
    for (std::size_t i = 0; i < m_patterns.size(); ++i) {
        if (match(m_patterns[i], name)) {
            m_used[i] = true;
            any = true;
        }
    }
    return any;
}

std::vector<std::string> signal_glob::unmatched() const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < m_patterns.size(); ++i) {
        if (!m_used[i]) out.push_back(m_patterns[i]);
    }
    return out;
}

// Iterative wildcard matching with backtracking to the last `*`.
bool signal_glob::match(const std::string& pattern, const std::string& name) {
    std::size_t p = 0, n = 0, star = std::string::npos, resume = 0;
    while (n < name.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
            ++p;
            ++n;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            resume = n;
        } else if (star != std::string::npos) {
            p = star + 1;
            n = ++resume;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

}  // namespace trainvp
