#include "workloads/iteration/iteration_source.h"

#include <stdexcept>

namespace trainvp::workloads {

iteration_source::iteration_source(std::shared_ptr<const training_builder> builder,
                                   std::size_t rank, bool aggregator)
    : m_builder(std::move(builder)), m_rank(rank), m_aggregator(aggregator) {
    m_weights_ready0.assign(m_builder->buckets().size(), {});
    const std::vector<ops::op> first =
        m_builder->build_iteration(m_rank, m_aggregator, 0, 0, m_weights_ready0);
    m_per_iteration = first.size();
    for (const ops::op& o : first) ++m_unit_per_iteration[static_cast<std::size_t>(o.unit)];
}

std::size_t iteration_source::chunks() const {
    return static_cast<std::size_t>(m_builder->iterations());
}

std::array<std::size_t, ops::k_op_units> iteration_source::unit_sizes() const {
    std::array<std::size_t, ops::k_op_units> out = m_unit_per_iteration;
    for (std::size_t& n : out) n *= chunks();
    return out;
}

std::vector<ops::op> iteration_source::take(std::size_t c) {
    if (c >= chunks())
        throw std::logic_error("iteration_source: no iteration " + std::to_string(c));
    std::vector<std::vector<std::size_t>> ready(m_weights_ready0.size());
    if (c > 0) {
        const std::size_t shift = (c - 1) * m_per_iteration;
        for (std::size_t k = 0; k < ready.size(); ++k) {
            for (std::size_t i : m_weights_ready0[k]) ready[k].push_back(i + shift);
        }
    }
    std::vector<ops::op> out = m_builder->build_iteration(m_rank, m_aggregator, static_cast<int>(c),
                                                          c * m_per_iteration, ready);
    if (out.size() != m_per_iteration) {
        throw std::logic_error("iteration_source: iteration " + std::to_string(c) + " has " +
                               std::to_string(out.size()) + " ops, iteration 0 " +
                               std::to_string(m_per_iteration));
    }
    return out;
}

}  // namespace trainvp::workloads
