// The workload sections through a fake platform_query: the registry and its generated key
// lists, the hosts resolved by path and pattern with their errors, the NIC check of compressible
// traffic, what each host is handed, and the chiplet training plan a package is handed.
#include <gtest/gtest.h>

#include <map>

#include "core/did_you_mean.h"
#include "core/error.h"
#include "core/units.h"
#include "workloads/drivers/chiplet_training_sink.h"
#include "workloads/drivers/hand_out.h"
#include "workloads/drivers/section_registry.h"

namespace trainvp::drivers {
namespace {

// Records what a section hands a block.
struct fake_sink : workload_sink {
    int workloads = 0;
    int sources = 0;
    std::size_t ops = 0;
    std::string key;
    void accept_workload(const config_node&, const std::string& k) override {
        ++workloads;
        key = k;
    }
    void accept_source(std::unique_ptr<ops::op_source> s, const source_loc&,
                       const std::string& k) override {
        ++sources;
        ops += s->size();
        key = k;
    }
    workloads::host_run ran() override { return {}; }
};

// Records the training plan a chiplet package is handed.
struct fake_package : chiplet_training_sink {
    package chiplet_package() const override { return package{16, 1000}; }
    void accept_training(std::unique_ptr<noc::chiplet_training> p, const source_loc&,
                         const std::string& k) override {
        plan = std::move(p);
        key = k;
    }
    std::unique_ptr<noc::chiplet_training> plan;
    std::string key;
};

struct compressing_nic : nic_capabilities {
    bool compresses_tos(std::uint8_t tos) const override { return tos == k_tos_compressible; }
};

class fake_platform : public platform_query {
public:
    std::vector<std::string> order;  // config order
    std::map<std::string, block_facts> blocks;

    void add(const std::string& path, const std::string& type, workload_sink* sink,
             std::optional<std::uint32_t> node_id, std::optional<nic_facts> nic = {}) {
        order.push_back(path);
        blocks[path] = block_facts{path, type, sink, node_id, std::move(nic)};
    }
    std::vector<std::string> paths() const override {
        std::vector<std::string> out;
        for (const auto& kv : blocks) out.push_back(kv.first);
        return out;
    }
    std::optional<block_facts> block(const std::string& path) const override {
        auto it = blocks.find(path);
        if (it == blocks.end()) return std::nullopt;
        return it->second;
    }
    // Enough of the loader's rule for the tests: "node[*].host" matches "node[<i>].host".
    std::vector<std::string> matching(const std::string& pattern) const override {
        std::vector<std::string> out;
        const std::size_t star = pattern.find("[*]");
        for (const std::string& p : order) {
            if (p.compare(0, star, pattern, 0, star) != 0 || p[star] != '[') continue;
            const std::size_t close = p.find(']', star);
            if (close != std::string::npos && p.substr(close + 1) == pattern.substr(star + 3)) {
                out.push_back(p);
            }
        }
        return out;
    }
};

// A section declared outside the library, as a plugin or a later one (chakra) would be: one
// class and one registration line; the registry, the unknown-key message and the checks of its
// keys pick it up.
class probe_section : public workload_section {
public:
    static void declare(section_decl<probe_section>& d) {
        d.describe("A probe. It counts.");
        d.param("count", &probe_section::m_count, "3", "How many").range("1", "10");
        d.param("period", &probe_section::m_period, "1us", "How often");
    }
    std::optional<int> hand_out(const config_node& node, const hand_out_context& ctx) override {
        read_params(*this, node, ctx);
        return static_cast<int>(m_count) + static_cast<int>(m_period.ps / 1000000);
    }

private:
    std::int64_t m_count = 0;
    units::duration m_period;
};
TRAINVP_REGISTER_WORKLOAD(probe_section, "probe");

std::string error_of(const std::string& yaml, const platform_query& p) {
    const config_node doc = config_node::parse(yaml, "t.yaml");
    try {
        hand_out_workload(*doc.find("workload"), p, 1, false);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

// A cluster of `n` hosts node[i].host (node id i) with plain NICs, and a memory.
struct cluster {
    fake_platform platform;
    std::vector<std::unique_ptr<fake_sink>> sinks;
    compressing_nic codec;
    explicit cluster(int n, bool compressing = false) {
        for (int i = 0; i < n; ++i) {
            sinks.push_back(std::make_unique<fake_sink>());
            const std::string node = "node[" + std::to_string(i) + "]";
            platform.add(node + ".host", "host.cpu", sinks.back().get(), i,
                         nic_facts{node + ".nic", compressing ? "nic.inceptionn" : "nic.basic",
                                   compressing ? &codec : nullptr});
        }
        platform.add("mem", "memory", nullptr, std::nullopt);
    }
};

TEST(section_registry, holds_ops_and_training_with_training_params_in_declared_order) {
    const section_registry& r = section_registry::global();
    EXPECT_EQ(r.names(), (std::vector<std::string>{"chakra", "chiplet_training", "collective",
                                                   "ops", "probe", "training"}));
    std::vector<std::string> keys;
    for (const param_decl& d : r.find("training")->params) keys.push_back(d.name);
    EXPECT_EQ(
        join(keys),
        "model, model_parameters, batch, workers, aggregator, algorithm, policy, "
        "bucket, compute, update, forward_time, backward_time, compute_model, "
        "conv_algorithm, workspace_limit, dilation_zeros, model_parallel_from, iterations, tos, "
        "broadcast, compression, offload, group, levels, gradient, sharding, "
        "tensor_parallel, pipeline_stages, micro_batches");
    EXPECT_TRUE(r.find("ops")->params.empty());
    EXPECT_FALSE(r.find("ops")->description.empty());
}

TEST(hand_out, an_unknown_section_names_the_registered_ones) {
    cluster c(2);
    EXPECT_EQ(
        error_of("workload:\n  trainig: {}\n", c.platform),
        "t.yaml:2:3: error: workload.trainig: unknown workload key (did you mean "
        "'training'?); expected chakra, chiplet_training, collective, ops, probe or training");
}

// workload.chakra's short form on 4 hosts: every host (by node id) is a rank and takes the data
// parallel trace's ops as one source: 4 forward and 4 backward compute ops, 2 ring all-reduces
// of 2(N-1) = 6 sends, 6 receives and N-1 = 3 sums each, and the update's delay: 8 + 30 + 1.
TEST(hand_out, chakra_hands_each_rank_its_trace_as_ops) {
    cluster c(4);
    const std::string prefix = std::string(TRAINVP_SOURCE_DIR) + "/configs/examples/chakra/dp";
    const config_node doc = config_node::parse("workload:\n  chakra: " + prefix + "\n", "t.yaml");
    EXPECT_EQ(hand_out_workload(*doc.find("workload"), c.platform, 1, false), 1);
    for (const auto& s : c.sinks) {
        EXPECT_EQ(s->sources, 1);
        EXPECT_EQ(s->ops, 39u);
        EXPECT_EQ(s->key, "workload.chakra");
    }
    // Three hosts for a 4-rank trace: the rank counts differ.
    cluster three(3);
    EXPECT_EQ(error_of("workload:\n  chakra: {trace: " + prefix + ", hosts: 'node[*].host'}\n",
                       three.platform),
              "t.yaml:2:19: error: workload.chakra.trace: there is a trace " + prefix +
                  ".3.et but only 3 hosts: the job has more ranks than hosts");
}

// workload.collective on 4 hosts: a ring all-gather of 3 rounds (a send and a receive each),
// twice, then a binomial broadcast from rank 1 (relative ranks from the root: rank 1 sends to
// rank 3, then to rank 2 while rank 3 sends to rank 0): 12 + 1, 12 + 2, 12 + 1, 12 + 2 ops.  After
// the run its measure gives each collective's time per iteration (first op's start to last op's end
// over every rank, / iterations), algbw = bytes / time and busbw (nccl-tests: x (n-1)/n all-gather,
// x 1 broadcast).
TEST(hand_out, collective_hands_each_rank_its_schedule_and_measures_it) {
    cluster c(4);
    const config_node doc = config_node::parse(
        "workload:\n  collective:\n"
        "    - {type: all_gather, bytes: 4096B, iterations: 2}\n"
        "    - {type: broadcast, root: 1, bytes: 4096B}\n",
        "t.yaml");
    std::vector<run_measure> measures;
    EXPECT_EQ(hand_out_workload(*doc.find("workload"), c.platform, 1, false, &measures), 1);
    const std::size_t want[] = {13, 14, 13, 14};
    for (std::size_t r = 0; r < 4; ++r) {
        EXPECT_EQ(c.sinks[r]->sources, 1);
        EXPECT_EQ(c.sinks[r]->ops, want[r]) << r;
        EXPECT_EQ(c.sinks[r]->key, "workload.collective");
    }
    ASSERT_EQ(measures.size(), 1u);
    // Each host's run: the all-gather's 12 ops from 1 us to 9 us on node[0] (2 to 10 us on the
    // others), the broadcast's from 10 to 14 us.
    std::vector<workloads::host_run> runs;
    for (std::size_t r = 0; r < 4; ++r) {
        workloads::host_run h;
        h.name = "node[" + std::to_string(r) + "].host";
        for (std::size_t i = 0; i < want[r]; ++i) {
            workloads::op_run o;
            const bool gather = i < 12;
            o.start_ps = gather ? (r == 0 ? 1000000 : 2000000) : 10000000;
            o.end_ps = gather ? (r == 0 ? 9000000 : 10000000) : 14000000;
            h.add(o, {});
        }
        runs.push_back(std::move(h));
    }
    const std::vector<measured_stat> m = measures[0](runs);
    ASSERT_EQ(m.size(), 6u);
    EXPECT_EQ(m[0].block, "collective[0]");
    EXPECT_EQ(m[0].type, "workload.collective");
    EXPECT_EQ(m[0].name, "time");
    EXPECT_DOUBLE_EQ(m[0].value, 4500.0);  // (10 - 1) us / 2 iterations, in ns
    EXPECT_EQ(m[1].name, "algbw");
    EXPECT_DOUBLE_EQ(m[1].value, 4096 / 4.5e-6);
    EXPECT_EQ(m[2].name, "busbw");
    EXPECT_DOUBLE_EQ(m[2].value, 4096 / 4.5e-6 * 3.0 / 4.0);
    EXPECT_EQ(m[3].block, "collective[1]");
    EXPECT_DOUBLE_EQ(m[3].value, 4000.0);
    EXPECT_DOUBLE_EQ(m[5].value, m[4].value);  // broadcast: busbw = algbw
}

TEST(hand_out, a_section_registered_outside_reads_its_declared_params) {
    cluster c(1);
    EXPECT_EQ(section_registry::global().find("probe")->params.size(), 2u);
    const config_node doc = config_node::parse("workload:\n  probe: {period: 2us}\n", "t.yaml");
    EXPECT_EQ(hand_out_workload(*doc.find("workload"), c.platform, 1, false), 3 + 2);
    EXPECT_EQ(error_of("workload:\n  probe: {count: 11}\n", c.platform),
              "t.yaml:2:18: error: workload.probe.count: '11' is out of range [1, 10]");
    EXPECT_EQ(error_of("workload:\n  probe: {cuont: 2}\n", c.platform),
              "t.yaml:2:11: error: workload.probe.cuont: unknown probe key (did you mean "
              "'count'?); expected one of count, period");
    EXPECT_EQ(error_of("workload:\n  probe: {period: 2MB}\n", c.platform),
              "t.yaml:2:19: error: workload.probe.period: '2MB' is a size, but a time is "
              "expected, e.g. 10ns (units ps, ns, us, ms, s)");
}

TEST(ops_section, hands_each_block_its_list_and_names_blocks_that_run_none) {
    cluster c(2);
    EXPECT_EQ(error_of("workload:\n  ops:\n    node[1].host: []\n", c.platform), "");
    EXPECT_EQ(c.sinks[1]->workloads, 1);
    EXPECT_EQ(c.sinks[1]->key, "workload.ops.node[1].host");
    EXPECT_EQ(error_of("workload:\n  ops:\n    mem: []\n", c.platform),
              "t.yaml:3:5: error: workload.ops.mem: block 'mem' (memory) does not run ops");
    EXPECT_EQ(error_of("workload:\n  ops:\n    node[2].host: []\n", c.platform),
              "t.yaml:3:5: error: workload.ops.node[2].host: no block 'node[2].host' (did you "
              "mean 'node[0].host'?)");
}

const std::string k_training =
    "workload:\n  training: {model: hdc, batch: 8, workers: 'node[*].host'";

TEST(training_section, hands_every_worker_its_iterations) {
    cluster c(3);
    EXPECT_EQ(error_of(k_training + ", iterations: 2}\n", c.platform), "");
    for (const auto& s : c.sinks) {
        EXPECT_EQ(s->sources, 1);
        EXPECT_GT(s->ops, 0u);
        EXPECT_EQ(s->key, "workload.training");
    }
    cluster d(3);
    const config_node doc = config_node::parse(k_training + ", iterations: 2}\n", "t.yaml");
    EXPECT_EQ(hand_out_workload(*doc.find("workload"), d.platform, 1, false), 2);
}

TEST(training_section, a_pattern_leaves_out_the_aggregator) {
    cluster c(3);
    EXPECT_EQ(error_of(k_training + ", algorithm: worker_aggregator, aggregator: 'node[2].host'}\n",
                       c.platform),
              "");
    for (const auto& s : c.sinks) EXPECT_EQ(s->sources, 1);
}

// conv_algorithm and workspace_limit only mean something with compute_model layer_ops; an
// unknown heuristic names the registered ones.
TEST(training_section, layer_ops_keys_are_checked) {
    cluster c(2);
    EXPECT_EQ(error_of(k_training + ", conv_algorithm: gemm}\n", c.platform),
              "t.yaml:2:77: error: workload.training.conv_algorithm: applies to compute_model "
              "layer_ops only");
    const std::string bad =
        error_of(k_training + ", compute_model: layer_ops, conv_algorithm: fft}\n", c.platform);
    EXPECT_NE(bad.find("workload.training.conv_algorithm"), std::string::npos) << bad;
    EXPECT_NE(bad.find("cudnn_v4_like"), std::string::npos) << bad;
}

TEST(training_section, keys_and_hosts_are_checked) {
    cluster c(2);
    EXPECT_EQ(error_of(k_training + ", polciy: x}\n", c.platform),
              "t.yaml:2:61: error: workload.training.polciy: unknown training key (did you mean "
              "'policy'?); expected one of model, model_parameters, batch, workers, aggregator, "
              "algorithm, policy, bucket, compute, update, forward_time, backward_time, "
              "compute_model, conv_algorithm, workspace_limit, dilation_zeros, "
              "model_parallel_from, iterations, tos, "
              "broadcast, compression, offload, group, levels, gradient, sharding, "
              "tensor_parallel, pipeline_stages, micro_batches");
    EXPECT_EQ(error_of("workload:\n  training: {model: hdc, workers: x}\n", c.platform),
              "t.yaml:2:13: error: workload.training.batch: missing; a training workload needs "
              "model, batch and workers");
    EXPECT_EQ(error_of("workload:\n  training: [1]\n", c.platform),
              "t.yaml:2:13: error: workload.training: expected a map (model, batch, workers, "
              "...), got a list");
    EXPECT_EQ(error_of("workload:\n  training: {model: hdc, batch: 8, workers: ['node[0].host', "
                       "mem]}\n",
                       c.platform),
              "t.yaml:2:62: error: workload.training.workers[1]: block 'mem' (memory) is not a "
              "host: training runs on blocks that run ops and have a node_id (host.cpu)");
    EXPECT_EQ(error_of(k_training + ", aggregator: 'node[1].host'}\n", c.platform),
              "t.yaml:2:73: error: workload.training.aggregator: only algorithm "
              "worker_aggregator has an aggregator");
    EXPECT_EQ(error_of("workload:\n  training: {model: hdc, batch: 8, workers: 'nod[*].host'}\n",
                       c.platform),
              "t.yaml:2:45: error: workload.training.workers: no block matches 'nod[*].host'");
}

TEST(training_section, compressible_traffic_needs_compressing_nics) {
    cluster plain(2);
    EXPECT_EQ(error_of(k_training + ", compression: true}\n", plain.platform),
              "t.yaml:2:74: error: workload.training.compression: compressible traffic (ToS "
              "0x28) from node[0].host goes to node[0].nic, a nic.basic that does not compress "
              "it (use nic.inceptionn)");
    cluster codec(2, true);
    EXPECT_EQ(error_of(k_training + ", compression: true}\n", codec.platform), "");
}

// The chiplet training section: its keys are the ones noc.interposer's `training:` sub-map had,
// plus the block it runs on; the plan is built for the package the block reports.
TEST(chiplet_training_section, hands_the_package_a_plan_built_for_it) {
    std::vector<std::string> keys;
    for (const param_decl& d : section_registry::global().find("chiplet_training")->params) {
        keys.push_back(d.name);
    }
    EXPECT_EQ(join(keys),
              "noc, workload_model, batch, bucket_size, allreduce_embeddings, pes, pe_array, "
              "pe_buffer, global_buffer, pe_clock, dram_bandwidth, vector_flops_per_cycle, "
              "pipeline, iterations, lifo, compute, astra_utilisation");
    cluster c(1);
    fake_package package;
    c.platform.add("noc", "noc.interposer", nullptr, std::nullopt);
    c.platform.blocks["noc"].chiplet_training = &package;
    const config_node doc = config_node::parse(
        "workload:\n  chiplet_training: {noc: noc, workload_model: hdc, batch: 32, "
        "bucket_size: 1MiB}\n",
        "t.yaml");
    EXPECT_EQ(hand_out_workload(*doc.find("workload"), c.platform, 1, false), 1);
    ASSERT_NE(package.plan, nullptr);
    EXPECT_EQ(package.key, "workload.chiplet_training");
    noc::chiplet_training::settings s;
    s.workload_model = "hdc";
    s.batch = 32;
    s.bucket_size = units::data_size{1u << 20};
    const noc::chiplet_training expected(s, 16, 1000, source_loc{"t.yaml", 1, 1}, "k");
    ASSERT_EQ(package.plan->buckets().size(), expected.buckets().size());
    for (std::size_t b = 0; b < expected.buckets().size(); ++b) {
        EXPECT_EQ(package.plan->buckets()[b].bytes, expected.buckets()[b].bytes);
        EXPECT_EQ(package.plan->buckets()[b].ready, expected.buckets()[b].ready);
    }
    // Without a model there is nothing to hand over.
    fake_package idle;
    c.platform.blocks["noc"].chiplet_training = &idle;
    EXPECT_EQ(error_of("workload:\n  chiplet_training: {noc: noc}\n", c.platform), "");
    EXPECT_EQ(idle.plan, nullptr);
}

TEST(chiplet_training_section, the_block_must_be_a_package) {
    cluster c(1);
    EXPECT_EQ(
        error_of("workload:\n  chiplet_training: {noc: nco, workload_model: hdc}\n", c.platform),
        "t.yaml:2:27: error: workload.chiplet_training.noc: no block 'nco'");
    EXPECT_EQ(
        error_of("workload:\n  chiplet_training: {noc: mem, workload_model: hdc}\n", c.platform),
        "t.yaml:2:27: error: workload.chiplet_training.noc: block 'mem' (memory) is no "
        "chiplet package: chiplet training runs on a noc.interposer");
    EXPECT_EQ(error_of("workload:\n  chiplet_training: {workload_model: hdc}\n", c.platform),
              "t.yaml:2:21: error: workload.chiplet_training.noc: missing; a chiplet_training "
              "workload needs noc");
}

}  // namespace
}  // namespace trainvp::drivers
