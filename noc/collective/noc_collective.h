// The all-reduce noc.interposer runs on its routers, the `collective:` sub-map of the block:
// which schedule of workloads/collectives, how much each rank reduces, and where the ranks sit
// (one per router).  It makes the schedule for a size (the block's one all-reduce, or each
// gradient bucket of noc/chiplet's training) and the rank -> router mapping; the block turns a
// schedule into collective_traffic.  Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/param_decl.h"
#include "core/units.h"
#include "workloads/collectives/schedule.h"

namespace trainvp::noc {

enum class rank_mapping { AUTO, ROW_MAJOR, RING };

class noc_collective {
public:
    // The keys are the members' names.
    struct settings {
        // "none" or a collective registered for the NoC fabric (workloads/collectives).
        std::string algorithm = "none";
        units::data_size size{1u << 20};
        std::uint64_t levels = 2, trees = 0, tree_degree = 2;
        rank_mapping mapping = rank_mapping::AUTO;

        static void declare(param_list<settings>& d);
    };

    // `k`: routers per row and column (one rank per router).
    noc_collective(const settings& s, int k) : m_s(s), m_k(k) {}

    bool enabled() const { return m_s.algorithm != "none"; }
    bool is_ring() const { return m_s.algorithm == "ring"; }
    // One of the tree schedules the tree bypass plan bridges.
    bool is_tree() const;
    const settings& config() const { return m_s; }

    // The schedule of an all-reduce of `elements` FP32 values per rank.  Throws
    // std::invalid_argument when the schedule does not fit the array (the message says why).
    collectives::schedule schedule(std::uint64_t elements) const;
    // The schedule of `size` (its bytes / 4 elements).
    collectives::schedule configured_schedule() const { return schedule(m_s.size.bytes / 4); }
    // Router of each rank.  Throws std::invalid_argument for a ring mapping of an odd size.
    std::vector<int> mapping() const;

private:
    settings m_s;
    int m_k;
};

}  // namespace trainvp::noc
