// A node's op stream: the ops in config order, with name lookup and the per-unit order the
// host runs them in.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "workloads/ops/op.h"

namespace trainvp::ops {

class op_list {
public:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    op_list() = default;
    // `ops` must already be valid (deps point at earlier ops): parse_ops() builds them so.
    explicit op_list(std::vector<op> ops) : m_ops(std::move(ops)) {}

    const std::vector<op>& ops() const { return m_ops; }
    std::size_t size() const { return m_ops.size(); }
    bool empty() const { return m_ops.empty(); }
    const op& operator[](std::size_t i) const { return m_ops[i]; }

    // The index of the op named `name`, or npos.
    std::size_t find(const std::string& name) const;
    // The indices of the ops that run on `u`, in list order.
    std::vector<std::size_t> on_unit(op_unit u) const;
    // The ops of each kind.
    std::size_t count(op_kind k) const;
    // Sums over the list (work_flops, memory_bytes of every op).
    double total_flops() const;
    std::uint64_t total_memory_bytes() const;

private:
    std::vector<op> m_ops;
};

}  // namespace trainvp::ops
