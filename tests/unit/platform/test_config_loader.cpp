// The YAML loader: expansion of templates, arrays and overrides, includes, --set, and every
// error class with its exact message (file:line:column, full key, did-you-mean).
#include <gtest/gtest.h>

#include <map>

#include "kit/registry.h"
#include "platform/platform_loader.h"
#include "tests/support/test_util.h"

namespace trainvp {
namespace {

platform_desc load(const std::string& text, const std::vector<std::string>& sets = {}) {
    platform_loader loader(registry::global());
    return loader.load_document(config_node::parse(text, "t.yaml"), "t.yaml", sets);
}

std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
    return test::input_error_of([&] { load(text, sets); });
}

const instance_desc* find(const platform_desc& d, const std::string& path) {
    for (const auto& i : d.instances) {
        if (i.path == path) return &i;
    }
    return nullptr;
}

std::string param_text(const platform_desc& d, const std::string& path, const std::string& p) {
    const instance_desc* i = find(d, path);
    if (i == nullptr) return "<no instance>";
    for (const auto& v : i->params) {
        if (v.name != p) continue;
        if (!v.value.is_seq()) return v.value.scalar();
        std::string list = "[";  // a list as its flow-style text
        for (const auto& item : v.value.items()) {
            list += (list.size() > 1 ? ", " : "") + item.scalar();
        }
        return list + "]";
    }
    return "<unset>";
}

const char* k_node_template = R"(
templates:
  pair:
    components:
      gen: {type: traffic.generator, message_size: 4KiB}
      mem: {type: memory, latency: 80ns}
    connections:
      - gen.out -> mem.target
components:
  node:
    template: pair
    count: 4
    mem: {bandwidth: 10GB/s}
    override:
      2: {mem: {latency: 200ns}}
      "0..1": {gen: {messages: 7}}
)";

// A generated network (platform/network_generator.h): a k = 4 fat tree of 32 endpoints, 4 per
// leaf: 8 leaves, 8 aggregation switches, 4 cores, 16 leaf links and 16 core links, wired to
// the endpoints' links.
const char* k_generated_tree = R"(
components:
  node: {type: ethernet.link, count: 32, rate: 10Gb/s}
  net:
    generate: fat_tree
    endpoints: 32
    endpoint: node[*]
    hosts_per_leaf: 4
    k: 4
    uplink_rate: 40Gb/s
    switch: {latency: 500ns}
)";

// Issue 31: bounded work whatever the document.  Aliases may add k_max_values values beyond
// the text's size; flow nesting stops at 256 levels, located at the bracket that goes deeper.
TEST(loader, alias_expansion_and_nesting_are_bounded) {
    // Three levels of ten aliases (1,000 values) are an ordinary use.
    std::string ok = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
    ok += "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n";
    ok += "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n";
    EXPECT_EQ(config_node::parse(ok, "t.yaml").find("c")->items().size(), 10u);
    // Seven levels: 10^7 values.
    std::string bomb = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
    for (char c = 'b'; c <= 'g'; ++c) {
        bomb += std::string(1, c) + ": &" + c + " [";
        for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", *" : "*") + char(c - 1);
        bomb += "]\n";
    }
    EXPECT_NE(test::input_error_of([&] {
                  config_node::parse(bomb, "t.yaml");
              }).find(": error: YAML aliases expand the document past the limit of 1000000 values"),
              std::string::npos);
    const std::string deep = "x: " + std::string(256, '[') + std::string(256, ']') + "\n";
    EXPECT_TRUE(config_node::parse(deep, "t.yaml").find("x")->is_seq());
    const std::string deeper = "x: " + std::string(257, '[') + std::string(257, ']') + "\n";
    EXPECT_EQ(test::input_error_of([&] { config_node::parse(deeper, "t.yaml"); }),
              "t.yaml:1:260: error: YAML nesting deeper than 256 levels (lists and maps inside "
              "one another; the limit)");
    // Brackets in quoted text and comments are not nesting.
    const std::string quoted =
        "x: \"" + std::string(300, '[') + "\"  # " + std::string(300, '{') + "\n";
    EXPECT_TRUE(config_node::parse(quoted, "t.yaml").find("x")->is_scalar());
}

TEST(loader, generates_a_fat_tree_of_switches_and_links) {
    const platform_desc d = load(k_generated_tree);
    std::map<std::string, int> of_type;
    for (const auto& i : d.instances) {
        if (i.path.rfind("net.", 0) == 0) ++of_type[i.type];
    }
    EXPECT_EQ(of_type["ethernet.switch"], 8 + 8 + 4);
    EXPECT_EQ(of_type["ethernet.link"], 16 + 16);
    // Leaf 1: its 4 hosts, 2 uplinks; aggregation switch 3 (pod 1, position 1): leaves 2 and 3
    // of the tree (nodes 8.. and 12..), salted; core 2: 4 pods of 8 nodes each.
    EXPECT_EQ(param_text(d, "net.leaf[1]", "ports"), "6");
    EXPECT_EQ(param_text(d, "net.leaf[1]", "uplinks"), "2");
    EXPECT_EQ(param_text(d, "net.leaf[1]", "latency"), "500ns");
    EXPECT_EQ(param_text(d, "net.agg[3]", "nodes_per_port"), "4");
    EXPECT_EQ(param_text(d, "net.agg[3]", "ecmp_salt"), "24301");
    EXPECT_EQ(param_text(d, "net.core[2]", "nodes_per_port"), "8");
    EXPECT_EQ(param_text(d, "net.core_link[5]", "rate"), "40Gb/s");
    auto wired = [&](const std::string& from, const std::string& to) {
        for (const auto& c : d.connections) {
            if (c.from == from && c.to == to) return true;
        }
        return false;
    };
    EXPECT_TRUE(wired("node[5].b_out", "net.leaf[1].rx[1]"));
    EXPECT_TRUE(wired("net.leaf[1].tx[1]", "node[5].b_in"));
    // Leaf 3 (pod 1) uplink 1 -> aggregation switch 3's port 1; its core link 1 -> core 3's
    // port 1 (pod 1).
    EXPECT_TRUE(wired("net.up[7].b_out", "net.agg[3].rx[1]"));
    EXPECT_TRUE(wired("net.core_link[7].b_out", "net.core[3].rx[1]"));
    EXPECT_EQ(d.connections.size(), 2u * 32 + 4u * (16 + 16));
}

TEST(loader, generated_network_errors_are_located) {
    EXPECT_EQ(error_of(R"(
components:
  net: {generate: torus, endpoints: 4, endpoint: "n[*]", hosts_per_leaf: 2, uplink_rate: 1Gb/s}
)"),
              "t.yaml:3:19: error: net.generate: 'torus' is not one of leaf_spine, fat_tree, "
              "rail_optimised");
    EXPECT_EQ(error_of(R"(
components:
  net: {generate: leaf_spine, endpoints: 6, endpoint: "n[*]", hosts_per_leaf: 4, spines: 1,
        uplink_rate: 1Gb/s}
)"),
              "t.yaml:3:79: error: net.hosts_per_leaf: impossible network: 6 endpoints do not "
              "fill leaves of 4");
    EXPECT_EQ(error_of(R"(
components:
  net: {generate: leaf_spine, endpoints: 8, endpoint: "n[*]", hosts_per_leaf: 4, spine: 1}
)"),
              "t.yaml:3:82: error: net.spine: unknown key of a generated network (did you mean "
              "'spines'?); expected one of generate, endpoints, endpoint, hosts_per_leaf, "
              "spines, k, rails, uplink_rate, core_rate, ecmp, switch, link");
    EXPECT_EQ(error_of(R"(
components:
  net: {generate: leaf_spine, endpoints: 8, endpoint: "n[*]", hosts_per_leaf: 4}
)"),
              "t.yaml:3:8: error: net.uplink_rate: missing (generate: leaf_spine needs it)");
    EXPECT_EQ(error_of(R"(
components:
  net: {generate: leaf_spine, endpoints: 8, endpoint: "n[*]", hosts_per_leaf: 4, spines: 2,
        uplink_rate: 1Gb/s, ecmp: dest-mod}
)"),
              "t.yaml:4:35: error: net.ecmp: 'dest-mod' is not one of hash, fixed, dest_mod (did "
              "you mean 'dest_mod'?)");
    EXPECT_EQ(error_of(R"(
components:
  net: {generate: leaf_spine, endpoints: 8, endpoint: "n[*]", hosts_per_leaf: 4, spines: 2,
        uplink_rate: 1Gb/s, rails: 2}
)"),
              "t.yaml:4:36: error: net.rails: impossible network: only generate: rail_optimised "
              "has rails");
    EXPECT_EQ(error_of(R"(
components:
  net: {generate: rail_optimised, endpoints: 12, endpoint: "n[*]", hosts_per_leaf: 4,
        spines: 2, uplink_rate: 1Gb/s, rails: 2}
)"),
              "t.yaml:3:84: error: net.hosts_per_leaf: impossible network: 6 hosts do not fill "
              "groups of 4");
}

// Rail-optimised: 8 hosts of 2 NICs, groups of 4: leaf 1 is rail 1 of group 0 (node ids 1, 3,
// 5, 7); a spine's port 2 reaches rail 0 of group 1 (8, 10, 12, 14); D-mod-k on the leaves.
TEST(loader, generates_a_rail_optimised_network) {
    const platform_desc d = load(R"(
components:
  node: {type: ethernet.link, count: 16, rate: 10Gb/s}
  net:
    generate: rail_optimised
    endpoints: 16
    endpoint: node[*]
    rails: 2
    hosts_per_leaf: 4
    spines: 2
    uplink_rate: 20Gb/s
    ecmp: dest_mod
)");
    EXPECT_EQ(param_text(d, "net.leaf[1]", "addresses"), "[1, 3, 5, 7]");
    EXPECT_EQ(param_text(d, "net.leaf[1]", "ecmp"), "dest_mod");
    EXPECT_EQ(param_text(d, "net.spine[0]", "addresses"), "[0, 1, 8, 9]");
    EXPECT_EQ(param_text(d, "net.spine[0]", "node_stride"), "2");
    EXPECT_EQ(param_text(d, "net.spine[0]", "nodes_per_port"), "4");
    auto wired = [&](const std::string& from, const std::string& to) {
        for (const auto& c : d.connections) {
            if (c.from == from && c.to == to) return true;
        }
        return false;
    };
    // Node 11: host 5 (group 1, position 1), rail 1: leaf 3, port 1.
    EXPECT_TRUE(wired("node[11].b_out", "net.leaf[3].rx[1]"));
    EXPECT_TRUE(wired("net.leaf[3].tx[1]", "node[11].b_in"));
}

TEST(loader, array_of_template_expands_with_overrides) {
    platform_desc d = load(k_node_template);
    ASSERT_EQ(d.instances.size(), 8u);
    EXPECT_EQ(d.instances[0].path, "node[0].gen");
    EXPECT_EQ(d.instances[7].path, "node[3].mem");
    EXPECT_EQ(param_text(d, "node[2].mem", "latency"), "200ns");
    EXPECT_EQ(param_text(d, "node[3].mem", "latency"), "80ns");
    EXPECT_EQ(param_text(d, "node[1].mem", "bandwidth"), "10GB/s");  // applies to every element
    EXPECT_EQ(param_text(d, "node[0].gen", "messages"), "7");
    EXPECT_EQ(param_text(d, "node[1].gen", "messages"), "7");
    EXPECT_EQ(param_text(d, "node[2].gen", "messages"), "<unset>");
    ASSERT_EQ(d.connections.size(), 4u);
    EXPECT_EQ(d.connections[3].from, "node[3].gen.out");
    EXPECT_EQ(d.connections[3].to, "node[3].mem.target");
    ASSERT_EQ(d.groups.size(), 4u);
    EXPECT_EQ(d.groups[1].path, "node[1]");
}

TEST(loader, leaf_arrays_and_star_connections) {
    platform_desc d = load(R"(
components:
  gen: {type: traffic.generator, message_size: 64B, count: 3}
  mem: {type: memory, count: 3, override: {"1,2": {latency: 5ns}}}
connections:
  - gen[*].out -> mem[*].target
)");
    ASSERT_EQ(d.instances.size(), 6u);
    ASSERT_EQ(d.connections.size(), 3u);
    EXPECT_EQ(d.connections[2].from, "gen[2].out");
    EXPECT_EQ(d.connections[2].to, "mem[2].target");
    EXPECT_EQ(param_text(d, "mem[0]", "latency"), "<unset>");
    EXPECT_EQ(param_text(d, "mem[2]", "latency"), "5ns");
}

TEST(loader, index_substitution_gives_each_element_its_own_value) {
    platform_desc d = load(R"(
templates:
  pair:
    components:
      gen: {type: traffic.generator, message_size: 64B, address: "${index}KiB"}
      mem: {type: memory}
    connections: [gen.out -> mem.target]
components:
  node: {template: pair, count: 3}
)");
    EXPECT_EQ(param_text(d, "node[0].gen", "address"), "0KiB");
    EXPECT_EQ(param_text(d, "node[2].gen", "address"), "2KiB");
    EXPECT_EQ(
        error_of("components:\n  m:\n    type: traffic.generator\n    message_size: ${index}B\n"),
        "t.yaml:4:19: error: m.message_size: ${index} is only defined inside an array (a "
        "component with count:)");
}

TEST(loader, nested_templates_and_inline_groups) {
    platform_desc d = load(R"(
templates:
  leafpair:
    components:
      gen: {type: traffic.generator, message_size: 64B}
      mem: {type: memory}
    connections: [gen.out -> mem.target]
  rack:
    components:
      a: {template: leafpair}
      b: {template: leafpair, mem: {latency: 1ns}}
components:
  r: {template: rack, count: 2}
  solo:
    components:
      g: {type: traffic.generator, message_size: 1KiB}
      m: {type: memory}
    connections: [g.out -> m.target]
)");
    EXPECT_EQ(d.instances.size(), 10u);
    EXPECT_EQ(param_text(d, "r[1].b.mem", "latency"), "1ns");
    EXPECT_EQ(d.connections.size(), 5u);
    EXPECT_EQ(d.connections.back().from, "solo.g.out");
}

TEST(loader, set_edits_document_and_instance_params) {
    platform_desc d = load(k_node_template, {"simulation.seed=42", "components.node.count=3",
                                             "node[*].mem.latency=90ns", "node[1].gen.messages=9"});
    EXPECT_EQ(d.settings.seed, 42u);
    EXPECT_EQ(d.instances.size(), 6u);
    EXPECT_EQ(param_text(d, "node[0].mem", "latency"), "90ns");
    EXPECT_EQ(param_text(d, "node[1].mem", "latency"), "90ns");
    EXPECT_EQ(param_text(d, "node[1].gen", "messages"), "9");
}

TEST(loader, set_reaches_keys_with_dots_through_quotes) {
    platform_desc d = load(std::string(k_node_template) +
                               "workload:\n  ops:\n    node[0].host: [{op: delay, time: 1us}]\n",
                           {"workload.ops.\"node[0].host\"[0].time=2us"});
    EXPECT_EQ(d.workload.find("ops")->find("node[0].host")->items()[0].find("time")->scalar(),
              "2us");
}

TEST(loader, set_errors_name_the_argument) {
    EXPECT_EQ(error_of(k_node_template, {"node[*].mem.latncy=1ns"}),
              "--set node[*].mem.latncy: error: node[0].mem.latncy: unknown param of type "
              "'memory' (did you mean 'latency'?)");
    EXPECT_EQ(error_of(k_node_template, {"nodes[1].mem.latency=1ns"}),
              "--set nodes[1].mem.latency: error: nodes[1].mem.latency: no block 'nodes[1].mem' "
              "in the platform (did you mean 'node[1].mem'?)");
    EXPECT_EQ(error_of(k_node_template, {"simulation.seed"}),
              "--set: error: simulation.seed: expected --set path=value");
}

TEST(loader, include_merges_and_the_includer_wins) {
    auto dir = test::temp_dir("include");
    test::write_file(dir / "base.yaml", R"(
simulation: {seed: 5, stall_timeout: 2ms}
components:
  mem: {type: memory, latency: 10ns}
  gen: {type: traffic.generator, message_size: 64B}
connections: [gen.out -> mem.target]
)");
    const std::string top = test::write_file(dir / "top.yaml", R"(include: base.yaml
simulation: {seed: 6}
components:
  mem: {latency: 20ns}
  gen2: {type: traffic.generator, message_size: 64B}
  mem2: {type: memory}
connections: [gen2.out -> mem2.target]
)");
    platform_loader loader(registry::global());
    platform_desc d = loader.load(top);
    EXPECT_EQ(d.settings.seed, 6u);
    EXPECT_EQ(d.settings.stall_timeout.ps, 2000000000u);
    EXPECT_EQ(param_text(d, "mem", "latency"), "20ns");
    EXPECT_EQ(d.connections.size(), 2u);  // connection lists are appended
}

TEST(loader, include_errors) {
    auto dir = test::temp_dir("include_err");
    test::write_file(dir / "a.yaml", "include: b.yaml\n");
    test::write_file(dir / "b.yaml", "include: [a.yaml]\n");
    test::write_file(dir / "c.yaml", "include: missing.yaml\n");
    platform_loader loader(registry::global());
    EXPECT_EQ(test::input_error_of([&] { loader.load((dir / "a.yaml").string()); }),
              (dir / "b.yaml").string() +
                  ":1:11: error: include: include cycle: a.yaml -> b.yaml -> a.yaml");
    EXPECT_EQ(test::input_error_of([&] { loader.load((dir / "c.yaml").string()); }),
              (dir / "c.yaml").string() + ":1:10: error: include: cannot open config file '" +
                  (dir / "missing.yaml").string() + "'");
    EXPECT_EQ(test::input_error_of([&] { loader.load((dir / "nope.yaml").string()); }),
              (dir / "nope.yaml").string() + ": error: cannot open config file '" +
                  (dir / "nope.yaml").string() + "'");
}

TEST(loader, syntax_and_structure_errors) {
    EXPECT_EQ(error_of("components:\n  a: [1, 2\n"),
              "t.yaml:3:1: error: YAML syntax: end of sequence flow not found");
    EXPECT_EQ(error_of("components:\n  a: {type: memory}\n  a: {type: memory}\n"),
              "t.yaml:3:3: error: a: duplicate key (first given at t.yaml:2:3)");
    EXPECT_EQ(
        error_of("componets: {}\n"),
        "t.yaml:1:1: error: componets: unknown section (did you mean 'components'?); "
        "expected one of description, plugins, simulation, templates, components, connections, "
        "workload");
    EXPECT_EQ(error_of("components: [a, b]\n"),
              "t.yaml:1:13: error: components: expected a map, got a list");
    EXPECT_EQ(error_of("components:\n  m: {bandwidth: 1GB/s}\n"),
              "t.yaml:2:3: error: m: a component needs type: (an IP block), template:, "
              "components: (a group) or generate: (a network)");
    EXPECT_EQ(error_of("components:\n  m: {type: memory, template: x}\n"),
              "t.yaml:2:3: error: m: give only one of type:, template:, components: and generate:");
    EXPECT_EQ(error_of("components:\n  my-mem: {type: memory}\n"),
              "t.yaml:2:3: error: my-mem: bad component name; use letters, digits and _ (an "
              "array is declared with count:, not in the name)");
}

TEST(loader, type_and_param_errors) {
    EXPECT_EQ(error_of("components:\n  m: {type: memroy}\n"),
              "t.yaml:2:13: error: m.type: unknown IP type 'memroy' (did you mean 'memory'?) "
              "(trainvp describe lists the types)");
    EXPECT_EQ(error_of("components:\n  m: {type: memory, bandwith: 1GB/s}\n"),
              "t.yaml:2:21: error: m.bandwith: unknown param of type 'memory' (did you mean "
              "'bandwidth'?); its params are bandwidth, latency, size, ports, service_order");
    EXPECT_EQ(error_of("simulation: {sed: 3}\n"),
              "t.yaml:1:14: error: simulation.sed: unknown setting (did you mean 'seed'?); "
              "settings are max_time, stall_timeout, quantum, warmup, seed, timeline, breakdown, "
              "granularity, memory_limit");
    EXPECT_EQ(error_of("simulation: {stall_timeout: 10Gb/s}\n"),
              "t.yaml:1:29: error: simulation.stall_timeout: '10Gb/s' is a bandwidth, but a time "
              "is expected, e.g. 10ns (units ps, ns, us, ms, s)");
    EXPECT_EQ(error_of("simulation: {seed: [1, 2]}\n"),
              "t.yaml:1:20: error: simulation.seed: expected integer (0.9, 2^-10 or 90%), got a "
              "list");
}

TEST(loader, template_errors) {
    EXPECT_EQ(error_of("components:\n  n: {template: pear}\ntemplates:\n  pair: {components: "
                       "{}}\n"),
              "t.yaml:2:17: error: n.template: unknown template 'pear' (did you mean 'pair'?)");
    EXPECT_EQ(error_of(R"(templates:
  a: {components: {x: {template: b}}}
  b: {components: {y: {template: a}}}
components:
  top: {template: a}
)"),
              "t.yaml:3:34: error: top.x.y.template: template 'a' contains itself (a -> b -> a)");
    EXPECT_EQ(error_of(R"(templates:
  p: {components: {mem: {type: memory}}}
components:
  n: {template: p, mam: {latency: 1ns}}
)"),
              "t.yaml:4:20: error: n.mam: no component 'mam' in this group (did you mean "
              "'mem'?); it has mem");
    EXPECT_EQ(error_of("templates:\n  p: {component: {}}\n"),
              "t.yaml:2:7: error: templates.p.component: unknown template key (did you mean "
              "'components'?); expected one of description, components, connections");
}

TEST(loader, array_errors) {
    EXPECT_EQ(error_of("components:\n  m: {type: memory, count: 0}\n"),
              "t.yaml:2:28: error: m.count: '0' is out of range [1, 1048576]");
    EXPECT_EQ(error_of("components:\n  m: {type: memory, count: 2, override: {5: {}}}\n"),
              "t.yaml:2:42: error: m.override.5: index 5 is out of range: the array has 2 "
              "elements (0..1)");
    EXPECT_EQ(error_of("components:\n  m: {type: memory, override: {0: {}}}\n"),
              "t.yaml:2:31: error: m.override: override: needs count: (it picks elements of an "
              "array)");
    EXPECT_EQ(error_of("components:\n  m: {type: memory, count: 2, override: {x: {}}}\n"),
              "t.yaml:2:42: error: m.override.x: bad index 'x'; expected e.g. 2, 0..3 or 1,3,5");
}

TEST(loader, connection_syntax_errors) {
    EXPECT_EQ(error_of("components:\n  m: {type: memory}\nconnections: [m.target <- x.out]\n"),
              "t.yaml:3:15: error: connections: 'm.target <- x.out': a connection is written "
              "'a.out -> b.in'");
    EXPECT_EQ(error_of("components:\n  m: {type: memory}\nconnections: [m -> x.out]\n"),
              "t.yaml:3:15: error: connections: 'm -> x.out': each side names a socket as "
              "block.socket");
    // In a flow list [..] YAML reads [*] as syntax; block lists take it as written.
    EXPECT_EQ(
        error_of("components:\n  m: {type: memory}\nconnections:\n  - q[*].out -> m.target\n"),
        "t.yaml:4:5: error: connections: 'q[*].out -> m.target': [*] must follow an array "
        "of blocks declared with count:");
}

TEST(loader, resolved_config_loads_back_to_the_same_platform) {
    platform_desc a = load(k_node_template);
    const std::string text = resolved_yaml(a, registry::global());
    platform_desc b = load(text);
    ASSERT_EQ(a.instances.size(), b.instances.size());
    for (std::size_t i = 0; i < a.instances.size(); ++i) {
        EXPECT_EQ(a.instances[i].path, b.instances[i].path);
    }
    EXPECT_EQ(param_text(b, "node[2].mem", "latency"), "200ns");
    EXPECT_EQ(param_text(b, "node[3].mem", "size"), "16GiB");  // defaults are written out
    ASSERT_EQ(a.connections.size(), b.connections.size());
    EXPECT_EQ(resolved_yaml(b, registry::global()).substr(text.find('\n')),
              text.substr(text.find('\n')));
}

// The memory estimate (platform/memory_estimate.h) multiplies counts through nested templates
// and refuses, before expansion, a platform above simulation.memory_limit at the count that
// makes it so; below the limit the platform loads.
TEST(loader, memory_limit_refuses_a_platform_before_it_is_built) {
    const std::string text = R"(simulation: {memory_limit: 10MB}
templates:
  inner: {components: {a: {type: memory}, b: {type: memory}}}
  outer: {components: {x: {template: inner, count: 10}}}
components:
  node: {template: outer, count: 50}
  one: {type: memory}
)";
    EXPECT_EQ(error_of(text),
              "t.yaml:6:34: error: components.node.count: the platform would need about 16.4 MB "
              "(1001 blocks x ~16 KiB), more than simulation.memory_limit (10 MB); reduce "
              "components.node.count (50), or raise simulation.memory_limit if the machine has "
              "the memory");
    EXPECT_EQ(load(text, {"simulation.memory_limit=20MB"}).instances.size(), 1001u);
}

}  // namespace
}  // namespace trainvp
