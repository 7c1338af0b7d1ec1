// The platform as the workload sections see it (drivers::platform_query), with what they hand
// out counted: each block's sink is given to the sections behind a stand-in that notes the ops
// of its whole run and the chunks they come in (op_source::size and chunks; a config list, its
// items), then passes everything on to the block unchanged.  The simulation hands the
// `workload:` section out through it so that the run's memory (run_memory_estimate) is
// estimated from the real op streams, before the kernel starts, without asking the blocks.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "platform/run_memory_estimate.h"
#include "workloads/drivers/platform_query.h"

namespace trainvp {

class workload_tally : public drivers::platform_query {
public:
    explicit workload_tally(const drivers::platform_query& platform);
    ~workload_tally() override;

    std::vector<std::string> paths() const override { return m_platform.paths(); }
    std::optional<drivers::block_facts> block(const std::string& path) const override;
    std::vector<std::string> matching(const std::string& pattern) const override {
        return m_platform.matching(pattern);
    }

    // The blocks given ops so far, by path, and what they were given.
    std::vector<run_memory_estimate::host_ops> hosts() const;

private:
    const drivers::platform_query& m_platform;
    // A stand-in per block asked for that runs ops, and what it noted.
    mutable std::map<std::string, std::unique_ptr<workload_sink>> m_stand_ins;
    mutable std::map<std::string, run_memory_estimate::host_ops> m_counts;
};

}  // namespace trainvp
