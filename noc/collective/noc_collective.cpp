#include "noc/collective/noc_collective.h"

#include <stdexcept>

#include "noc/collective/collective_traffic.h"
#include "workloads/collectives/collective_registry.h"

namespace trainvp::noc {

void noc_collective::settings::declare(param_list<settings>& d) {
    // none, then the collectives registered for the NoC fabric (workloads/collectives), read
    // when a config is (so that a plugin's count).
    d.choice_of(
        "algorithm", &settings::algorithm,
        [] {
            std::vector<std::string> names{"none"};
            for (const std::string& name :
                 collectives::collective_registry::global().names_for(collectives::fabric::NOC)) {
                names.push_back(name);
            }
            return names;
        },
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
    // The schedules whose tree edges the ARIES tree bypass plan bridges (noc/collective,
    // aries_tree_plan): a NoC policy, not a property of the schedule.
    return m_s.algorithm == "double_binary_tree" || m_s.algorithm == "multi_tree" ||
           m_s.algorithm == "concentrated_multi_tree";
}

collectives::schedule noc_collective::schedule(std::uint64_t elements) const {
    collectives::collective_args a;
    a.ranks = m_k * m_k;
    a.elements = elements;
    a.rows = a.cols = m_k;
    a.levels = static_cast<int>(m_s.levels);
    a.trees = static_cast<int>(m_s.trees);
    a.degree = static_cast<int>(m_s.tree_degree);
    return collectives::collective_registry::global().make(m_s.algorithm, a);
}

std::vector<int> noc_collective::mapping() const {
    const bool ring =
        m_s.mapping == rank_mapping::RING || (m_s.mapping == rank_mapping::AUTO && is_ring());
    if (ring && m_k % 2 != 0) throw std::invalid_argument("the ring mapping needs an even size");
    return ring ? ring_mapping(m_k) : row_major_mapping(m_k);
}

}  // namespace trainvp::noc
