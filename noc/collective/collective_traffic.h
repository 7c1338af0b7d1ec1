// A collective schedule (workloads/collectives) run on the NoC: each rank sits on a router
// (the mapping), walks its steps round group by round group, and turns every SEND into
// packets of at most `packet_flits` flits to the peer's router.  A rank enters its next group
// the cycle after every send of its current group was delivered and every receive arrived
// (rendezvous: the strictest reading of the schedule, README of workloads/collectives).
// Reductions take no time here (noc/chiplet/pe_array_model times layers, not reductions).
// Pure C++.
#pragma once

#include <cstdint>
#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "noc/network/traffic_source.h"
#include "workloads/collectives/schedule.h"

namespace trainvp::noc {

class noc_network;
struct noc_packet;

class collective_traffic : public traffic_source {
public:
    // `router_of[rank]`: the router rank sits on.  `flit_bytes`: payload per flit.
    collective_traffic(const collectives::schedule& s, std::vector<int> router_of,
                       double flit_bytes, int packet_flits, int element_bytes = 4);

    // Packets of a message alternate between route variants 0 and 1 (a second link per ring
    // edge, aries_ring_plan.h).
    void split_over_variants(bool on) { m_split = on; }
    // Message level (network_config::message_level): one packet per message (two halves
    // when split over variants) instead of packets of `packet_flits`.
    void whole_messages(bool on) { m_whole = on; }

    // Installs the delivery callback on `net` (call once, before running).
    void attach(noc_network& net);

    std::uint64_t next_cycle() const override;
    void generate(std::uint64_t now, noc_network& net) override;

    bool done() const { return m_ranks_done == static_cast<int>(m_groups.size()); }
    std::uint64_t finish_cycle() const { return m_finish; }
    std::uint64_t messages() const { return m_messages.size(); }
    std::uint64_t bytes() const { return m_bytes; }
    // The rounds (step groups) the slowest rank went through.
    std::size_t rounds() const { return m_max_groups; }
    std::string pending() const;

private:
    struct message {
        int src = 0, dst = 0;
        std::uint64_t bytes = 0;
        std::uint32_t packets_left = 0;
        bool delivered = false;
    };
    struct group {
        std::vector<int> sends, recvs;  // message ids
    };
    void enter(int rank, std::uint64_t now, noc_network& net);
    void delivered(std::uint32_t msg, std::uint64_t cycle);
    void step_done(int rank, std::uint64_t cycle);

    std::vector<int> m_router_of;
    double m_flit_bytes;
    int m_packet_flits;
    bool m_split = false;
    bool m_whole = false;
    std::vector<message> m_messages;
    std::vector<std::vector<group>> m_groups;  // [rank][group]
    std::vector<std::size_t> m_current;        // group index per rank
    std::vector<int> m_outstanding;            // steps of the current group not done
    std::vector<bool> m_entered;               // in its current group (not waiting to enter)
    using wake = std::pair<std::uint64_t, int>;
    std::priority_queue<wake, std::vector<wake>, std::greater<wake>> m_wake;
    int m_ranks_done = 0;
    std::uint64_t m_finish = 0, m_bytes = 0;
    std::size_t m_max_groups = 0;
};

// Rank -> router placements for a k x k array.
// Row-major: rank i on router i.
std::vector<int> row_major_mapping(int k);
// A Hamiltonian cycle of the mesh (k even): ring neighbours are mesh neighbours, so a ring
// all-reduce uses N one-hop links (aries.md Fig. 6(a)).  Row 0 left to right, rows 1..k-1 in
// a snake over columns 1..k-1, back down column 0.
std::vector<int> ring_mapping(int k);

}  // namespace trainvp::noc
