#include "platform/did_you_mean.h"

#include <algorithm>

namespace trainvp {

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
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
    // A third of the word (at least 1, at least 2 for longer words) keeps suggestions useful
    // without proposing unrelated names.
    std::size_t limit = std::max<std::size_t>(word.size() >= 6 ? 2 : 1, word.size() / 3);
    if (best == nullptr || best_d > limit) return "";
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
