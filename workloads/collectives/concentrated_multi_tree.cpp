#include "workloads/collectives/concentrated_multi_tree.h"

#include <stdexcept>
#include <string>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule_builder.h"
#include "workloads/collectives/tree.h"

namespace trainvp::collectives {

namespace {

const char* const NAME = "concentrated_multi_tree";

// Ranks in `groups` must be 0..N-1, each exactly once; returns N.
int check_groups(const std::vector<std::vector<int>>& groups) {
    std::size_t n = 0;
    for (const auto& g : groups) n += g.size();
    std::vector<bool> seen(n, false);
    for (std::size_t i = 0; i < groups.size(); ++i) {
        if (groups[i].size() < 2) {
            throw std::invalid_argument(std::string(NAME) + ": group " + std::to_string(i) +
                                        " has fewer than 2 ranks (two concentrators)");
        }
        for (int r : groups[i]) {
            if (r < 0 || static_cast<std::size_t>(r) >= n || seen[static_cast<std::size_t>(r)]) {
                throw std::invalid_argument(std::string(NAME) +
                                            ": the groups do not partition "
                                            "ranks 0.." +
                                            std::to_string(n - 1) + " (rank " + std::to_string(r) +
                                            ")");
            }
            seen[static_cast<std::size_t>(r)] = true;
        }
    }
    if (groups.empty()) throw std::invalid_argument(std::string(NAME) + ": no groups");
    return static_cast<int>(n);
}

}  // namespace

std::vector<std::vector<int>> grid_quads(int cols, int rows) {
    if (cols < 2 || rows < 2 || cols % 2 != 0 || rows % 2 != 0) {
        throw std::invalid_argument(
            "grid_quads: a grid of 2 x 2 blocks needs even cols and rows "
            ">= 2, got " +
            std::to_string(cols) + " x " + std::to_string(rows));
    }
    std::vector<std::vector<int>> out;
    for (int by = 0; by < rows; by += 2) {
        for (int bx = 0; bx < cols; bx += 2) {
            const int r = by * cols + bx;
            out.push_back({r, r + 1, r + cols, r + cols + 1});
        }
    }
    return out;
}

schedule concentrated_multi_tree(const std::vector<std::vector<int>>& groups, uint64_t elements,
                                 int trees, int degree) {
    const int n = check_groups(groups);
    if (elements < 2) {
        throw std::invalid_argument(std::string(NAME) +
                                    ": needs at least 2 elements (one per half)");
    }
    if (trees < 0 || degree < 1) {
        throw std::invalid_argument(std::string(NAME) +
                                    ": trees must be >= 0 (0: one per group) and degree >= 1, "
                                    "got " +
                                    std::to_string(trees) + " and " + std::to_string(degree));
    }
    const int g = static_cast<int>(groups.size());
    const std::vector<chunk> halves = partition(elements, 2);
    schedule_builder b(NAME, n, elements);
    // Round 0: reduce each half into its concentrator.
    for (const auto& grp : groups) {
        for (int h = 0; h < 2; ++h) {
            const int c = h == 0 ? grp.front() : grp.back();
            for (int r : grp) {
                if (r != c) b.transfer(r, c, halves[h], step_kind::RECV_REDUCE, 0);
            }
        }
    }
    // Rounds 1..2H: an ordinary multi-tree among the concentrators of each half, its ranks
    // renamed to the concentrators and its ranges shifted into the half.
    uint32_t middle = 0;
    if (g >= 2) {
        for (int h = 0; h < 2; ++h) {
            const schedule sub = multi_tree(g, halves[h].count, trees, degree);
            middle = round_count(sub);
            auto conc = [&](int group) {
                const auto& grp = groups[static_cast<std::size_t>(group)];
                return h == 0 ? grp.front() : grp.back();
            };
            for (int q = 0; q < g; ++q) {
                for (const step& st : sub.steps[static_cast<std::size_t>(q)]) {
                    if (!is_recv(st.kind)) continue;
                    const chunk range{halves[h].offset + st.range.offset, st.range.count};
                    b.transfer(conc(st.peer), conc(q), range, st.kind, 1 + st.round);
                }
            }
        }
    }
    // Round 2H + 1: the concentrators return their half to the rest of the group.
    for (const auto& grp : groups) {
        for (int h = 0; h < 2; ++h) {
            const int c = h == 0 ? grp.front() : grp.back();
            for (int r : grp) {
                if (r != c) b.transfer(c, r, halves[h], step_kind::RECV_COPY, 1 + middle);
            }
        }
    }
    return b.finish();
}

schedule concentrated_multi_tree(int cols, int rows, uint64_t elements, int trees, int degree) {
    if (cols < 2 || rows < 2 || cols % 2 != 0 || rows % 2 != 0) {
        throw std::invalid_argument(std::string(NAME) +
                                    ": groups of four are the 2 x 2 blocks of the grid, which "
                                    "needs an even number of columns and rows, got " +
                                    std::to_string(cols) + " x " + std::to_string(rows));
    }
    return concentrated_multi_tree(grid_quads(cols, rows), elements, trees, degree);
}

collective_info concentrated_multi_tree_collective() {
    collective_info c;
    c.name = "concentrated_multi_tree";
    c.description =
        "ARIES's concentrated multi-tree: 2x2 groups reduce into two concentrators, a multi-tree "
        "spans the groups, the result is copied back (aries.md §IV-B-2, Fig. 8)";
    c.needs.min_ranks = 4;
    c.needs.grid = true;
    c.needs.even_grid = true;
    c.fabrics = {fabric::NOC, fabric::FLOW};
    c.make = [](const collective_args& a) {
        return concentrated_multi_tree(a.cols, a.rows, a.elements, a.trees, a.degree);
    };
    return c;
}

}  // namespace trainvp::collectives
