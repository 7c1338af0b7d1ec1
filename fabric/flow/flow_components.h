// The connected parts of a fluid level's flow/resource graph that a change touches: the one
// piece of "rebalance only what changed" shared by the flow level's flow_engine and the NoC's
// message level (noc/network/message_timing).  Flows (the caller's slot numbers) use resources;
// a flow starting or stopping to use a resource touches it, and collect() returns the flows
// connected to the touched resources through shared resources, transitively.  Max-min fair
// rates of one component do not depend on any other component's flows, so recomputing just
// these gives the rates a recomputation of every flow would (up to the order of floating-point
// sums: progressive filling over fewer flows takes fewer, larger steps).  Pure C++, tested alone
// (tests/unit/fabric/test_flow_components.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainvp::fabric {

class flow_components {
public:
    explicit flow_components(std::size_t resources = 0);

    // Flow `f` starts using resource `r` (at most once); `r` is touched.
    void use(std::uint32_t f, int r);
    // Flow `f` stops using resource `r`; `r` is touched.
    void drop(std::uint32_t f, int r);
    // The flows using `r`, in the order they started to.
    const std::vector<std::uint32_t>& users(int r) const {
        return m_users[static_cast<std::size_t>(r)];
    }
    // Whether a resource was touched since the last collect().
    bool touched() const { return !m_seed.empty(); }

    // The flows connected through shared resources to the resources touched since the last
    // collect(), each once, in the order found (breadth first from the touched resources, in
    // the order touched); forgets the touched set.  `resources_of(f)` is flow f's resources
    // (anything a range-for takes, of int): those it uses now.
    template <class Resources>
    const std::vector<std::uint32_t>& collect(Resources&& resources_of);

private:
    // Starts a search: the touched resources become the component's first resources.
    void begin();
    void reach(int r) {
        auto& m = m_mark_res[static_cast<std::size_t>(r)];
        if (m == m_epoch) return;
        m = m_epoch;
        m_comp_res.push_back(r);
    }

    std::vector<std::vector<std::uint32_t>> m_users;  // per resource
    std::vector<int> m_seed;                          // touched resources (repeats allowed)
    // Scratch of collect().
    std::vector<std::uint32_t> m_comp_flows;
    std::vector<int> m_comp_res;
    std::vector<std::uint32_t> m_mark_flow;  // epoch per flow / resource
    std::vector<std::uint32_t> m_mark_res;
    std::uint32_t m_epoch = 0;
};

template <class Resources>
const std::vector<std::uint32_t>& flow_components::collect(Resources&& resources_of) {
    begin();
    for (std::size_t i = 0; i < m_comp_res.size(); ++i) {
        // Index, not reference: reach() grows m_comp_res.
        for (std::uint32_t f : m_users[static_cast<std::size_t>(m_comp_res[i])]) {
            if (m_mark_flow[f] == m_epoch) continue;
            m_mark_flow[f] = m_epoch;
            m_comp_flows.push_back(f);
            for (int r : resources_of(f)) reach(r);
        }
    }
    return m_comp_flows;
}

}  // namespace trainvp::fabric
