#include "workloads/ops/op_source.h"

#include <stdexcept>

namespace trainvp::ops {

list_source::list_source(op_list list) : m_ops(list.ops()), m_size(list.size()) {
    m_names.reserve(m_ops.size());
    for (const op& o : m_ops) {
        ++m_unit_sizes[static_cast<std::size_t>(o.unit)];
        m_names.push_back(o.name);
    }
}

std::vector<op> list_source::take(std::size_t c) {
    if (c != 0) throw std::logic_error("list_source: one chunk only");
    return std::move(m_ops);
}

}  // namespace trainvp::ops
