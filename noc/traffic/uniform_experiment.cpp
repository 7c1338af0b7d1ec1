#include "noc/traffic/uniform_experiment.h"

#include "noc/network/noc_network.h"

namespace trainvp::noc {

void uniform_experiment::settings::declare(param_list<settings>& d) {
    d.param("injection_rate", &settings::injection_rate, "0",
            "Offered load of uniform random traffic in flits/node/cycle (Bernoulli packet "
            "creation per node per cycle, destinations uniform among the other nodes); 0: none")
        .range("0", "1");
    d.param("warmup_cycles", &settings::warmup_cycles, "2000",
            "Cycles of traffic before the measurement window (packets created then are not "
            "measured)")
        .range("0", "2^40");
    d.param("measure_cycles", &settings::measure_cycles, "10000",
            "Measurement window: packets created in it are measured, flits ejected in it give "
            "the accepted throughput")
        .range("1", "2^40");
    d.param("drain_cycles", &settings::drain_cycles, "50000",
            "Cycles after the window to deliver the measured packets; beyond saturation they "
            "never all arrive and the run stops here, with `unfinished_packets` > 0")
        .range("0", "2^40");
}

uniform_experiment::uniform_experiment(const settings& s, int packet_flits, std::uint64_t seed,
                                       noc_network& net)
    : m_s(s), m_net(net) {
    m_traffic =
        std::make_unique<uniform_traffic>(net.topology().routers(), s.injection_rate, packet_flits,
                                          s.warmup_cycles, s.measure_cycles, stop_cycle(), seed);
    net.set_source(m_traffic.get());
    net.set_window(s.warmup_cycles, window_end());
}

bool uniform_experiment::finished(std::uint64_t now) const {
    return now >= stop_cycle() || (now >= window_end() && m_net.measured_outstanding() == 0);
}

double uniform_experiment::offered_load() const {
    const double nodes = m_net.topology().routers();
    return static_cast<double>(m_traffic->created_in_window()) / nodes /
           static_cast<double>(m_s.measure_cycles);
}

double uniform_experiment::accepted_throughput() const {
    const double nodes = m_net.topology().routers();
    return static_cast<double>(m_net.window_flits()) / nodes /
           static_cast<double>(m_s.measure_cycles);
}

}  // namespace trainvp::noc
