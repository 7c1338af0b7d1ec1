// One rank's training op stream, handed out one iteration at a time (ops::op_source): the host
// materialises an iteration when its units reach it and drops it once done, so a long run
// holds a few iterations' ops instead of all of them (ip/host/README.md, "Soak").  Pure C++.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "workloads/iteration/training_builder.h"
#include "workloads/ops/op_source.h"

namespace trainvp::workloads {

class iteration_source : public ops::op_source {
public:
    // rank: 0-based in ring order; rank == builder->ranks() with `aggregator` set: the
    // aggregator.  names = false: the ops handed out are unnamed where naming them costs
    // (training_builder::build_iteration); name_of still gives every op's name.
    iteration_source(std::shared_ptr<const training_builder> builder, std::size_t rank,
                     bool aggregator, bool names = true);

    std::size_t chunks() const override;
    // Iteration c; the same ops, in the same order and with the same indices, as the slice of
    // worker_ops(rank) (aggregator_ops()) that holds it.
    std::vector<ops::op> take(std::size_t c) override;
    std::size_t size() const override { return m_per_iteration * chunks(); }
    std::array<std::size_t, ops::k_op_units> unit_sizes() const override;
    // Builds the op's iteration again (once per iteration asked for in a row): for error and
    // stall reports only.
    std::string name_of(std::size_t i) override;

    std::size_t ops_per_iteration() const { return m_per_iteration; }

private:
    // Iteration c as build_iteration makes it.
    std::vector<ops::op> build(std::size_t c, bool names) const;

    std::shared_ptr<const training_builder> m_builder;
    std::size_t m_rank;
    bool m_aggregator;
    bool m_with_names;
    std::size_t m_per_iteration = 0;
    std::array<std::size_t, ops::k_op_units> m_unit_per_iteration{};
    // What iteration 0 leaves for the next one, in indices of iteration 0: iteration c - 1 left
    // the same plus (c - 1) x m_per_iteration.
    std::vector<std::vector<std::size_t>> m_weights_ready0;
    // Iteration 0 as the constructor built it (to count its ops), until take(0) hands it out.
    std::vector<ops::op> m_first;
    // The names of the iteration name_of built last.
    std::size_t m_named_iteration = static_cast<std::size_t>(-1);
    std::vector<std::string> m_names;
};

}  // namespace trainvp::workloads
