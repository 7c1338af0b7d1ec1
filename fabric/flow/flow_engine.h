// Max-min fair sharing of capacity among fluid flows (the flow level: DESIGN.md "Granularity is
// a knob"); the rates come from max_min_filler, which the NoC's message level uses too.  Resources
// (a link direction, a NIC's serialiser, a switch port) have a capacity in bytes per second; a flow
// moves its bytes over a set of resources at one rate, and the rates are the max-min fair
// allocation (progressive filling: every flow's rate rises together until a resource it uses is
// full or the flow reaches its own cap; those flows are frozen, and the rest go on).  Rates change
// only when a flow starts or finishes, and then only in the connected part of the flow/resource
// graph that flow touches: a ring on a non-blocking switch has flows that share nothing, so a
// change costs O(1), not O(flows).
//
// Times are picoseconds (double: rates are fractional).  State is compact arrays per flow and
// per resource; finished flows' slots are reused.  Pure C++, tested alone
// (tests/unit/fabric/test_flow_engine.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "fabric/flow/flow_components.h"
#include "fabric/flow/max_min_filler.h"

namespace trainvp::fabric {

class flow_engine {
public:
    // `capacity[r]`: resource r's capacity, bytes per second (> 0).
    explicit flow_engine(std::vector<double> capacity);

    // A flow of `bytes` (> 0) over resources `res` (each at most once), starting at the
    // engine's time (the last advance), at most `cap` bytes per second (0: no cap of its
    // own), named `tag` in what advance() reports.
    void add(std::uint64_t tag, double bytes, const std::vector<int>& res, double cap = 0.0);

    // The time (ps) the next flow finishes at the current rates; +infinity when none runs.
    double next_finish() const;
    // Moves the engine's time to `t_ps` (>= its time, <= next_finish()) and appends the tags
    // of the flows that finished by then to `finished`, in the order they finished (ties:
    // in the order they were added).
    void advance(double t_ps, std::vector<std::uint64_t>& finished);

    double now() const { return m_now; }
    std::size_t active() const { return m_active; }
    // A running flow's current rate, bytes per second (tests; -1 when `tag` is not running).
    double rate_of(std::uint64_t tag) const;
    // Bytes each resource has carried so far (utilisation statistics).
    double carried(int r) const;
    std::size_t resources() const { return m_capacity.size(); }

private:
    struct flow {
        std::uint64_t tag = 0;
        std::uint64_t order = 0;  // when it was added (ties)
        double remaining = 0;     // bytes at m_since
        double rate = 0;          // bytes per second
        double since = 0;         // ps: when `remaining` was last brought up to date
        double cap = 0;
        std::uint32_t version = 0;  // bumped when its finish time changes (heap entries)
        std::vector<int> res;       // its resources (the slot's vector is reused)
        bool live = false;
    };
    struct event {
        double at;
        std::uint64_t order;
        std::uint32_t flow, version;
        bool operator>(const event& o) const { return at != o.at ? at > o.at : order > o.order; }
    };

    // Brings flow f's remaining bytes (and its resources' carried bytes) to the engine's time.
    void settle(std::uint32_t f);
    // Recomputes the rates of the flows connected (through shared resources) to the
    // resources touched since the last rebalance, and reschedules their finishes.
    void rebalance();
    void schedule(std::uint32_t f);
    // Drops heap entries of flows that finished or were rescheduled.
    void prune() const;

    std::vector<double> m_capacity;
    std::vector<double> m_carried;  // bytes, up to each user's `since`
    std::vector<flow> m_flows;
    std::vector<std::uint32_t> m_free;  // reusable flow slots
    mutable std::priority_queue<event, std::vector<event>, std::greater<event>> m_events;
    double m_now = 0;
    std::uint64_t m_next_order = 0;
    std::size_t m_active = 0;
    flow_components m_components;  // live flows per resource; what a change touches
    max_min_filler m_filler;       // the rates of a component
};

}  // namespace trainvp::fabric
