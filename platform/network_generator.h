// A multi-tier cluster network built from ethernet.switch and ethernet.link blocks, written by
// the loader from a component with `generate:` (issue 26: "the same topology must also be
// expressible at message level ... a generator in the loader"), so that packet and message
// level can run the topologies fabric.flow models at flow level (fabric/topology):
//
//   net:
//     generate: leaf_spine          # or fat_tree, rail_optimised
//     endpoints: 32                 # endpoint i is node id i
//     endpoint: node[*].link        # the ethernet.link of endpoint i ([*] = i): its b_out and
//                                   # b_in face the network
//     hosts_per_leaf: 8             # rail_optimised: hosts per group (one leaf per rail)
//     spines: 2                     # leaf_spine, rail_optimised; fat_tree takes k (even)
//     rails: 2                      # rail_optimised: NICs per host (endpoint = host x rails
//                                   # + rail)
//     ecmp: hash                    # or fixed, dest_mod: fabric.flow's uplink rules
//     uplink_rate: 20Gb/s           # leaf-spine / leaf-aggregation links; fat_tree core_rate
//     switch: {latency: 1us}        # params of every generated switch
//     link: {propagation: 10ns}     # params of every generated link
//
// The generated group holds leaf[l], spine[j] (or agg[g], core[c]) switches and up[...] (and
// core_link[...]) links.  A leaf's last ports are `uplinks`, chosen by the rule fabric.flow
// uses (fabric/topology/ecmp.h; an aggregation switch salts the hash, or divides by the leaf's
// choices, as fabric_topology does), a spine's (core's) port reaches a leaf's (pod's) node ids
// (every `rails`-th for a rail's leaf): a host's message takes the path it takes at flow level.
// Pure config: the result is expanded like any group.
#pragma once

#include <string>
#include <vector>

#include "core/config_node.h"

namespace trainvp {

struct generated_network {
    config_node group;  // {components: {...}, connections: [...]}, relative to the component
    // Connections between the endpoints and the network, relative to the component's parent.
    std::vector<config_node> outer;
};

// `name`: the component's name (in its parent), `path`: its full path, for messages.  Throws
// input_error located at the offending key.
generated_network generate_network(const std::string& name, const std::string& path,
                                   const config_node& body);

// The keys a `generate:` component takes.
const std::vector<std::string>& network_generator_keys();

}  // namespace trainvp
