// A node's op stream handed out in chunks (a training run: one chunk per iteration), so that a
// host holds only the chunks it is running instead of the whole run (ip/host/README.md, "Soak").
// Ops keep their indices in the whole stream: chunk c holds the ops [first, first + size) right
// after chunk c - 1, and `after` names any earlier op of the stream.  Pure C++ (no SystemC).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "workloads/ops/op.h"
#include "workloads/ops/op_list.h"

namespace trainvp::ops {

class op_source {
public:
    virtual ~op_source() = default;
    virtual std::size_t chunks() const = 0;
    // The ops of chunk `c` (0 <= c < chunks()), in stream order; asked for once per chunk, in
    // order.
    virtual std::vector<op> take(std::size_t c) = 0;
    // Ops over all chunks, and of them those on each unit.
    virtual std::size_t size() const = 0;
    virtual std::array<std::size_t, k_op_units> unit_sizes() const = 0;
    // The name of op `i` of the stream ("" when it has none), at any time: a host keeps ops
    // without their names and asks for one when it reports an error or a stall.
    virtual std::string name_of(std::size_t i) = 0;
};

// A whole list as one chunk (ops given in the config, or a list generated at once).
class list_source : public op_source {
public:
    explicit list_source(op_list list);
    std::size_t chunks() const override { return 1; }
    std::vector<op> take(std::size_t c) override;
    std::size_t size() const override { return m_size; }
    std::array<std::size_t, k_op_units> unit_sizes() const override { return m_unit_sizes; }
    std::string name_of(std::size_t i) override { return i < m_names.size() ? m_names[i] : ""; }

private:
    std::vector<op> m_ops;
    std::vector<std::string> m_names;
    std::size_t m_size = 0;
    std::array<std::size_t, k_op_units> m_unit_sizes{};
};

}  // namespace trainvp::ops
