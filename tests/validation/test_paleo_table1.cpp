// paleo.md Table 1 on configs/papers/paleo: the TITAN X's platform percent of peak in
// titanx.yaml is the one tools/validate_paleo.py fits on AlexNet (forward + backward =
// 44.00 + 155.10 ms, TensorFlow).  This checks that the config still holds the fit: a change to
// the zoo or to accel.gpu that moves AlexNet's passes shows up here.
#include <gtest/gtest.h>

#include "tests/validation/run_config.h"

namespace trainvp::test {
namespace {

TEST(paleo_table1, alexnet_forward_plus_backward_is_the_fitted_total) {
    const auto b = breakdown_ms("configs/papers/paleo/titanx_alexnet.yaml");
    // The PPP in the config is rounded to 0.01 %: 0.02 % of the total covers it.
    EXPECT_NEAR(b.at("forward") + b.at("backward"), 199.10, 0.0002 * 199.10);
    EXPECT_GT(b.at("update"), 0.0);  // the lone GPU updates in place
    EXPECT_EQ(b.at("copy"), 0.0);
    EXPECT_EQ(b.at("comm"), 0.0);
}

}  // namespace
}  // namespace trainvp::test
