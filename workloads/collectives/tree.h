// Tree all-reduces: every tree reduces its share of the vector up to its root, then the root
// broadcasts the sum back down the same tree.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/collectives/schedule.h"

namespace trainvp::collectives {

struct collective_info;

// A spanning tree over ranks 0..N-1: parent[r] is r's parent, -1 for the one root.
struct spanning_tree {
    std::vector<int> parent;
};

// Edges on the longest root-to-leaf path.  Throws std::invalid_argument when `t` is not a
// spanning tree (no root or several, a parent out of range, a cycle).
int tree_height(const spanning_tree& t);

// Binomial-tree all-reduce: reduce to rank 0, then broadcast (the "Tree AllReduce" of paleo.md
// §2, 2 log2(K) link times).  In reduce round k every rank whose lowest set bit is 2^k sends
// the whole vector to rank - 2^k, which adds it in; the broadcast mirrors it from rank 0.
// Every rank sends or receives at most once per round: 2*ceil(log2 N) rounds, 2(N-1)
// whole-vector messages in all.  Throws std::invalid_argument when ranks < 2 or
// elements < 1.
schedule binomial_tree_allreduce(int ranks, uint64_t elements);

// The two complementary binary trees of the double binary tree (aries.md §IV-B-1 and Fig.
// 7(a), after Sanders et al. [32] as used by NCCL [33]).  Tree A is the in-order binary tree
// on positions 1..N (position = rank + 1): the root is the largest power of two <= N, a node
// with lowest set bit 2^h has children at -2^(h-1) and at the first of +2^(h-1), +2^(h-2), ...,
// +1 that is <= N, so odd positions (even ranks) are the leaves.  Tree B relabels tree A so
// those leaves become its inner nodes: mirrored (rank r plays rank N-1-r) when N is even,
// shifted (rank r plays rank r-1 mod N) when N is odd.  No rank is an inner node of both.
std::vector<spanning_tree> double_binary_trees(int ranks);

// Double binary tree all-reduce: tree A reduces and broadcasts the first half of the vector,
// tree B the second half, at the same time.  A rank sends to its parent in the round equal to
// the height of its subtree (so a parent hears both children in one round) and the
// broadcast mirrors it: 2*floor(log2 N) rounds, 2(N-1) tree edges, each rank sends at most
// about twice the vector.  Throws std::invalid_argument when ranks < 2 or elements < 1.
schedule double_binary_tree(int ranks, uint64_t elements);

// `trees` rotated heaps of the given degree: tree j is rooted at rank floor(j*N/trees) and the
// rank at heap position p (position = (rank - root) mod N) has parent position (p-1)/degree.
// With trees = N every rank is the root of one tree and holds every heap position once.
std::vector<spanning_tree> rotated_trees(int ranks, int trees, int degree);

// Multi-tree all-reduce (aries.md §IV-B-2, after MultiTree [34]): tree j alone reduces
// chunk j of partition(elements, trees) to its root, then broadcasts it back down (the
// all-gather); all trees run at once.  Rounds as in double_binary_tree(): 2*max height.
// With trees = 0 (the default) it builds N trees, as in the paper's text ("a single tree from
// the n constructed trees ... the jth tree is reducing the gradient chunk j"); Table I's
// "Multi-Tree" row counts K = 4 trees.  ARIES' concentrated variant (Fig. 8) is
// concentrated_multi_tree.h.  Throws
// std::invalid_argument when ranks < 2, elements < 1, trees < 0 or degree < 1.
schedule multi_tree(int ranks, uint64_t elements, int trees = 0, int degree = 2);

// Multi-tree on explicit trees: tree j carries chunk j of partition(elements, trees.size()).
// Throws std::invalid_argument when the list is empty, a tree is not a spanning tree of the
// same rank count, the rank count is < 2 or elements < 1.
schedule multi_tree(const std::vector<spanning_tree>& trees, uint64_t elements);

// Registry entries (collective_registry; listed in builtin_collectives.cpp).
collective_info binomial_tree_collective();
collective_info double_binary_tree_collective();
collective_info multi_tree_collective();

}  // namespace trainvp::collectives
