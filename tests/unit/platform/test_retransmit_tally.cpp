// The retransmission audit (kit/retransmit_tally.h): the identities it checks hold for a
// consistent count and fail, naming what broke, for a broken one.
#include <gtest/gtest.h>

#include "kit/retransmit_tally.h"

namespace trainvp {
namespace {

// 10 frames of 1460 B sent, 3 dropped and resent, one resend dropped again and resent.
retransmit_tally consistent() {
    retransmit_tally t;
    for (int i = 0; i < 10; ++i) t.sent(1, 1460, false);
    for (int i = 0; i < 7; ++i) t.delivered(1, 1460);
    for (int i = 0; i < 3; ++i) t.dropped(1, 1460);
    for (int i = 0; i < 4; ++i) t.sent(1, 1460, true);
    t.dropped(1, 1460);
    for (int i = 0; i < 3; ++i) t.delivered(1, 1460);
    return t;
}

TEST(retransmit_tally, holds_when_every_transmission_is_delivered_or_dropped_and_resent) {
    audit_log log;
    consistent().audit(log, "node[0].nic", "TX", true);
    EXPECT_EQ(log.checks(), 3u);
    EXPECT_TRUE(log.violations().empty());
}

TEST(retransmit_tally, fails_naming_the_broken_count) {
    retransmit_tally t = consistent();
    t.bytes_delivered -= 100;  // a deliberately broken count
    audit_log log;
    t.audit(log, "node[0].nic", "TX", true);
    ASSERT_EQ(log.violations().size(), 1u);
    EXPECT_EQ(log.violations()[0],
              "node[0].nic: TX: bytes sent + resent = delivered + dropped (sent 14600 B, resent "
              "5840 B, delivered 14500 B, dropped 5840 B)");
}

TEST(retransmit_tally, a_loss_not_resent_fails_once_drained) {
    retransmit_tally t = consistent();
    t.sent(1, 1460, false);
    t.dropped(1, 1460);  // lost and never resent
    audit_log still_running;
    t.audit(still_running, "n", "TX", false);
    EXPECT_TRUE(still_running.violations().empty()) << "only the first identity before the end";
    audit_log log;
    t.audit(log, "n", "TX", true);
    ASSERT_EQ(log.violations().size(), 1u);
    EXPECT_EQ(log.violations()[0],
              "n: TX: every dropped byte resent (dropped 5 frames / 7300 B, resent 4 / 5840 B)");
}

}  // namespace
}  // namespace trainvp
