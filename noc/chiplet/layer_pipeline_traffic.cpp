#include "noc/chiplet/layer_pipeline_traffic.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "noc/network/noc_network.h"

namespace trainvp::noc {

namespace {
constexpr std::uint64_t k_never = std::numeric_limits<std::uint64_t>::max();
}

layer_pipeline_traffic::layer_pipeline_traffic(std::vector<pipeline_layer> layers,
                                               std::vector<gradient_bucket_plan> buckets,
                                               int iterations, policy p,
                                               training_traffic::collective_maker make)
    : m_layers(std::move(layers)),
      m_buckets(std::move(buckets)),
      m_close(m_buckets.size(), -1),
      m_iterations(std::max(1, iterations)),
      m_policy(p),
      m_make(std::move(make)),
      m_backward_end(static_cast<std::size_t>(m_iterations), 0),
      m_slots(static_cast<std::size_t>(m_iterations) * m_buckets.size()) {
    // A bucket closes at its lowest layer: the last of its layers the backward pass reaches.
    for (std::size_t l = 0; l < m_layers.size(); ++l) {
        const int b = m_layers[l].bucket;
        if (b < 0) continue;
        if (static_cast<std::size_t>(b) >= m_buckets.size()) {
            throw std::invalid_argument("layer_pipeline_traffic: a layer names no bucket");
        }
        if (m_close[static_cast<std::size_t>(b)] < 0)
            m_close[static_cast<std::size_t>(b)] = static_cast<int>(l);
    }
    for (std::size_t b = 0; b < m_buckets.size(); ++b) {
        if (m_close[b] < 0) throw std::invalid_argument("layer_pipeline_traffic: an empty bucket");
    }
}

bool layer_pipeline_traffic::blocked() const {
    const int n = static_cast<int>(m_layers.size());
    if (m_op >= n || m_it == 0) return false;
    const int b = m_layers[static_cast<std::size_t>(m_op)].bucket;
    return b >= 0 && !at(m_it - 1, b).done;
}

void layer_pipeline_traffic::advance_compute(std::uint64_t now) {
    const int n = static_cast<int>(m_layers.size());
    while (m_it < m_iterations) {
        if (m_running) {
            if (m_op_end > now) return;
            if (m_op >= n) {
                // The backward pass of layer l ends: the bucket it closes is ready.
                const int l = 2 * n - 1 - m_op;
                const int b = m_layers[static_cast<std::size_t>(l)].bucket;
                if (b >= 0 && m_close[static_cast<std::size_t>(b)] == l) {
                    slot& s = at(m_it, b);
                    s.ready = m_op_end;
                    s.queued = true;
                    m_queue.emplace_back(m_it, b);
                }
            }
            m_free_at = m_op_end;
            m_running = false;
            if (++m_op == 2 * n) {
                m_backward_end[static_cast<std::size_t>(m_it)] = m_op_end;
                ++m_it;
                m_op = 0;
            }
            continue;
        }
        std::uint64_t start = m_free_at;
        std::uint64_t length = 0;
        if (m_op < n) {
            const pipeline_layer& l = m_layers[static_cast<std::size_t>(m_op)];
            // The forward pass of a layer needs the previous iteration's all-reduced gradient.
            if (m_it > 0 && l.bucket >= 0) {
                const slot& dep = at(m_it - 1, l.bucket);
                if (!dep.done) return;
                start = std::max(start, dep.finish + 1);
            }
            length = l.forward;
        } else {
            length = m_layers[static_cast<std::size_t>(2 * n - 1 - m_op)].backward;
        }
        m_running = true;
        m_op_end = start + length;
    }
}

std::uint64_t layer_pipeline_traffic::next_cycle() const {
    std::uint64_t next = k_never;
    if (m_current) {
        next = m_current->done() ? m_current->finish_cycle() + 1 : m_current->next_cycle();
    } else if (!m_queue.empty()) {
        std::uint64_t ready = k_never;
        for (const auto& q : m_queue) ready = std::min(ready, at(q.first, q.second).ready);
        next = ready;
    }
    if (m_it < m_iterations) {
        if (m_running) {
            next = std::min(next, m_op_end);
        } else if (!blocked()) {
            next = std::min(next, m_free_at);
        }
    }
    return next;
}

void layer_pipeline_traffic::generate(std::uint64_t now, noc_network& net) {
    if (m_current && m_current->done()) {
        slot& s = at(m_current_id.first, m_current_id.second);
        s.finish = m_current->finish_cycle();
        s.done = true;
        m_current.reset();
    }
    advance_compute(now);
    if (!m_current && !m_queue.empty()) {
        // LIFO: the bucket produced last (the lowest layers, which the next forward pass needs
        // first); FIFO: in the order produced.
        const auto it = m_policy == policy::LIFO ? std::prev(m_queue.end()) : m_queue.begin();
        m_current_id = *it;
        m_queue.erase(it);
        slot& s = at(m_current_id.first, m_current_id.second);
        s.start = now;
        m_current = m_make(m_buckets[static_cast<std::size_t>(m_current_id.second)].bytes);
        m_current->attach(net);
    }
    if (m_current) {
        m_current->generate(now, net);
        if (m_current->done() && m_current->finish_cycle() <= now) {
            // Nothing to send (zero bytes): done at once.
            slot& s = at(m_current_id.first, m_current_id.second);
            s.finish = now;
            s.done = true;
            m_current.reset();
        }
    }
}

bool layer_pipeline_traffic::done() const {
    if (m_it < m_iterations || m_current || !m_queue.empty()) return false;
    return std::all_of(m_slots.begin(), m_slots.end(), [](const slot& s) { return s.done; });
}

std::string layer_pipeline_traffic::pending() const {
    if (done()) return {};
    std::string s = "iteration " + std::to_string(m_it) + " of " + std::to_string(m_iterations) +
                    " at compute op " + std::to_string(m_op) + ", " +
                    std::to_string(m_queue.size()) + " all-reduce(s) queued";
    if (m_current) {
        s += "; bucket " + m_buckets[static_cast<std::size_t>(m_current_id.second)].name + ": " +
             m_current->pending();
    }
    return s;
}

std::uint64_t layer_pipeline_traffic::iteration_end(int it) const {
    std::uint64_t end = m_backward_end[static_cast<std::size_t>(it)];
    for (std::size_t b = 0; b < m_buckets.size(); ++b) {
        end = std::max(end, at(it, static_cast<int>(b)).finish);
    }
    return end;
}

std::uint64_t layer_pipeline_traffic::run_end() const { return iteration_end(m_iterations - 1); }

std::uint64_t layer_pipeline_traffic::period() const {
    if (m_iterations == 1) return iteration_end(0);
    return iteration_end(m_iterations - 1) - iteration_end(m_iterations - 2);
}

std::uint64_t layer_pipeline_traffic::compute_cycles() const {
    std::uint64_t sum = 0;
    for (const auto& l : m_layers) sum += l.forward + l.backward;
    return sum;
}

std::uint64_t layer_pipeline_traffic::communication_cycles() const {
    std::uint64_t sum = 0;
    for (std::size_t b = 0; b < m_buckets.size(); ++b) {
        const slot& s = at(m_iterations - 1, static_cast<int>(b));
        if (s.finish > s.start) sum += s.finish - s.start;
    }
    return sum;
}

std::vector<gradient_bucket_plan> layer_pipeline_traffic::last_buckets() const {
    std::vector<gradient_bucket_plan> out = m_buckets;
    for (std::size_t b = 0; b < out.size(); ++b) {
        const slot& s = at(m_iterations - 1, static_cast<int>(b));
        out[b].ready = s.ready;
        out[b].start = s.start;
        out[b].finish = s.finish;
    }
    return out;
}

}  // namespace trainvp::noc
