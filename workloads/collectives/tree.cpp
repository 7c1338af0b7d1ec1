#include "workloads/collectives/tree.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule_builder.h"

namespace trainvp::collectives {

namespace {

void check_common(const std::string& name, int ranks, uint64_t elements) {
    if (ranks < 2) {
        throw std::invalid_argument(name + ": needs at least 2 ranks, got " +
                                    std::to_string(ranks));
    }
    if (elements < 1) throw std::invalid_argument(name + ": needs at least 1 element");
}

// Depth of every rank (root 0); throws std::invalid_argument when `t` is not a spanning tree.
std::vector<int> depths(const spanning_tree& t, const std::string& name) {
    const int n = static_cast<int>(t.parent.size());
    int roots = 0;
    for (int r = 0; r < n; ++r) {
        const int p = t.parent[static_cast<std::size_t>(r)];
        if (p == -1) {
            ++roots;
        } else if (p < 0 || p >= n || p == r) {
            throw std::invalid_argument(name + ": rank " + std::to_string(r) + " has parent " +
                                        std::to_string(p) + ", not another rank in [0, " +
                                        std::to_string(n) + ")");
        }
    }
    if (roots != 1) {
        throw std::invalid_argument(name +
                                    ": a spanning tree needs exactly one root (parent "
                                    "-1), found " +
                                    std::to_string(roots));
    }
    std::vector<int> depth(static_cast<std::size_t>(n), -1);
    for (int r = 0; r < n; ++r) {
        // Climb until a rank of known depth; more than n hops means a cycle.
        std::vector<int> path;
        int v = r;
        while (v != -1 && depth[static_cast<std::size_t>(v)] < 0) {
            path.push_back(v);
            if (static_cast<int>(path.size()) > n) {
                throw std::invalid_argument(name + ": the parents of rank " + std::to_string(r) +
                                            " form a cycle");
            }
            v = t.parent[static_cast<std::size_t>(v)];
        }
        int d = v == -1 ? -1 : depth[static_cast<std::size_t>(v)];
        for (auto it = path.rbegin(); it != path.rend(); ++it) {
            depth[static_cast<std::size_t>(*it)] = ++d;
        }
    }
    return depth;
}

// Height of each rank's subtree (leaves 0).
std::vector<int> subtree_heights(const spanning_tree& t, const std::vector<int>& depth) {
    const std::size_t n = t.parent.size();
    std::vector<int> order(n);
    for (std::size_t r = 0; r < n; ++r) order[r] = static_cast<int>(r);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return depth[static_cast<std::size_t>(a)] > depth[static_cast<std::size_t>(b)];
    });
    std::vector<int> height(n, 0);
    for (int v : order) {
        const int p = t.parent[static_cast<std::size_t>(v)];
        if (p >= 0) {
            height[static_cast<std::size_t>(p)] = std::max(height[static_cast<std::size_t>(p)],
                                                           height[static_cast<std::size_t>(v)] + 1);
        }
    }
    return height;
}

// Reduce up and broadcast down every tree at once, tree j carrying chunk j.  A rank sends up
// in the round equal to its subtree height, which is after all its children have sent; the
// root of height H sends down in round H and a rank at depth d receives in round H + d - 1.
schedule trees_allreduce(const std::string& name, const std::vector<spanning_tree>& trees,
                         uint64_t elements) {
    if (trees.empty()) throw std::invalid_argument(name + ": no trees given");
    const int ranks = static_cast<int>(trees[0].parent.size());
    check_common(name, ranks, elements);
    const std::vector<chunk> shares = partition(elements, trees.size());
    schedule_builder b(name, ranks, elements);
    for (std::size_t j = 0; j < trees.size(); ++j) {
        const spanning_tree& t = trees[j];
        if (static_cast<int>(t.parent.size()) != ranks) {
            throw std::invalid_argument(name + ": tree " + std::to_string(j) + " spans " +
                                        std::to_string(t.parent.size()) + " ranks, tree 0 spans " +
                                        std::to_string(ranks));
        }
        const std::vector<int> depth = depths(t, name + " tree " + std::to_string(j));
        const std::vector<int> height = subtree_heights(t, depth);
        int root = 0;
        while (t.parent[static_cast<std::size_t>(root)] != -1) ++root;
        const uint32_t root_height = static_cast<uint32_t>(height[static_cast<std::size_t>(root)]);
        for (int v = 0; v < ranks; ++v) {
            const int p = t.parent[static_cast<std::size_t>(v)];
            if (p < 0) continue;
            b.transfer(v, p, shares[j], step_kind::RECV_REDUCE,
                       static_cast<uint32_t>(height[static_cast<std::size_t>(v)]));
        }
        for (int v = 0; v < ranks; ++v) {
            const int p = t.parent[static_cast<std::size_t>(v)];
            if (p < 0) continue;
            b.transfer(p, v, shares[j], step_kind::RECV_COPY,
                       root_height + static_cast<uint32_t>(depth[static_cast<std::size_t>(v)]) - 1);
        }
    }
    return b.finish();
}

}  // namespace

int tree_height(const spanning_tree& t) {
    const std::vector<int> depth = depths(t, "tree_height");
    return depth.empty() ? 0 : *std::max_element(depth.begin(), depth.end());
}

schedule binomial_tree_allreduce(int ranks, uint64_t elements) {
    const std::string name = "binomial_tree";
    check_common(name, ranks, elements);
    int levels = 0;
    while ((1 << levels) < ranks) ++levels;
    schedule_builder b(name, ranks, elements);
    const chunk all{0, elements};
    for (int k = 0; k < levels; ++k) {
        const int d = 1 << k;
        for (int v = d; v < ranks; v += 2 * d) {
            b.transfer(v, v - d, all, step_kind::RECV_REDUCE, static_cast<uint32_t>(k));
        }
    }
    for (int k = levels - 1; k >= 0; --k) {
        const int d = 1 << k;
        const uint32_t round = static_cast<uint32_t>(2 * levels - 1 - k);
        for (int v = 0; v + d < ranks; v += 2 * d) {
            b.transfer(v, v + d, all, step_kind::RECV_COPY, round);
        }
    }
    return b.finish();
}

std::vector<spanning_tree> double_binary_trees(int ranks) {
    if (ranks < 1) {
        throw std::invalid_argument("double_binary_trees: needs at least 1 rank, got " +
                                    std::to_string(ranks));
    }
    const int n = ranks;
    spanning_tree a{std::vector<int>(static_cast<std::size_t>(n), -1)};
    // Positions x = rank + 1 in [1, n]; lowbit(x) = 2^h is x's height in the full in-order tree.
    for (int x = 1; x <= n; ++x) {
        const int h = x & -x;
        if (h == 1) continue;
        a.parent[static_cast<std::size_t>(x - h / 2 - 1)] = x - 1;
        for (int step = h / 2; step >= 1; step /= 2) {
            if (x + step <= n) {
                a.parent[static_cast<std::size_t>(x + step - 1)] = x - 1;
                break;
            }
        }
    }
    spanning_tree tb{std::vector<int>(static_cast<std::size_t>(n), -1)};
    for (int r = 0; r < n; ++r) {
        if (n % 2 == 0) {
            const int pa = a.parent[static_cast<std::size_t>(n - 1 - r)];
            tb.parent[static_cast<std::size_t>(r)] = pa < 0 ? -1 : n - 1 - pa;
        } else {
            const int pa = a.parent[static_cast<std::size_t>((r - 1 + n) % n)];
            tb.parent[static_cast<std::size_t>(r)] = pa < 0 ? -1 : (pa + 1) % n;
        }
    }
    return {a, tb};
}

schedule double_binary_tree(int ranks, uint64_t elements) {
    check_common("double_binary_tree", ranks, elements);
    return trees_allreduce("double_binary_tree", double_binary_trees(ranks), elements);
}

std::vector<spanning_tree> rotated_trees(int ranks, int trees, int degree) {
    if (ranks < 1 || trees < 1 || degree < 1) {
        throw std::invalid_argument(
            "rotated_trees: ranks, trees and degree must be at least 1, "
            "got " +
            std::to_string(ranks) + ", " + std::to_string(trees) + ", " + std::to_string(degree));
    }
    std::vector<spanning_tree> out;
    for (int j = 0; j < trees; ++j) {
        const int root = static_cast<int>(static_cast<int64_t>(j) * ranks / trees);
        spanning_tree t{std::vector<int>(static_cast<std::size_t>(ranks), -1)};
        for (int r = 0; r < ranks; ++r) {
            const int pos = (r - root + ranks) % ranks;
            if (pos == 0) continue;
            t.parent[static_cast<std::size_t>(r)] = ((pos - 1) / degree + root) % ranks;
        }
        out.push_back(std::move(t));
    }
    return out;
}

schedule multi_tree(int ranks, uint64_t elements, int trees, int degree) {
    check_common("multi_tree", ranks, elements);
    if (trees < 0 || degree < 1) {
        throw std::invalid_argument(
            "multi_tree: trees must be >= 0 (0: one per rank) and degree "
            ">= 1, got " +
            std::to_string(trees) + " and " + std::to_string(degree));
    }
    return trees_allreduce("multi_tree", rotated_trees(ranks, trees == 0 ? ranks : trees, degree),
                           elements);
}

schedule multi_tree(const std::vector<spanning_tree>& trees, uint64_t elements) {
    return trees_allreduce("multi_tree", trees, elements);
}

collective_info binomial_tree_collective() {
    collective_info c;
    c.name = "binomial_tree";
    c.description =
        "Binomial tree: reduce to rank 0 and broadcast back along a binomial tree, "
        "2 ceil(log2 N) rounds (paleo.md §2 Tree AllReduce)";
    c.fabrics = {fabric::HOST, fabric::FLOW};
    c.make = [](const collective_args& a) { return binomial_tree_allreduce(a.ranks, a.elements); };
    return c;
}

collective_info double_binary_tree_collective() {
    collective_info c;
    c.name = "double_binary_tree";
    c.description =
        "Double binary tree: two complementary binary trees, each reducing and broadcasting "
        "half the vector (aries.md §IV-B-1, NCCL)";
    c.fabrics = {fabric::HOST, fabric::NOC, fabric::FLOW};
    c.make = [](const collective_args& a) { return double_binary_tree(a.ranks, a.elements); };
    return c;
}

collective_info multi_tree_collective() {
    collective_info c;
    c.name = "multi_tree";
    c.description =
        "Multi-tree: `trees` rotated `degree`-ary heaps (0: one per rank), tree j reducing "
        "chunk j to its root and broadcasting it back (aries.md §IV-B-2, MultiTree)";
    c.fabrics = {fabric::NOC, fabric::FLOW};
    c.make = [](const collective_args& a) {
        return multi_tree(a.ranks, a.elements, a.trees, a.degree);
    };
    return c;
}

}  // namespace trainvp::collectives
