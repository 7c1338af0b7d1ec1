// A platform as the loader expands it: every leaf instance with its type and params, every
// group (template instance), every connection with full paths.  Nothing here is SystemC.
#pragma once

#include <string>
#include <vector>

#include "core/config_node.h"
#include "core/params.h"
#include "kit/sim_context.h"

namespace trainvp {

struct instance_desc {
    std::string path;  // "node[2].mem"
    std::string type;  // registry key
    source_loc loc;    // where the instance was declared (its `type:` key)
    std::vector<param_value> params;
};

struct group_desc {
    std::string path;
    source_loc loc;
};

struct connection_desc {
    std::string from;  // initiator socket path "node[2].gen.out"
    std::string to;    // target socket path
    source_loc loc;
    std::string text;  // the line as written, for messages
};

struct platform_desc {
    std::string config_path;
    sim_settings settings;
    config_node settings_node;  // the `simulation:` section as given (for the resolved config)
    std::vector<group_desc> groups;
    std::vector<instance_desc> instances;
    std::vector<connection_desc> connections;
    config_node workload;  // passed through to the workload layer
    std::string description;
    // Plugins loaded for this run (absolute paths), for config.resolved.yaml.  The loader does
    // not load them: the command line does (plugin_loader), before the config is expanded.
    std::vector<std::string> plugins;
};

}  // namespace trainvp
