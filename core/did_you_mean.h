// Suggestions for misspelt keys, types and socket names.
#pragma once

#include <string>
#include <vector>

namespace trainvp {

// Levenshtein distance between two strings.
std::size_t edit_distance(const std::string& a, const std::string& b);

// " (did you mean 'x'?)" for the closest candidate within a distance that scales with the
// word's length, or "" when nothing is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

// "a, b, c" — for "expected one of ..." messages.
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");

}  // namespace trainvp
