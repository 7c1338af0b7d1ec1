// Max-min fair rates by progressive filling: the one allocator of every fluid level (the
// flow level's flow_engine and the NoC's message level, noc/network/message_timing).  Flows
// use sets of resources of given capacities and may have a cap of their own; every unfrozen
// flow's rate rises together until a resource it uses is full (its flows freeze there) or it
// reaches its cap, and the rest go on.  Units are the caller's (bytes per second, flits per
// cycle): a resource is full, or a flow at its cap, within a relative 1e-12 (sums of doubles).
//
// One problem at a time: clear(), then add_flow() for each flow followed by use() for each of
// its resources, then solve().  Scratch is kept between problems (no allocation per solve once
// warm), and a solve touches only the resources its flows use: a round of filling costs the
// resources in play plus the flows it freezes, not a pass over every flow.  Pure C++, tested alone
// (tests/unit/fabric/test_max_min_filler.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainvp::fabric {

class max_min_filler {
public:
    // `capacity[r]`: resource r's capacity (> 0; the caller checks).
    explicit max_min_filler(std::vector<double> capacity = {});

    std::size_t resources() const { return m_capacity.size(); }
    double capacity(int r) const { return m_capacity[static_cast<std::size_t>(r)]; }

    // Starts a new problem.
    void clear();
    // A flow capped at `cap` (0: no cap of its own); its resources follow with use().
    void add_flow(double cap);
    // The last added flow uses resource r (each resource at most once per flow).
    void use(int r);
    std::size_t flows() const { return m_cap.size(); }

    // The max-min fair rates, one per flow in the order added.  A flow with neither resources
    // nor a cap has no finite fair rate: std::logic_error.
    const std::vector<double>& solve();

private:
    std::vector<double> m_capacity;
    // The problem: flow i uses m_res[m_first[i] .. m_first[i + 1]).
    std::vector<int> m_res;
    std::vector<std::size_t> m_first;
    std::vector<double> m_cap;
    // Scratch.
    std::vector<double> m_rate;
    std::vector<bool> m_frozen;         // per flow
    std::vector<int> m_play;            // resources the problem uses
    std::vector<int> m_live;            // of those, the ones with users still rising
    std::vector<std::uint32_t> m_mark;  // per resource: epoch it was put in m_play
    std::uint32_t m_epoch = 0;
    std::vector<double> m_left;  // per resource: capacity not given out yet
    std::vector<int> m_rising;   // per resource: users still rising
    // Per resource in play: its users are m_user[m_user_first[r], m_user_end[r]).
    std::vector<std::size_t> m_user_first, m_user_end;
    std::vector<std::uint32_t> m_user;
    std::vector<std::uint32_t> m_by_cap;  // the capped flows, lowest cap first
};

}  // namespace trainvp::fabric
