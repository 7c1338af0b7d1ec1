#include "noc/collective/noc_collective.h"

#include <stdexcept>

#include "noc/collective/collective_traffic.h"
#include "workloads/collectives/collectives.h"

namespace trainvp::noc {

void noc_collective::settings::declare(param_list<settings>& d) {
    d.choice("algorithm", &settings::algorithm,
             {{"none", collective_algorithm::NONE},
              {"ring", collective_algorithm::RING},
              {"ring_2d", collective_algorithm::RING_2D},
              {"hierarchical_ring", collective_algorithm::HIERARCHICAL_RING},
              {"double_binary_tree", collective_algorithm::DOUBLE_BINARY_TREE},
              {"multi_tree", collective_algorithm::MULTI_TREE},
              {"concentrated_multi_tree", collective_algorithm::CONCENTRATED_MULTI_TREE}},
             "none",
             "All-reduce run on the NoC instead of synthetic traffic, one rank per router "
             "(schedules of workloads/collectives: ring aries.md §II-C, 2D ring §II-D, "
             "hierarchical ring §IV-A-2, double binary tree §IV-B-1, multi-tree §IV-B-2, "
             "ARIES's concentrated multi-tree §IV-B-2 Fig. 8: 2x2 router blocks reduce into "
             "two concentrators, a multi-tree spans the blocks; needs an even size)");
    d.param("size", &settings::size, "1MiB",
            "Gradient bytes each rank all-reduces (FP32 elements; aries.md Fig. 9 sweeps 1 KB "
            "to 2 MB)")
        .range("4B", "16GiB");
    d.param("levels", &settings::levels, "2",
            "Levels L of the hierarchical ring (aries.md §IV-A-2); k*k must be an L-th power")
        .range("1", "8");
    d.param("trees", &settings::trees, "0",
            "Trees K of the multi-tree; 0: one per rank (MultiTree [34]); Table I's row uses 4. "
            "The concentrated multi-tree builds K trees per half over its N/4 concentrated "
            "nodes (0: one per concentrated node)")
        .range("0", "256");
    d.param("tree_degree", &settings::tree_degree, "2",
            "Children per node D of the multi-tree and concentrated multi-tree heaps (aries.md "
            "§IV-B: tree height log_D N; Table I's ARIES row log_4 N/4 uses 4)")
        .range("1", "16");
    d.choice("mapping", &settings::mapping,
             {{"auto", rank_mapping::AUTO},
              {"row_major", rank_mapping::ROW_MAJOR},
              {"ring", rank_mapping::RING}},
             "auto",
             "Rank placement: row_major (rank i on router i) or ring (a Hamiltonian cycle of "
             "the mesh, so ring neighbours are one hop apart, aries.md Fig. 6(a)); auto: ring "
             "for the ring, row-major otherwise");
}

bool noc_collective::is_tree() const {
    return m_s.algorithm == collective_algorithm::DOUBLE_BINARY_TREE ||
           m_s.algorithm == collective_algorithm::MULTI_TREE ||
           m_s.algorithm == collective_algorithm::CONCENTRATED_MULTI_TREE;
}

collectives::schedule noc_collective::schedule(std::uint64_t elements) const {
    const int k = m_k, n = k * k;
    switch (m_s.algorithm) {
        case collective_algorithm::RING:
            return collectives::ring_allreduce(n, elements);
        case collective_algorithm::RING_2D:
            return collectives::ring_2d(k, k, elements);
        case collective_algorithm::HIERARCHICAL_RING:
            return collectives::hierarchical_ring(n, static_cast<int>(m_s.levels), elements);
        case collective_algorithm::DOUBLE_BINARY_TREE:
            return collectives::double_binary_tree(n, elements);
        case collective_algorithm::CONCENTRATED_MULTI_TREE:
            return collectives::concentrated_multi_tree(k, k, elements, static_cast<int>(m_s.trees),
                                                        static_cast<int>(m_s.tree_degree));
        default:
            return collectives::multi_tree(n, elements, static_cast<int>(m_s.trees),
                                           static_cast<int>(m_s.tree_degree));
    }
}

std::vector<int> noc_collective::mapping() const {
    const bool ring =
        m_s.mapping == rank_mapping::RING || (m_s.mapping == rank_mapping::AUTO && is_ring());
    if (ring && m_k % 2 != 0) throw std::invalid_argument("the ring mapping needs an even size");
    return ring ? ring_mapping(m_k) : row_major_mapping(m_k);
}

}  // namespace trainvp::noc
