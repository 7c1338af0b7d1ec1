// Picoseconds and sc_time.  trainvp keeps SystemC's default time resolution of 1 ps (the
// simulation checks it at elaboration), so an sc_time is built from its integer value: exact,
// and much cheaper than sc_time(double, unit).
#pragma once

#include <cstdint>

#include <systemc>

#include "platform/units.h"

namespace trainvp {

inline sc_core::sc_time ps_time(std::uint64_t ps) { return sc_core::sc_time::from_value(ps); }
inline sc_core::sc_time to_sc(const units::duration& d) { return ps_time(d.ps); }

}  // namespace trainvp
