// Picoseconds and sc_time.  trainvp keeps SystemC's default time resolution of 1 ps (the
// simulation checks it at elaboration), so an sc_time is built from its integer value: exact,
// and much cheaper than sc_time(double, unit).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <systemc>

#include "core/units.h"

namespace trainvp {

// sc_time::from_value is a library call that also marks the resolution fixed on every call (a
// store to a shared line), and the hot paths build several times per transaction.  An sc_time
// is its value in units of the resolution (sysc/kernel/sc_time.h: one `value_type m_value`),
// so the value is written in place; tests/unit/platform/test_sim_time.cpp checks that this
// equals from_value.
static_assert(sizeof(sc_core::sc_time) == sizeof(sc_core::sc_time::value_type) &&
                  std::is_standard_layout_v<sc_core::sc_time>,
              "ps_time assumes sc_time holds exactly its value");
inline sc_core::sc_time ps_time(std::uint64_t ps) {
    sc_core::sc_time t;
    const sc_core::sc_time::value_type v = ps;
    std::memcpy(static_cast<void*>(&t), &v, sizeof v);
    return t;
}
inline sc_core::sc_time to_sc(const units::duration& d) { return ps_time(d.ps); }

// The current simulated time: sc_time_stamp() without its library call (the same simcontext
// member, read inline).
inline const sc_core::sc_time& sim_now() { return sc_core::sc_get_curr_simcontext()->time_stamp(); }

}  // namespace trainvp
