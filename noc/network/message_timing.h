// Message-level timing of the interposer NoC (DESIGN.md "Granularity is a knob"): a message
// (a whole collective transfer, or any packet) is not split into flits but moves as a fluid
// flow along its route.  The flows crossing a channel share it max-min fairly (progressive
// filling by fabric/flow/max_min_filler, the flow level's allocator; a channel carries
// 1/cycles_per_flit flits per cycle, a router's injection and ejection ports local_port_width, one
// flow at most one flit per cycle), which is what the flit level's round-robin switch allocation
// over 8-flit packets converges to when messages are long.  A flow competes for a channel from the
// cycle its head gets there (its pipeline latency after the start), not before.  A router's network
// interface injects `width` messages at a time in creation order, and moves on to the next when the
// current one's flits are all written and those left to send fit in the VC buffers along its route
// (buffer_depth per router), as the flit level's interface does.  Rates are recomputed whenever a
// flow starts or ends using a resource (event-driven, no per-cycle work), for the flows connected
// to that resource only (fabric/flow/flow_components, as the flow level does).  The head's pipeline
// latency is added analytically:
//     start     = created + stages - 1                 (the head's first switch)
//     finish    = start + fluid transfer of F flits    (F c at full rate)
//     delivered = finish - c + H (L + stages) + 1      (the tail's remaining hops + ejection)
// which at zero load is the flit level's H (s + L) + s + (F - 1) c exactly.  Left out: flit
// interleaving granularity, buffer back-pressure and VC limits (each flow always has a VC).
// Event counts (buffer, crossbar, allocation, link) are those the flit level makes for the
// same flits.  Pure C++.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "fabric/flow/flow_components.h"
#include "fabric/flow/max_min_filler.h"
#include "noc/link/link_timing.h"
#include "noc/topology/noc_topology.h"
#include "noc/topology/route_table.h"

namespace trainvp::noc {

struct network_counts;

class message_timing {
public:
    // `timing[c]`: channel c's latency and flit time.  `width`: flits per cycle a router's
    // injection and ejection ports move (local_port_width).  `packet_flits`: the flit level's
    // packet size, for the allocation counts (one VC allocation per packet per hop).
    message_timing(const noc_topology& topo, const route_table& routes,
                   const std::vector<link_timing>& timing, int pipeline_stages, int width,
                   int packet_flits, int buffer_depth, int eject_width = 0);

    // Adds a flow of `flits` flits from `src` to `dst` created at cycle `created` (not before
    // the last advance()), identified by `id`; adds the flit level's event counts to
    // `counts`, `channel_flits` and `forwarded`.  Returns the router-to-router hops.
    std::uint32_t add(std::uint32_t id, int src, int dst, std::uint64_t flits,
                      std::uint64_t created, int variant, network_counts& counts,
                      std::vector<std::uint64_t>& channel_flits,
                      std::vector<std::uint64_t>& forwarded);

    struct done {
        std::uint32_t id;
        std::uint64_t delivered;  // cycle the tail leaves the destination router
    };
    // Runs the flows up to time `t` (cycles) and appends the flows that finished to `out`.
    void advance(double t, std::vector<done>& out);
    // The earliest cycle at which a flow starts or finishes (UINT64_MAX: none).
    std::uint64_t next_event_cycle() const;
    bool idle() const { return m_flows.empty() && m_queued == 0; }

private:
    struct flow {
        std::uint32_t id = 0;
        std::uint32_t slot = 0;          // its number in m_components (m_index)
        double start = 0;                // cycle the head's first switch can happen
        double remaining = 0;            // flits not yet sent
        double rate = 0;                 // flits per cycle (0 until started)
        double cap = 1;                  // one flit per cycle, or less on slow links
        std::uint64_t tail_latency = 0;  // 1 - c: the tail ejects with the last flit sent
        std::vector<int> resources;
        // When the head reaches each resource, after `start`: a flow competes for a channel
        // only from then on.
        std::vector<double> reach;
        std::size_t reached = 0;  // resources[0, reached) are in use
        int src = 0;
        bool started = false;    // its head has switched: it takes bandwidth
        bool holds_slot = true;  // still being injected (resources[0] is the injection port)
        double slot_until = 0;   // earliest release: all flits written at 1 per cycle
        double buffered = 0;     // flits the VC buffers on its route hold
    };
    // Gives the free injection slots of `router` to its queued flows, in creation order.
    void admit(int router, double now);
    void rates();
    // Moves the started flows' fluid transfer on from m_t to `to` at their current rates
    // (no event in between) and sets m_t = to.
    void progress(double to);
    // Tells m_components the resources `fl` started or stopped using since it used
    // resources[lo, hi) (none after it is `gone`).
    void track(const flow& fl, std::size_t lo, std::size_t hi, bool gone);
    double next_time() const;

    const noc_topology& m_topo;
    const route_table& m_routes;
    const std::vector<link_timing>& m_timing;
    std::uint64_t m_stages;
    std::uint64_t m_packet_flits;
    std::vector<double> m_capacity;  // channels, then injection ports, then ejection ports
    std::vector<flow> m_flows;       // holding an injection slot (started or about to)
    // The flit level's network interface: a router injects `width` packets at a time, taken
    // from one queue in creation order; a flow holds its slot until its tail is injected.
    std::uint64_t m_width;
    double m_buffer_depth;
    std::vector<std::uint64_t> m_injecting;   // flows holding a slot, per router
    std::vector<std::deque<flow>> m_waiting;  // per router
    double m_t = 0;
    std::uint64_t m_queued = 0;
    fabric::max_min_filler m_filler;  // the rates (the flow level's allocator)
    // The started flows per resource they use, and what changed since the last rates().
    fabric::flow_components m_components;
    std::vector<std::size_t> m_index;  // per slot: the flow's place in m_flows
    std::vector<std::uint32_t> m_free_slots;
    std::vector<int> m_released;  // sources whose slot freed this cycle
};

}  // namespace trainvp::noc
