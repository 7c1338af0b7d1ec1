// Generated op lists written as workload.ops YAML read back, through the config's own parser,
// as the same ops.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/config_node.h"
#include "workloads/collectives/collectives.h"
#include "workloads/iteration/collective_ops.h"
#include "workloads/iteration/op_yaml.h"
#include "workloads/ops/op_parser.h"

namespace trainvp::workloads {
namespace {

using ops::op;
using ops::op_kind;

void expect_same(const std::vector<op>& a, const ops::op_list& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        SCOPED_TRACE("op " + std::to_string(i));
        EXPECT_EQ(a[i].name, b[i].name);
        EXPECT_EQ(a[i].kind, b[i].kind);
        EXPECT_EQ(a[i].unit, b[i].unit);
        EXPECT_EQ(a[i].after, b[i].after);
        EXPECT_EQ(a[i].bytes, b[i].bytes);
        EXPECT_EQ(a[i].address, b[i].address);
        EXPECT_EQ(a[i].flops, b[i].flops);
        EXPECT_EQ(a[i].delay_ps, b[i].delay_ps);
        if (a[i].kind == op_kind::SEND || a[i].kind == op_kind::RECV) {
            EXPECT_EQ(a[i].peer, b[i].peer);
            EXPECT_EQ(a[i].tag, b[i].tag);
        }
        if (a[i].kind == op_kind::SEND) {
            EXPECT_EQ(a[i].tos, b[i].tos);
        }
        if (a[i].kind == op_kind::SUM) {
            EXPECT_EQ(a[i].inputs, b[i].inputs);
        }
    }
}

ops::op_list reparse(const std::string& yaml) {
    return ops::parse_ops(config_node::parse(yaml, "ops.yaml"), "workload.ops.host");
}

TEST(iteration_op_yaml, a_collective_reads_back_as_the_same_ops) {
    collectives::worker_aggregator_options wo;
    wo.result_return = collectives::aggregator_return::BINOMIAL;
    const auto s = collectives::worker_aggregator(5, 1000003, wo);
    collective_op_options o;
    o.tos = 0x28;
    o.tag_base = 4000000000u;
    o.base_address = 3ull << 30;
    o.name_prefix = "grad:";  // YAML syntax in a name survives the quoting
    for (int r = 0; r < s.ranks; ++r) {
        SCOPED_TRACE("rank " + std::to_string(r));
        const auto l = collective_ops(s, r, {0, 1, 2, 3, 4, 5}, o);
        const std::string y = ops_yaml(l, "  ");
        expect_same(l, reparse(y));
    }
}

TEST(iteration_op_yaml, every_kind_reads_back) {
    std::vector<op> l(9);
    const op_kind kinds[] = {op_kind::COMPUTE,     op_kind::GPU_COMPUTE, op_kind::COPY_TO_HOST,
                             op_kind::COPY_TO_GPU, op_kind::SUM,         op_kind::UPDATE,
                             op_kind::SEND,        op_kind::RECV,        op_kind::DELAY};
    for (std::size_t i = 0; i < l.size(); ++i) {
        l[i].kind = kinds[i];
        l[i].unit = ops::allowed_units(kinds[i]).front();
        l[i].name = "op \"" + std::to_string(i) + "\"";
        l[i].bytes = 4096 * (i + 1);
        if (i > 0) l[i].after = {i - 1};
    }
    l[0].flops = 1.2345678901234567e9;
    l[0].address = 0x40;
    l[1].flops = 2.5e11;
    l[1].bytes = 1 << 20;
    l[2].address = 0x1000;
    l[3].address = 0x2000;
    l[4].inputs = 5;
    l[4].address = 0x3000;
    l[5].address = 0x4000;
    l[6].peer = 7;
    l[6].tag = 9;
    l[6].tos = 0x28;
    l[6].address = 0x5000;
    l[7].peer = 7;
    l[7].tag = 9;
    l[7].address = 0x6000;
    l[8].bytes = 0;
    l[8].delay_ps = 123456789;
    l[8].after = {0, 7};
    expect_same(l, reparse(ops_yaml(l)));
}

TEST(iteration_op_yaml, a_dependency_on_an_unnamed_or_later_op_throws) {
    std::vector<op> l(2);
    l[0].kind = l[1].kind = op_kind::DELAY;
    l[1].after = {0};
    EXPECT_THROW(ops_yaml(l), std::invalid_argument);  // op 0 has no name
    l[0].name = "a";
    EXPECT_NO_THROW(ops_yaml(l));
    l[0].after = {1};
    EXPECT_THROW(ops_yaml(l), std::invalid_argument);
}

}  // namespace
}  // namespace trainvp::workloads
