#include "workloads/iteration/iteration_source.h"

#include <stdexcept>

namespace trainvp::workloads {

iteration_source::iteration_source(std::shared_ptr<const training_builder> builder,
                                   std::size_t rank, bool aggregator, bool names)
    : m_builder(std::move(builder)), m_rank(rank), m_aggregator(aggregator), m_with_names(names) {
    m_weights_ready0.assign(m_builder->buckets().size(), {});
    m_first = m_builder->build_iteration(m_rank, m_aggregator, 0, 0, m_weights_ready0, names);
    m_per_iteration = m_first.size();
    for (const ops::op& o : m_first) ++m_unit_per_iteration[static_cast<std::size_t>(o.unit)];
}

std::size_t iteration_source::chunks() const {
    return static_cast<std::size_t>(m_builder->iterations());
}

std::array<std::size_t, ops::k_op_units> iteration_source::unit_sizes() const {
    std::array<std::size_t, ops::k_op_units> out = m_unit_per_iteration;
    for (std::size_t& n : out) n *= chunks();
    return out;
}

std::vector<ops::op> iteration_source::build(std::size_t c, bool names) const {
    std::vector<std::vector<std::size_t>> ready(m_weights_ready0.size());
    if (c > 0) {
        const std::size_t shift = (c - 1) * m_per_iteration;
        for (std::size_t k = 0; k < ready.size(); ++k) {
            for (std::size_t i : m_weights_ready0[k]) ready[k].push_back(i + shift);
        }
    }
    return m_builder->build_iteration(m_rank, m_aggregator, static_cast<int>(c),
                                      c * m_per_iteration, ready, names);
}

std::vector<ops::op> iteration_source::take(std::size_t c) {
    if (c >= chunks())
        throw std::logic_error("iteration_source: no iteration " + std::to_string(c));
    if (c == 0 && !m_first.empty()) {
        std::vector<ops::op> out;
        out.swap(m_first);
        return out;
    }
    std::vector<ops::op> out = build(c, m_with_names);
    if (out.size() != m_per_iteration) {
        throw std::logic_error("iteration_source: iteration " + std::to_string(c) + " has " +
                               std::to_string(out.size()) + " ops, iteration 0 " +
                               std::to_string(m_per_iteration));
    }
    return out;
}

std::string iteration_source::name_of(std::size_t i) {
    if (m_per_iteration == 0 || i >= size()) return {};
    const std::size_t c = i / m_per_iteration;
    if (c != m_named_iteration) {
        m_names.clear();
        for (ops::op& o : build(c, true)) m_names.push_back(std::move(o.name));
        m_named_iteration = c;
    }
    return m_names[i - c * m_per_iteration];
}

}  // namespace trainvp::workloads
