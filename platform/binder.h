// Binds sockets by path from the config's connections ("node[2].gen.out -> node[2].mem.target")
// and checks each binding: the socket exists, initiator -> target, same protocol, bound once,
// the same line rate at both ends when both declare one (a NIC and its Ethernet link); and at
// the end that no socket is left unbound.  A slower target than its initiator (a NIC faster
// than its PCIe slot) is a warning, not an error: such platforms are worth simulating.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "kit/ip_module.h"
#include "platform/platform_desc.h"

namespace trainvp {

class binder {
public:
    // `blocks` maps instance paths to the built modules; `descs` gives their declarations'
    // locations for messages.
    binder(const std::map<std::string, ip_module*>& blocks, const std::vector<instance_desc>& descs)
        : m_blocks(blocks), m_descs(descs) {}

    // Binds every connection; throws input_error at the first bad one.
    void bind_all(const std::vector<connection_desc>& connections);
    // Throws input_error listing every socket no connection names.
    void check_unbound() const;
    // What bind_all found worth saying without failing: a binding whose initiator moves data
    // faster than its target can (ip_module::socket_rate), one line per kind of binding with
    // the first such binding and how many more there are.
    std::vector<std::string> warnings() const;

private:
    struct endpoint {
        ip_module* block;
        const port_decl* port;
        std::size_t index;
        std::string path;  // "node[2].gen.out" with the index spelt out for arrays
    };
    endpoint resolve(const std::string& path, const connection_desc& c) const;
    // Throws input_error when both ends declare a line rate (port_decl::line_rate) and their
    // blocks' values differ.
    void check_line_rates(const endpoint& a, const endpoint& b, const connection_desc& c);
    const instance_desc& desc_of(const std::string& block_path);
    // Notes a binding whose initiator states a higher socket_rate than its target.
    void check_socket_rates(const endpoint& initiator, const endpoint& target);

    const std::map<std::string, ip_module*>& m_blocks;
    const std::vector<instance_desc>& m_descs;
    std::map<std::string, source_loc> m_bound;  // socket path -> where it was bound
    std::unordered_map<std::string, const instance_desc*> m_desc_of;  // filled when first needed
    // Rate warnings by kind (types, sockets and rates): the first binding's text and a count.
    std::vector<std::pair<std::string, std::pair<std::string, std::size_t>>> m_rate_warnings;
};

}  // namespace trainvp
