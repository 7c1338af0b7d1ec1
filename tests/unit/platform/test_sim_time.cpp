// ps_time and sim_now: the inline forms of sc_time::from_value and sc_time_stamp.
#include <gtest/gtest.h>

#include <cstdint>

#include <systemc>

#include "kit/sim_time.h"

namespace trainvp {
namespace {

TEST(sim_time, ps_time_equals_from_value) {
    for (std::uint64_t v :
         {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{999}, std::uint64_t{1} << 32,
          (std::uint64_t{1} << 63) + 12345, ~std::uint64_t{0}}) {
        EXPECT_EQ(ps_time(v), sc_core::sc_time::from_value(v)) << v;
        EXPECT_EQ(ps_time(v).value(), v);
    }
    EXPECT_EQ(ps_time(1500), sc_core::sc_time(1.5, sc_core::SC_NS));
}

TEST(sim_time, sim_now_is_sc_time_stamp) {
    EXPECT_EQ(sim_now(), sc_core::sc_time_stamp());
    sc_core::sc_start(ps_time(2500));
    EXPECT_EQ(sim_now(), sc_core::sc_time(2.5, sc_core::SC_NS));
    EXPECT_EQ(&sim_now(), &sc_core::sc_time_stamp());
}

}  // namespace
}  // namespace trainvp
