// The built-in algorithms, registered into a registry in their listing order.
#pragma once

#include "workloads/collectives/collective_registry.h"

namespace trainvp::collectives {

// Called once by collective_registry::global() on first use.
void register_builtin_collectives(collective_registry& r);

}  // namespace trainvp::collectives
