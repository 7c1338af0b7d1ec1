// The binder: every error class with its exact message, and socket arrays.  Each TEST
// elaborates SystemC and so runs in its own process.
#include <gtest/gtest.h>

#include "tests/support/sim_fixture.h"

namespace trainvp {
namespace {

using test::elaboration_error;

const std::string k_blocks = R"(
components:
  gen: {type: traffic.generator, message_size: 64B}
  gen2: {type: traffic.generator, message_size: 64B}
  mem: {type: memory}
  mem2: {type: memory}
  eth: {type: test.eth_endpoint}
  hub: {type: test.eth_hub, ports: 3}
)";

TEST(binder, good_bindings_elaborate) {
    EXPECT_EQ(elaboration_error(R"(
components:
  gen: {type: traffic.generator, message_size: 64B}
  mem: {type: memory}
  e: {type: test.eth_endpoint, count: 3}
connections:
  - gen.out -> mem.target
  - e[0].tx -> e[1].rx
  - e[1].tx -> e[2].rx
  - e[2].tx -> e[0].rx
)"),
              "");
}

TEST(binder, arrays_bind_by_index) {
    EXPECT_EQ(elaboration_error(R"(
components:
  e: {type: test.eth_endpoint, count: 3}
  hub: {type: test.eth_hub, ports: 3}
connections:
  - e[*].tx -> hub.port[*]
  - e[0].tx -> e[1].rx
)"),
              "t.yaml:7:5: error: connections: 'e[0].tx -> e[1].rx': socket e[0].tx is already "
              "bound (at t.yaml:6:5)");
}

TEST(binder, unknown_block) {
    EXPECT_EQ(elaboration_error(k_blocks + "connections: [gen.out -> mam.target]\n"),
              "t.yaml:9:15: error: connections: 'gen.out -> mam.target': no block 'mam' (did you "
              "mean 'mem'?)");
}

TEST(binder, unknown_socket) {
    EXPECT_EQ(elaboration_error(k_blocks + "connections: [gen.output -> mem.target]\n"),
              "t.yaml:9:15: error: connections: 'gen.output -> mem.target': block 'gen' "
              "(traffic.generator) has no socket 'output'; its sockets are out (initiator, mem)");
    EXPECT_EQ(elaboration_error(k_blocks + "connections: [gen.out -> mem.targte]\n"),
              "t.yaml:9:15: error: connections: 'gen.out -> mem.targte': block 'mem' (memory) has "
              "no socket 'targte' (did you mean 'target'?); its sockets are target[i] (target, "
              "mem)");
}

TEST(binder, initiator_to_initiator) {
    EXPECT_EQ(elaboration_error(k_blocks + "connections: [gen.out -> gen2.out]\n"),
              "t.yaml:9:15: error: connections: 'gen.out -> gen2.out': initiator-to-initiator "
              "binding: gen.out and gen2.out are both initiators");
}

TEST(binder, target_to_target) {
    EXPECT_EQ(elaboration_error(k_blocks + "connections: [mem.target -> mem2.target]\n"),
              "t.yaml:9:15: error: connections: 'mem.target -> mem2.target': target-to-target "
              "binding: mem.target[0] and mem2.target[0] are both targets");
}

TEST(binder, written_backwards) {
    EXPECT_EQ(elaboration_error(k_blocks + "connections: [mem.target -> gen.out]\n"),
              "t.yaml:9:15: error: connections: 'mem.target -> gen.out': written backwards: "
              "mem.target[0] is a target and gen.out an initiator; write initiator -> target");
}

TEST(binder, protocol_mismatch) {
    EXPECT_EQ(elaboration_error(k_blocks + "connections: [gen.out -> eth.rx]\n"),
              "t.yaml:9:15: error: connections: 'gen.out -> eth.rx': protocol mismatch: gen.out "
              "speaks 'mem' but eth.rx speaks 'eth'");
}

TEST(binder, bound_twice) {
    EXPECT_EQ(elaboration_error(k_blocks + R"(connections:
  - gen.out -> mem.target
  - gen2.out -> mem.target
)"),
              "t.yaml:11:5: error: connections: 'gen2.out -> mem.target': socket mem.target[0] is "
              "already bound (at t.yaml:10:5)");
}

TEST(binder, array_index_errors) {
    EXPECT_EQ(elaboration_error(k_blocks + "connections:\n  - eth.tx -> hub.port[3]\n"),
              "t.yaml:10:5: error: connections: 'eth.tx -> hub.port[3]': hub.port[3] is out of "
              "range; the block has 3 (0..2)");
    EXPECT_EQ(elaboration_error(k_blocks + "connections: [eth.tx -> hub.port]\n"),
              "t.yaml:9:15: error: connections: 'eth.tx -> hub.port': 'hub.port' is a socket "
              "array; name one element, e.g. port[0]");
    EXPECT_EQ(elaboration_error(k_blocks + "connections:\n  - eth.tx[0] -> hub.port[1]\n"),
              "t.yaml:10:5: error: connections: 'eth.tx[0] -> hub.port[1]': 'eth.tx' is a single "
              "socket, not an array");
}

TEST(binder, unbound_sockets_are_listed) {
    EXPECT_EQ(elaboration_error(k_blocks + "connections: [gen.out -> mem.target]\n"),
              "t.yaml:4:16: error: connections: 7 sockets are not bound (every socket needs a "
              "connection): gen2.out (initiator, mem), mem2.target[0] (target, mem), eth.tx "
              "(initiator, eth), eth.rx (target, eth), hub.port[0] (target, eth), hub.port[1] "
              "(target, eth), hub.port[2] (target, eth)");
}

// Thousands of unbound sockets are counted, and the first 12 named.
TEST(binder, many_unbound_sockets_are_counted_not_all_listed) {
    const std::string e = elaboration_error("components:\n  mem: {type: memory, count: 3333}\n");
    EXPECT_EQ(e.rfind("t.yaml:2:15: error: connections: 3333 sockets are not bound (every socket "
                      "needs a connection): mem[0].target[0] (target, mem), ",
                      0),
              0u)
        << e;
    EXPECT_NE(e.find("mem[11].target[0] (target, mem), ... and 3321 more"), std::string::npos) << e;
    EXPECT_LT(e.size(), 1000u);
}

}  // namespace
}  // namespace trainvp
