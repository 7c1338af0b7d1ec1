#include "kit/resource_usage.h"

#include <algorithm>

#include "kit/sim_context.h"

namespace trainvp {

double resource_usage::busy_fraction(double busy, double until, double now) {
    if (now <= 0) return 0.0;
    const sim_context* ctx = sim_context::current();
    if (ctx == nullptr || ctx->run_complete()) return busy / now;
    const double beyond = until > now ? until - now : 0.0;
    const double ran = busy > beyond ? busy - beyond : 0.0;
    return std::min(1.0, ran / now);
}

}  // namespace trainvp
