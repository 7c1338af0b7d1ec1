// The functional end-of-run check of a training section (DESIGN.md, payload modes): with
// `gradient:` given, every worker starts from its own gradient and an aggregator from zeros;
// every rank must end with the exact sum of the workers' gradients, within an allowance per
// value that each host's end-of-run audit checks (workload_sink::expect_data).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config_node.h"
#include "workloads/drivers/host_roster.h"
#include "workloads/iteration/gradient_generator.h"
#include "workloads/iteration/training_builder.h"

namespace trainvp::drivers {

// Reads a `gradient` map (key `key`) as functional_check does: {distribution: normal, mean,
// stddev, seed} (or uniform with low/high, laplace with mean/scale, file with path); the seed
// defaults to `seed`.  Shared with workload.collective's functional mode.
workloads::gradient_spec read_gradient(const config_node& gradient, const std::string& key,
                                       std::uint64_t seed);

class functional_check {
public:
    // Reads `gradient` (key `key`): {distribution: normal, mean, stddev, seed} (or uniform with
    // low/high, laplace with mean/scale, file with path); the seed defaults to `seed`.
    functional_check(const config_node& gradient, const std::string& key, std::uint64_t seed);

    // Checks that the run can be checked (float32 values, one iteration, sums in host memory),
    // gives every rank its starting data and its whole op list (at `where` / `section_key`),
    // and tells every rank what it must hold at the end.
    void hand_out(const workloads::training_builder& b, const workloads::training_options& o,
                  std::int64_t bytes_per_value, const std::string& model_name,
                  const std::vector<host>& workers, const host* aggregator, const source_loc& where,
                  const std::string& section_key) const;

private:
    source_loc m_loc;
    std::string m_key;
    workloads::gradient_spec m_spec;
};

}  // namespace trainvp::drivers
