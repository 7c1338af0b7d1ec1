#include "workloads/collectives/executor.h"

namespace trainvp::collectives {

template std::vector<rank_counters> execute<float>(const schedule&,
                                                   std::vector<std::vector<float>>&);
template std::vector<rank_counters> execute<double>(const schedule&,
                                                    std::vector<std::vector<double>>&);

}  // namespace trainvp::collectives
