#include "core/did_you_mean.h"

#include <algorithm>

namespace trainvp {

// Optimal string alignment: Levenshtein plus transposition of neighbours, the commonest typo.
std::size_t edit_distance(const std::string& a, const std::string& b) {
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[n][m];
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
    const std::string* best = nullptr;
    std::size_t best_d = 0;
    for (const auto& c : candidates) {
        std::size_t d = edit_distance(word, c);
        if (best == nullptr || d < best_d) {
            best = &c;
            best_d = d;
        }
    }
    // One edit for short words, two from four letters, a third of longer words: close enough
    // to be the intended name, far enough not to propose unrelated ones.
    const std::size_t limit = word.size() <= 3 ? 1 : std::max<std::size_t>(2, word.size() / 3);
    // Replacing the whole word is not a typo ("c" is not a misspelling of "b").
    if (best == nullptr || best_d > limit || best_d >= word.size()) return "";
    return " (did you mean '" + *best + "'?)";
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += sep;
        out += items[i];
    }
    return out;
}

}  // namespace trainvp
