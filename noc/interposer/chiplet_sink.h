// One chiplet of a noc.interposer package as a block that runs ops (workload_sink): what
// workload.ops, workload.chakra and workload.training hand to the unit noc.chiplet[c]
// (workloads/drivers/workload_units.h).  It parses a written-out list and passes the op stream
// to its package, which runs it with chiplet_op_runner.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "workloads/drivers/workload_sink.h"

namespace trainvp::noc {

class chiplet_sink final : public workload_sink {
public:
    // `given`: the list as written (accept_workload), else null.
    using take_fn =
        std::function<void(int chiplet, std::unique_ptr<ops::op_source>, const source_loc& where,
                           const std::string& key, const config_node* given)>;
    using ran_fn = std::function<workloads::host_run(int chiplet)>;
    chiplet_sink(int chiplet, take_fn take, ran_fn ran)
        : m_chiplet(chiplet), m_take(std::move(take)), m_ran(std::move(ran)) {}

    void accept_workload(const config_node& ops, const std::string& key) override;
    void accept_source(std::unique_ptr<ops::op_source> ops, const source_loc& where,
                       const std::string& key) override;
    workloads::host_run ran() override { return m_ran(m_chiplet); }

private:
    int m_chiplet;
    take_fn m_take;
    ran_fn m_ran;
};

}  // namespace trainvp::noc
