#include "noc/interposer/chiplet_sink.h"

#include "workloads/ops/op_parser.h"

namespace trainvp::noc {

void chiplet_sink::accept_workload(const config_node& ops, const std::string& key) {
    m_take(m_chiplet, std::make_unique<ops::list_source>(ops::parse_ops(ops, key)), ops.loc(), key,
           &ops);
}

void chiplet_sink::accept_source(std::unique_ptr<ops::op_source> ops, const source_loc& where,
                                 const std::string& key) {
    m_take(m_chiplet, std::move(ops), where, key, nullptr);
}

}  // namespace trainvp::noc
