// Synthetic uniform-random traffic, the standard NoC load (Dally & Towles, "Principles and
// Practices of Interconnection Networks", 2004, ch. 3 and 23): each node creates a packet of
// `packet_flits` flits in a cycle with probability rate / packet_flits (Bernoulli per node per
// cycle, drawn as geometric gaps so idle cycles cost nothing), to a destination drawn
// uniformly among the other nodes.  Packets created in [warmup, warmup + measure) are
// measured.  Seeded and deterministic.
#pragma once

#include <cstdint>
#include <queue>
#include <random>
#include <vector>

#include "noc/network/traffic_source.h"

namespace trainvp::noc {

class uniform_traffic : public traffic_source {
public:
    // `rate`: offered load in flits per node per cycle; `stop`: no packet is created from this
    // cycle on.
    uniform_traffic(int nodes, double rate, int packet_flits, std::uint64_t warmup,
                    std::uint64_t measure, std::uint64_t stop, std::uint64_t seed);

    std::uint64_t next_cycle() const override;
    void generate(std::uint64_t now, noc_network& net) override;

    std::uint64_t created_in_window() const { return m_window_flits; }

private:
    std::uint64_t gap();
    double uniform();

    int m_nodes, m_flits;
    double m_p;
    std::uint64_t m_warmup, m_measure, m_stop;
    std::mt19937_64 m_rng;
    using entry = std::pair<std::uint64_t, int>;  // (cycle, node)
    std::priority_queue<entry, std::vector<entry>, std::greater<entry>> m_next;
    std::uint64_t m_window_flits = 0;
};

}  // namespace trainvp::noc
