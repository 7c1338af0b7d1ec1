// Everything a consumer of collective schedules needs, in one include.
#pragma once

#include "workloads/collectives/collective_registry.h"
#include "workloads/collectives/concentrated_multi_tree.h"
#include "workloads/collectives/cost.h"
#include "workloads/collectives/direct_gather.h"
#include "workloads/collectives/executor.h"
#include "workloads/collectives/halving_doubling.h"
#include "workloads/collectives/ring.h"
#include "workloads/collectives/schedule.h"
#include "workloads/collectives/schedule_builder.h"
#include "workloads/collectives/schedule_walker.h"
#include "workloads/collectives/tree.h"
#include "workloads/collectives/validate.h"
#include "workloads/collectives/worker_aggregator.h"
