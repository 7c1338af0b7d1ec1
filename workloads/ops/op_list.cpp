#include "workloads/ops/op_list.h"

namespace trainvp::ops {

std::size_t op_list::find(const std::string& name) const {
    for (std::size_t i = 0; i < m_ops.size(); ++i) {
        if (m_ops[i].name == name) return i;
    }
    return npos;
}

std::vector<std::size_t> op_list::on_unit(op_unit u) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < m_ops.size(); ++i) {
        if (m_ops[i].unit == u) out.push_back(i);
    }
    return out;
}

std::size_t op_list::count(op_kind k) const {
    std::size_t n = 0;
    for (const auto& o : m_ops) n += o.kind == k ? 1 : 0;
    return n;
}

double op_list::total_flops() const {
    double f = 0.0;
    for (const auto& o : m_ops) f += work_flops(o);
    return f;
}

std::uint64_t op_list::total_memory_bytes() const {
    std::uint64_t b = 0;
    for (const auto& o : m_ops) b += memory_bytes(o);
    return b;
}

}  // namespace trainvp::ops
