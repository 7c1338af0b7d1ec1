// The interposer NoC as plain C++: routers, links, network interfaces and a compact event
// queue, advanced cycle by cycle but visiting only what has work in a cycle (routers holding
// flits, network interfaces with packets to inject, the cycle's flit and credit arrivals),
// and jumping over cycles in which nothing happens.  The SystemC block noc.interposer drives
// it in step with simulated time.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <vector>

#include "noc/link/link_timing.h"
#include "noc/network/message_timing.h"
#include "noc/router/noc_router.h"
#include "noc/topology/noc_topology.h"
#include "noc/topology/route_table.h"
#include "traces/stat.h"

namespace trainvp::noc {

class traffic_source;

struct network_config {
    int vcs = 4;                       // per input port
    int buffer_depth = 32;             // flits per VC
    int pipeline_stages = 2;           // router stages before switch traversal
    double pitch_latency_cycles = 10;  // one-pitch link latency
    double flit_bytes = 68;
    double bytes_per_cycle = 68;  // link bandwidth / router clock
    int local_port_width = 1;     // flits per cycle injected and ejected at a router
    bool circuit_local = false;   // ejection takes a flit per cycle from every input port
    // Message level (message_timing.h): a packet reserves its route analytically instead of
    // moving flit by flit; packets may then be longer than 65535 flits.
    bool message_level = false;
    int packet_flits = 8;  // the flit level's packet size, for allocation counts
};

// Event counts the energy model and the statistics read.
struct network_counts {
    std::uint64_t buffer_writes = 0, buffer_reads = 0, crossbar = 0;
    std::uint64_t vc_allocations = 0, switch_allocations = 0;
    std::uint64_t flit_hops = 0;         // router-to-router link traversals
    double link_flit_pitches = 0;        // sum over link traversals of the link's length
    std::uint64_t bypass_flit_hops = 0;  // of flit_hops, those on ARIES bypass segments
    std::uint64_t packets_delivered = 0, flits_delivered = 0, packets_created = 0;
};

struct noc_packet {
    int src = 0, dst = 0;
    std::uint32_t flits = 1;
    std::uint16_t hops = 0;
    bool measured = false;
    std::uint8_t variant = 0;  // route variant (route_table::alternate)
    std::uint64_t created = 0, injected = 0;
    std::uint64_t tag = 0;  // the source's own reference (a collective's message)
};

class noc_network final {
public:
    noc_network(const noc_topology& topo, const route_table& routes, const network_config& cfg);

    // Queues a packet at the network interface of router `src`, created at cycle `created`
    // (not before now()).  Returns its id, valid until it is delivered.
    std::uint32_t add_packet(int src, int dst, int flits, std::uint64_t created, bool measured,
                             std::uint64_t tag = 0, int variant = 0);
    void set_source(traffic_source* s) { m_source = s; }
    // Flits ejected in [begin, end) are counted as accepted throughput.
    void set_window(std::uint64_t begin, std::uint64_t end) {
        m_window_begin = begin;
        m_window_end = end;
    }

    // Simulates the cycles before `end`.
    void run_until(std::uint64_t end);
    std::uint64_t now() const { return m_now; }
    // Nothing in flight, queued or scheduled (a source may still create packets later).
    bool idle() const {
        return m_active.empty() && m_active_ni.empty() && m_pending_events == 0 &&
               m_deliveries.empty() && (!m_message || m_message->idle());
    }

    // Called when the tail of a packet is ejected, with the cycle it leaves the router.
    std::function<void(const noc_packet&, std::uint64_t cycle)> on_delivered;
    // Called when a buffer of (router, input port) gains or loses a flit (VCD); unset = free.
    std::function<void(int router, int port, int delta, std::uint64_t cycle)> on_occupancy;

    const noc_topology& topology() const { return m_topo; }
    const network_config& config() const { return m_cfg; }
    const link_timing& timing(int channel) const {
        return m_timing[static_cast<std::size_t>(channel)];
    }
    const noc_router& router(int r) const { return m_routers[static_cast<std::size_t>(r)]; }
    network_counts& counts() { return m_counts; }
    const network_counts& counts() const { return m_counts; }
    void reset_counts() { m_counts = network_counts(); }
    const distribution& latency() const { return m_latency; }
    const distribution& network_latency() const { return m_net_latency; }
    const distribution& hops() const { return m_hops; }
    std::uint64_t window_flits() const { return m_window_flits; }
    std::uint64_t measured_outstanding() const { return m_measured_outstanding; }
    std::uint64_t in_flight() const { return m_live; }
    // Packets ever added and ever delivered (never reset; the end-of-run audit's conservation).
    std::uint64_t packets_added() const { return m_added_total; }
    std::uint64_t packets_delivered_total() const { return m_delivered_total; }
    // Flits delivered through each router's ejection port and forwarded by each router.
    const std::vector<std::uint64_t>& forwarded() const { return m_forwarded; }
    // Flits that crossed each channel (index of topology().channels()).
    const std::vector<std::uint64_t>& channel_flits() const { return m_channel_flits; }
    // Channels that carried at least one flit.
    std::size_t channels_used() const;

    // Router callbacks.
    struct route_result {
        int port, vc_class;
    };
    route_result route(int router, int in_port, int in_class, std::uint32_t packet) const;
    void on_leave(int router, int in_port, int vc, std::uint64_t now);
    std::uint32_t send(int router, int out_port, int vc, const noc_flit& f, std::uint64_t now);
    void eject(int router, const noc_flit& f, std::uint64_t now);
    void count_vc_allocation() { ++m_counts.vc_allocations; }

private:
    enum class event_kind : std::uint8_t { FLIT, CREDIT };
    struct event {
        event_kind kind;
        std::uint8_t port, vc;
        std::uint32_t router;
        noc_flit flit;
    };
    // Injects up to local_port_width packets at a time, one flit of each per cycle.
    struct injection {
        std::int64_t current = -1;
        int vc = 0, seq = 0;
    };
    struct interface {
        std::deque<std::uint32_t> queue;
        std::vector<injection> slots;
        int next_vc = 0;
        std::vector<int> credits;
        bool active = false;
        bool busy() const {
            if (!queue.empty()) return true;
            for (const auto& s : slots) {
                if (s.current >= 0) return true;
            }
            return false;
        }
    };

    void schedule(std::uint64_t at, const event& e);
    void activate(int r);
    void inject(int node, std::uint64_t now);
    void inject_slot(int node, interface& ni, injection& slot, std::uint64_t now);
    void cycle(std::uint64_t now);
    void run_messages(std::uint64_t end);
    void deliver(std::uint32_t packet, std::uint64_t at);

    const noc_topology& m_topo;
    const route_table& m_routes;
    network_config m_cfg;
    std::vector<link_timing> m_timing;
    std::vector<noc_router> m_routers;
    std::vector<interface> m_ni;
    std::vector<noc_packet> m_packets;
    std::vector<std::uint32_t> m_free_packets;
    std::vector<std::vector<event>> m_wheel;
    std::uint64_t m_wheel_mask = 0;
    std::uint64_t m_pending_events = 0;
    std::vector<int> m_active, m_still_active, m_active_ni, m_still_active_ni;
    traffic_source* m_source = nullptr;
    std::uint64_t m_now = 0;
    std::uint64_t m_window_begin = 0, m_window_end = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t m_window_flits = 0, m_measured_outstanding = 0, m_live = 0;
    std::uint64_t m_added_total = 0, m_delivered_total = 0;
    network_counts m_counts;
    distribution m_latency, m_net_latency, m_hops;
    std::vector<std::uint64_t> m_forwarded;
    std::vector<std::uint64_t> m_channel_flits;
    // Message level: the analytic model and the pending deliveries (cycle, packet).
    std::unique_ptr<message_timing> m_message;
    using delivery = std::pair<std::uint64_t, std::uint32_t>;
    std::priority_queue<delivery, std::vector<delivery>, std::greater<delivery>> m_deliveries;
    std::vector<message_timing::done> m_done;
};

}  // namespace trainvp::noc
