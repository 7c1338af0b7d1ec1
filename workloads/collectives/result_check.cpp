#include "workloads/collectives/result_check.h"

#include <sstream>
#include <stdexcept>

namespace trainvp::collectives {

namespace {

template <typename T>
const std::vector<T>& buffer(const std::vector<std::vector<T>>& b, int rank) {
    return b[static_cast<std::size_t>(rank)];
}

}  // namespace

template <typename T>
std::string check_result(const schedule& s, collective_result result, int root,
                         const std::vector<int>& members, const std::vector<std::vector<T>>& inputs,
                         const std::vector<std::vector<T>>& outputs) {
    const std::string what = "check_result '" + s.algorithm + "'";
    const int g = static_cast<int>(members.size());
    if (g < 1) throw std::invalid_argument(what + ": no members");
    if (root < 0 || root >= g) {
        throw std::invalid_argument(what + ": root " + std::to_string(root) + " is not in 0.." +
                                    std::to_string(g - 1));
    }
    if (inputs.size() != static_cast<std::size_t>(s.ranks) ||
        outputs.size() != static_cast<std::size_t>(s.ranks)) {
        throw std::invalid_argument(what + ": needs one input and one output buffer per rank");
    }
    for (int m : members) {
        if (m < 0 || m >= s.ranks) {
            throw std::invalid_argument(what + ": member " + std::to_string(m) +
                                        " is not a rank of the schedule");
        }
        if (buffer(inputs, m).size() != s.elements || buffer(outputs, m).size() != s.elements) {
            throw std::invalid_argument(what + ": a buffer of rank " + std::to_string(m) +
                                        " does not hold " + std::to_string(s.elements) +
                                        " elements");
        }
    }
    const uint64_t n = s.elements;
    std::string error;
    // Compares outputs[rank][e] with want; records the first difference.
    auto expect = [&](int rank, uint64_t e, T want) {
        const T got = buffer(outputs, rank)[e];
        if (got == want) return true;
        std::ostringstream os;
        os << s.algorithm << " (" << result_name(result) << ", " << g << " ranks, " << n
           << " elements): rank " << rank << " element " << e << " is " << got << ", want " << want;
        error = os.str();
        return false;
    };
    auto sum_at = [&](uint64_t e, bool contributing_only) {
        T sum{};
        for (int m : members) {
            if (contributing_only && !s.contributes[static_cast<std::size_t>(m)]) continue;
            sum += buffer(inputs, m)[e];
        }
        return sum;
    };
    const std::vector<chunk> blocks = partition(n, static_cast<uint64_t>(g));
    switch (result) {
        case collective_result::ALL_REDUCE:
        case collective_result::REDUCE:
            for (uint64_t e = 0; e < n; ++e) {
                const T want = sum_at(e, result == collective_result::ALL_REDUCE);
                if (result == collective_result::REDUCE) {
                    if (!expect(members[static_cast<std::size_t>(root)], e, want)) return error;
                    continue;
                }
                for (int m : members) {
                    if (!expect(m, e, want)) return error;
                }
            }
            break;
        case collective_result::BROADCAST:
            for (uint64_t e = 0; e < n; ++e) {
                const T want = buffer(inputs, members[static_cast<std::size_t>(root)])[e];
                for (int m : members) {
                    if (!expect(m, e, want)) return error;
                }
            }
            break;
        case collective_result::ALL_GATHER:
            for (int owner = 0; owner < g; ++owner) {
                const chunk& b = blocks[static_cast<std::size_t>(owner)];
                for (uint64_t e = b.offset; e < b.offset + b.count; ++e) {
                    const T want = buffer(inputs, members[static_cast<std::size_t>(owner)])[e];
                    for (int m : members) {
                        if (!expect(m, e, want)) return error;
                    }
                }
            }
            break;
        case collective_result::REDUCE_SCATTER:
            for (int r = 0; r < g; ++r) {
                const chunk& b = blocks[static_cast<std::size_t>(r)];
                for (uint64_t e = b.offset; e < b.offset + b.count; ++e) {
                    if (!expect(members[static_cast<std::size_t>(r)], e, sum_at(e, false)))
                        return error;
                }
            }
            break;
        case collective_result::ALL_TO_ALL: {
            const uint64_t half = n / 2;
            if (n % 2 != 0 || half % static_cast<uint64_t>(g) != 0) {
                throw std::invalid_argument(what + ": an all-to-all's buffer of " +
                                            std::to_string(n) +
                                            " elements is not 2 x a multiple"
                                            " of " +
                                            std::to_string(g) + " ranks");
            }
            const uint64_t c = half / static_cast<uint64_t>(g);
            for (int r = 0; r < g; ++r) {
                for (int q = 0; q < g; ++q) {
                    if (q == r) continue;  // the own slot moves by no message
                    const auto& from = buffer(inputs, members[static_cast<std::size_t>(q)]);
                    for (uint64_t k = 0; k < c; ++k) {
                        const uint64_t slot = half + static_cast<uint64_t>(q) * c + k;
                        const T want = from[static_cast<uint64_t>(r) * c + k];
                        if (!expect(members[static_cast<std::size_t>(r)], slot, want)) return error;
                    }
                }
            }
            break;
        }
    }
    return error;
}

template <typename T>
std::string check_result(const schedule& s, collective_result result, int root,
                         const std::vector<std::vector<T>>& inputs,
                         const std::vector<std::vector<T>>& outputs) {
    std::vector<int> all(static_cast<std::size_t>(s.ranks));
    for (int r = 0; r < s.ranks; ++r) all[static_cast<std::size_t>(r)] = r;
    return check_result(s, result, root, all, inputs, outputs);
}

template std::string check_result<float>(const schedule&, collective_result, int,
                                         const std::vector<int>&,
                                         const std::vector<std::vector<float>>&,
                                         const std::vector<std::vector<float>>&);
template std::string check_result<double>(const schedule&, collective_result, int,
                                          const std::vector<int>&,
                                          const std::vector<std::vector<double>>&,
                                          const std::vector<std::vector<double>>&);
template std::string check_result<float>(const schedule&, collective_result, int,
                                         const std::vector<std::vector<float>>&,
                                         const std::vector<std::vector<float>>&);
template std::string check_result<double>(const schedule&, collective_result, int,
                                          const std::vector<std::vector<double>>&,
                                          const std::vector<std::vector<double>>&);

}  // namespace trainvp::collectives
