// The op-stream model and its YAML parser (pure C++): every kind with its units and defaults,
// the derived FLOP and byte counts of sums and updates, and every error with its exact text.
#include <gtest/gtest.h>

#include "workloads/ops/dep_list.h"
#include "workloads/ops/op_parser.h"

namespace trainvp::ops {
namespace {

const std::string k_key = "workload.ops.node[0].host";

// Parses the list under `ops:` in `yaml` (line 1 of t.yaml is "ops:").
op_list parse(const std::string& yaml) {
    config_node doc = config_node::parse("ops:\n" + yaml, "t.yaml");
    return parse_ops(*doc.find("ops"), k_key);
}

std::string error_of(const std::string& yaml) {
    try {
        parse(yaml);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

TEST(ops, every_kind_parses_with_units_and_defaults) {
    op_list l = parse(R"(
  - {op: compute, flops: 1.2e9, bytes: 64MB, name: f1}
  - {op: gpu_compute, flops: 2^30}
  - {op: copy_to_gpu, bytes: 4KiB, address: 0x1000}
  - {op: copy_to_host, bytes: 1MiB, address: 2MiB}
  - {op: sum, bytes: 4MB, inputs: 3}
  - {op: update, bytes: 400B}
  - {op: send, to: 1, bytes: 64MB, tag: 3, tos: 0x28, name: s1, after: [f1]}
  - {op: recv, from: 2, bytes: 8KB, tag: 4}
  - {op: delay, time: 10us, unit: comm, after: s1}
)");
    ASSERT_EQ(l.size(), 9u);
    EXPECT_EQ(l[0].kind, op_kind::COMPUTE);
    EXPECT_EQ(l[0].unit, op_unit::CPU);
    EXPECT_EQ(l[0].flops, 1.2e9);
    EXPECT_EQ(l[0].bytes, 64000000u);
    EXPECT_EQ(l[0].name, "f1");
    EXPECT_EQ(l[0].key, k_key + "[0]");
    EXPECT_EQ(l[0].where.str(), "t.yaml:3:5");
    EXPECT_EQ(l[1].flops, 1073741824.0);
    EXPECT_EQ(l[1].bytes, 0u);
    EXPECT_EQ(l[1].unit, op_unit::GPU);
    EXPECT_EQ(l[2].unit, op_unit::COPY);
    EXPECT_EQ(l[2].address, 0x1000u);
    EXPECT_EQ(l[3].address, 2u * 1024 * 1024);
    EXPECT_EQ(l[4].inputs, 3u);
    EXPECT_EQ(l[5].inputs, 2u);
    EXPECT_EQ(l[6].kind, op_kind::SEND);
    EXPECT_EQ(l[6].unit, op_unit::COMM);
    EXPECT_EQ(l[6].peer, 1u);
    EXPECT_EQ(l[6].tag, 3u);
    EXPECT_EQ(l[6].tos, 0x28);
    EXPECT_EQ(l[6].after, std::vector<std::size_t>{0});
    EXPECT_EQ(l[7].peer, 2u);
    EXPECT_EQ(l[7].bytes, 8000u);
    EXPECT_EQ(l[7].tos, 0);
    EXPECT_EQ(l[8].delay_ps, 10000000u);
    EXPECT_EQ(l[8].unit, op_unit::COMM);
    EXPECT_EQ(l[8].after, std::vector<std::size_t>{6});
    EXPECT_EQ(l.find("s1"), 6u);
    EXPECT_EQ(l.find("nope"), op_list::npos);
    EXPECT_EQ(l[1].label(1), "gpu_compute [1]");
    EXPECT_EQ(l[0].label(0), "f1");
}

TEST(ops, sum_counts_k_minus_1_adds_and_k_plus_1_buffer_passes) {
    // 3 buffers of n = 1e6 fp32 values: 2n adds; read 3 buffers and write 1: 4 x 4 MB.
    op_list l = parse("  - {op: sum, bytes: 4MB, inputs: 3}\n");
    EXPECT_EQ(work_flops(l[0]), 2.0 * 1e6);
    EXPECT_EQ(memory_bytes(l[0]), 4u * 4000000u);
    EXPECT_EQ(memory_traffic(l[0]).read_passes, 3u);
    EXPECT_EQ(memory_traffic(l[0]).write_passes, 1u);
}

TEST(ops, update_counts_sgd_with_momentum) {
    // n = 100 weights: v = mu*v + g and w = w - eta*v, 2 FLOPs each; reads w, g, v and writes
    // w, v: 5 passes over 400 B.
    op_list l = parse("  - {op: update, bytes: 400B}\n");
    EXPECT_EQ(work_flops(l[0]), 400.0);
    EXPECT_EQ(memory_bytes(l[0]), 2000u);
    EXPECT_EQ(memory_traffic(l[0]).read_passes, 3u);
    EXPECT_EQ(memory_traffic(l[0]).write_passes, 2u);
}

TEST(ops, compute_traffic_is_its_bytes_and_messages_have_none) {
    op_list l = parse(R"(
  - {op: compute, flops: 5, bytes: 1KB}
  - {op: send, to: 1, bytes: 1MB}
  - {op: copy_to_gpu, bytes: 1MB}
)");
    EXPECT_EQ(work_flops(l[0]), 5.0);
    EXPECT_EQ(memory_bytes(l[0]), 1000u);
    EXPECT_EQ(memory_bytes(l[1]), 0u);
    EXPECT_EQ(work_flops(l[1]), 0.0);
    EXPECT_EQ(memory_bytes(l[2]), 0u);
    EXPECT_EQ(l.total_flops(), 5.0);
    EXPECT_EQ(l.total_memory_bytes(), 1000u);
}

TEST(ops, ops_of_a_unit_keep_list_order) {
    op_list l = parse(R"(
  - {op: compute, flops: 1}
  - {op: send, to: 1, bytes: 1B}
  - {op: sum, bytes: 4B, unit: comm}
  - {op: compute, flops: 1}
  - {op: recv, from: 1, bytes: 1B, unit: cpu}
)");
    EXPECT_EQ(l.on_unit(op_unit::CPU), (std::vector<std::size_t>{0, 3, 4}));
    EXPECT_EQ(l.on_unit(op_unit::COMM), (std::vector<std::size_t>{1, 2}));
    EXPECT_TRUE(l.on_unit(op_unit::GPU).empty());
    EXPECT_EQ(l.count(op_kind::COMPUTE), 2u);
}

TEST(ops, empty_list_is_fine) { EXPECT_TRUE(parse("  []\n").empty()); }

TEST(ops, unknown_kind_suggests_the_closest) {
    EXPECT_EQ(error_of("  - {op: sned, to: 1, bytes: 1MB}\n"),
              "t.yaml:2:10: error: workload.ops.node[0].host[0].op: unknown op kind 'sned' (did "
              "you mean 'send'?); ops are compute, gpu_compute, copy_to_host, copy_to_gpu, sum, "
              "update, send, recv, delay, allreduce");
}

TEST(ops, unknown_key_suggests_the_closest_and_lists_the_kinds_keys) {
    EXPECT_EQ(error_of("  - {op: compute, flops: 1}\n  - {op: send, to: 1, byts: 1MB}\n"),
              "t.yaml:3:23: error: workload.ops.node[0].host[1].byts: unknown key of a send op "
              "(did you mean 'bytes'?); its keys are op, name, after, unit, phase, to, bytes, tag, "
              "tos, "
              "address");
}

TEST(ops, missing_required_key_names_it) {
    EXPECT_EQ(error_of("  - {op: send, bytes: 1MB}\n"),
              "t.yaml:2:5: error: workload.ops.node[0].host[0].to: missing required key of a "
              "send op (destination node id)");
    EXPECT_EQ(error_of("  - {op: delay}\n"),
              "t.yaml:2:5: error: workload.ops.node[0].host[0].time: missing required key of a "
              "delay op (how long the op takes, e.g. 10us)");
}

TEST(ops, missing_op_kind) {
    EXPECT_EQ(error_of("  - {flops: 1}\n"),
              "t.yaml:2:5: error: workload.ops.node[0].host[0].op: missing the op kind; ops are "
              "compute, gpu_compute, copy_to_host, copy_to_gpu, sum, update, send, recv, delay, "
              "allreduce");
}

TEST(ops, wrong_unit_family) {
    EXPECT_EQ(error_of("  - {op: compute, flops: 1, bytes: 10ns}\n"),
              "t.yaml:2:36: error: workload.ops.node[0].host[0].bytes: '10ns' is a time, but a "
              "size is expected, e.g. 256B (units B, KB, MB, GB, KiB, MiB, GiB)");
    EXPECT_EQ(error_of("  - {op: delay, time: 64MB}\n"),
              "t.yaml:2:23: error: workload.ops.node[0].host[0].time: '64MB' is a size, but a "
              "time is expected, e.g. 10ns (units ps, ns, us, ms, s)");
}

TEST(ops, size_without_unit) {
    EXPECT_EQ(error_of("  - {op: copy_to_gpu, bytes: 64}\n"),
              "t.yaml:2:30: error: workload.ops.node[0].host[0].bytes: '64' has no unit; a size "
              "needs one, e.g. 256B (units B, KB, MB, GB, KiB, MiB, GiB)");
}

TEST(ops, flops_with_a_unit_is_not_a_number) {
    EXPECT_EQ(error_of("  - {op: compute, flops: 1GB}\n"),
              "t.yaml:2:26: error: workload.ops.node[0].host[0].flops: '1GB' is a size, but a "
              "number is expected, e.g. 0.9, 2^-10 or 90%");
}

TEST(ops, out_of_range_values) {
    EXPECT_EQ(error_of("  - {op: sum, bytes: 4B, inputs: 1}\n"),
              "t.yaml:2:34: error: workload.ops.node[0].host[0].inputs: '1' is out of range [2, "
              "1024]");
    EXPECT_EQ(error_of("  - {op: send, to: 1, bytes: 1B, tos: 0x100}\n"),
              "t.yaml:2:39: error: workload.ops.node[0].host[0].tos: '0x100' is out of range [0, "
              "255]");
}

TEST(ops, sum_needs_whole_fp32_values) {
    EXPECT_EQ(error_of("  - {op: sum, bytes: 6B}\n"),
              "t.yaml:2:22: error: workload.ops.node[0].host[0].bytes: '6B' is not a whole number "
              "of fp32 values (6 bytes is not a multiple of 4)");
}

TEST(ops, unknown_dep_suggests_an_earlier_name) {
    EXPECT_EQ(error_of(R"(
  - {op: compute, flops: 1, name: b3}
  - {op: send, to: 1, bytes: 1MB, after: [b4]}
)"),
              "t.yaml:4:43: error: workload.ops.node[0].host[1].after[0]: no op named 'b4' "
              "before this one (did you mean 'b3'?)");
}

TEST(ops, dep_on_a_later_op_is_an_error) {
    EXPECT_EQ(error_of(R"(
  - {op: send, to: 1, bytes: 1MB, after: [b3]}
  - {op: compute, flops: 1, name: b3}
)"),
              "t.yaml:3:43: error: workload.ops.node[0].host[0].after[0]: op 'b3' is op [1], after "
              "this one; an op may only wait for ops listed before it");
}

TEST(ops, dep_on_itself_is_an_error) {
    EXPECT_EQ(error_of("  - {op: compute, flops: 1, name: a, after: a}\n"),
              "t.yaml:2:45: error: workload.ops.node[0].host[0].after: op 'a' cannot wait for "
              "itself");
}

TEST(ops, duplicate_name_points_at_the_first) {
    EXPECT_EQ(
        error_of("  - {op: compute, flops: 1, name: a}\n  - {op: compute, flops: 1, name: a}\n"),
        "t.yaml:3:35: error: workload.ops.node[0].host[1].name: duplicate op name 'a' (op "
        "[0] at t.yaml:2:5 has it)");
}

TEST(ops, unit_must_suit_the_kind) {
    EXPECT_EQ(error_of("  - {op: send, to: 1, bytes: 1B, unit: gpu}\n"),
              "t.yaml:2:40: error: workload.ops.node[0].host[0].unit: 'gpu' is not a unit for "
              "this op; a send op runs on comm or cpu");
    EXPECT_EQ(error_of("  - {op: compute, flops: 1, unit: cpus}\n"),
              "t.yaml:2:35: error: workload.ops.node[0].host[0].unit: unknown unit 'cpus' (did "
              "you mean 'cpu'?); a compute op runs on cpu or comm");
}

TEST(ops, structure_errors) {
    EXPECT_EQ(error_of("  {op: compute}\n"),
              "t.yaml:2:3: error: workload.ops.node[0].host: expected a list of ops, got a map");
    EXPECT_EQ(error_of("  - compute\n"),
              "t.yaml:2:5: error: workload.ops.node[0].host[0]: expected an op (a map with "
              "`op:`), got a value");
    EXPECT_EQ(error_of("  - {op: compute, flops: 1, after: {a: 1}}\n"),
              "t.yaml:2:36: error: workload.ops.node[0].host[0].after: expected an op name or a "
              "list of them, got a map");
}

TEST(ops, names_of_kinds_and_units) {
    EXPECT_EQ(kind_names().size(), k_op_kinds);
    EXPECT_EQ(unit_names(), (std::vector<std::string>{"cpu", "comm", "gpu", "copy"}));
    EXPECT_EQ(keys_of(op_kind::DELAY),
              (std::vector<std::string>{"op", "name", "after", "unit", "phase", "time"}));
    EXPECT_STREQ(category(op_kind::RECV), "comm");
    EXPECT_STREQ(category(op_kind::COPY_TO_HOST), "copy");
}

// An op's `after` keeps k_inline indices in place and spills to the heap past them; copies,
// moves and comparisons behave as a std::vector's.
TEST(ops, dep_list_holds_a_few_in_place_and_grows_past_them) {
    dep_list a{4, 9};
    EXPECT_EQ(a.size(), 2u);
    EXPECT_EQ(a, (std::vector<std::size_t>{4, 9}));
    for (std::size_t k = 0; k < 20; ++k) a.push_back(100 + k);  // spills to the heap
    ASSERT_EQ(a.size(), 22u);
    EXPECT_EQ(a[0], 4u);
    EXPECT_EQ(a[1], 9u);
    EXPECT_EQ(a.back(), 119u);
    const dep_list copy = a;  // a heap list copied
    EXPECT_EQ(copy, a);
    dep_list moved = std::move(a);  // a heap list moved: a is empty and usable again
    EXPECT_EQ(moved, copy);
    EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
    a.push_back(1);
    EXPECT_EQ(a, std::vector<std::size_t>{1});
    dep_list small{1, 2, 3};
    dep_list small_moved = std::move(small);  // an in-place list moved
    EXPECT_EQ(small_moved, (std::vector<std::size_t>{1, 2, 3}));
    small_moved = copy;  // in place <- heap
    EXPECT_EQ(small_moved, copy);
    small_moved = std::vector<std::size_t>{7};  // heap list reused for one index
    EXPECT_EQ(small_moved, std::vector<std::size_t>{7});
    small_moved.truncate(0);
    EXPECT_TRUE(small_moved.empty());
    EXPECT_NE(copy, dep_list{});
    EXPECT_EQ(copy.to_vector().size(), 22u);
}

}  // namespace
}  // namespace trainvp::ops
