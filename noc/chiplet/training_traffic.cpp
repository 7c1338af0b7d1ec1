#include "noc/chiplet/training_traffic.h"

#include <algorithm>
#include <limits>

#include "noc/network/noc_network.h"

namespace trainvp::noc {

training_traffic::training_traffic(std::vector<gradient_bucket_plan> buckets,
                                   std::uint64_t compute_end, collective_maker make)
    : m_buckets(std::move(buckets)), m_compute_end(compute_end), m_make(std::move(make)) {}

std::uint64_t training_traffic::next_start() const {
    if (m_next >= m_buckets.size()) return std::numeric_limits<std::uint64_t>::max();
    std::uint64_t at = m_buckets[m_next].ready;
    // The next bucket starts the cycle after the previous all-reduce's last delivery.
    if (m_next > 0) {
        const std::uint64_t prev = (m_current && m_current->done()) ? m_current->finish_cycle()
                                                                    : m_buckets[m_next - 1].finish;
        at = std::max(at, prev + 1);
    }
    return at;
}

std::uint64_t training_traffic::next_cycle() const {
    if (m_current && !m_current->done()) return m_current->next_cycle();
    return next_start();
}

void training_traffic::generate(std::uint64_t now, noc_network& net) {
    if (m_current && m_current->done()) {
        m_buckets[m_next - 1].finish = m_current->finish_cycle();
        m_current.reset();
    }
    if (!m_current && m_next < m_buckets.size() && next_start() <= now) {
        gradient_bucket_plan& b = m_buckets[m_next++];
        b.start = now;
        m_current = m_make(b.bytes);
        m_current->attach(net);
    }
    if (m_current) {
        m_current->generate(now, net);
        // A collective with nothing to send (zero bytes) is done at once.
        if (m_current->done()) {
            m_buckets[m_next - 1].finish = std::max(now, m_current->finish_cycle());
            m_current.reset();
        }
    }
}

bool training_traffic::done() const {
    return m_next == m_buckets.size() && (!m_current || m_current->done());
}

std::uint64_t training_traffic::communication_end() const {
    if (m_buckets.empty()) return 0;
    if (m_current && m_current->done()) return m_current->finish_cycle();
    return m_buckets.back().finish;
}

std::uint64_t training_traffic::iteration_end() const {
    return std::max(m_compute_end, communication_end());
}

std::uint64_t training_traffic::communication_cycles() const {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < m_buckets.size(); ++i) {
        const std::uint64_t fin = (i + 1 == m_next && m_current && m_current->done())
                                      ? m_current->finish_cycle()
                                      : m_buckets[i].finish;
        if (fin > m_buckets[i].start) sum += fin - m_buckets[i].start;
    }
    return sum;
}

std::string training_traffic::pending() const {
    if (done()) return {};
    std::string s = std::to_string(m_buckets.size() - m_next) + " of " +
                    std::to_string(m_buckets.size()) + " gradient buckets not started";
    if (m_current) s += "; bucket " + m_buckets[m_next - 1].name + ": " + m_current->pending();
    return s;
}

}  // namespace trainvp::noc
