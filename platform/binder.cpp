#include "platform/binder.h"

#include <cstdio>

#include "core/did_you_mean.h"
#include "core/params.h"
#include "core/units.h"

namespace trainvp {

namespace {

std::string role_name(port_role r) { return r == port_role::INITIATOR ? "initiator" : "target"; }

std::string socket_list(const type_info& t) {
    std::vector<std::string> items;
    for (const auto& p : t.ports) {
        items.push_back(p.name + (p.is_array ? "[i]" : "") + " (" + role_name(p.role) + ", " +
                        p.protocol + ")");
    }
    return items.empty() ? "none" : join(items, ", ");
}

// A bound block's line rate: its param as configured, or its default.
struct line_rate {
    units::bandwidth rate;
    std::string key;                    // "node[1].nic.rate"
    std::string text;                   // as written
    const config_node* node = nullptr;  // nullptr: the default
    source_loc where;                   // the value's, or the block's when it is the default
};

}  // namespace

const instance_desc& binder::desc_of(const std::string& block_path) {
    if (m_desc_of.empty()) {
        for (const auto& d : m_descs) m_desc_of.emplace(d.path, &d);
    }
    return *m_desc_of.at(block_path);
}

void binder::check_line_rates(const endpoint& a, const endpoint& b, const connection_desc& c) {
    if (a.port->line_rate.empty() || b.port->line_rate.empty()) return;
    auto rate_of = [&](const endpoint& e) {
        const instance_desc& d = desc_of(e.path.substr(0, e.path.rfind('.')));
        const param_decl* decl = e.block->type().find_param(e.port->line_rate);
        line_rate r;
        r.key = d.path + "." + e.port->line_rate;
        for (const auto& v : d.params) {
            if (v.name == e.port->line_rate) r.node = &v.value;
        }
        const config_node value = r.node != nullptr ? *r.node : default_value(*decl);
        r.text = value.scalar();
        r.rate = param_parse::to_bandwidth(value, *decl, r.key);
        r.where = r.node != nullptr ? r.node->loc() : d.loc;
        return r;
    };
    const line_rate x = rate_of(a), y = rate_of(b);
    if (x.rate.bytes_per_s == y.rate.bytes_per_s) return;
    // Blame the end whose rate the config sets (the other keeps its default), else the first.
    const bool blame_x = x.node != nullptr || y.node == nullptr;
    const line_rate& blamed = blame_x ? x : y;
    const line_rate& other = blame_x ? y : x;
    throw input_error(blamed.where, blamed.key,
                      blamed.text + " does not match " + other.key + " (" + other.text +
                          (other.node != nullptr ? ", at " + other.where.str() : ", its default") +
                          ") across '" + c.text +
                          "': both ends of a link serialise frames at one line rate");
}

void binder::check_socket_rates(const endpoint& initiator, const endpoint& target) {
    const double offered = initiator.block->socket_rate(initiator.port->name);
    const double served = target.block->socket_rate(target.port->name);
    if (offered <= 0.0 || served <= 0.0 || offered <= served) return;
    const std::string kind = initiator.block->type().name + "." + initiator.port->name + " " +
                             std::to_string(offered) + " -> " + target.block->type().name + "." +
                             target.port->name + " " + std::to_string(served);
    for (auto& w : m_rate_warnings) {
        if (w.first == kind) {
            ++w.second.second;
            return;
        }
    }
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f %%", 100.0 * served / offered);
    m_rate_warnings.push_back(
        {kind,
         {initiator.block->path() + " moves up to " + units::format_bandwidth(offered) +
              " through its socket " + initiator.port->name + ", more than " +
              target.block->path() + " (" + target.block->type().name + ") carries (" +
              units::format_bandwidth(served) + "): at most " + pct + " of that rate gets through",
          0}});
}

std::vector<std::string> binder::warnings() const {
    std::vector<std::string> out;
    for (const auto& w : m_rate_warnings) {
        const std::size_t more = w.second.second;
        out.push_back(w.second.first +
                      (more > 0 ? " (and " + std::to_string(more) + " more like it)" : ""));
    }
    return out;
}

binder::endpoint binder::resolve(const std::string& path, const connection_desc& c) const {
    const std::size_t dot = path.rfind('.');
    const std::string block_path = path.substr(0, dot);
    std::string socket = path.substr(dot + 1);
    auto it = m_blocks.find(block_path);
    if (it == m_blocks.end()) {
        std::vector<std::string> names;
        for (const auto& kv : m_blocks) names.push_back(kv.first);
        throw input_error(
            c.loc, "connections",
            "'" + c.text + "': no block '" + block_path + "'" + did_you_mean(block_path, names));
    }
    ip_module* block = it->second;
    const type_info& t = block->type();

    std::size_t index = 0;
    bool indexed = false;
    const std::size_t open = socket.find('[');
    if (open != std::string::npos) {
        const std::string idx = socket.substr(open + 1, socket.size() - open - 2);
        if (socket.back() != ']' || idx.empty() || idx.size() > 9 ||
            idx.find_first_not_of("0123456789") != std::string::npos) {
            throw input_error(c.loc, "connections",
                              "'" + c.text + "': bad socket index in '" + socket + "'");
        }
        index = std::stoul(idx);
        indexed = true;
        socket = socket.substr(0, open);
    }
    const port_decl* port = t.find_port(socket);
    if (port == nullptr) {
        std::vector<std::string> names;
        for (const auto& p : t.ports) names.push_back(p.name);
        throw input_error(c.loc, "connections",
                          "'" + c.text + "': block '" + block_path + "' (" + t.name +
                              ") has no socket '" + socket + "'" + did_you_mean(socket, names) +
                              "; its sockets are " + socket_list(t));
    }
    // A one-element array may be named without an index (a memory with one port).
    if (port->is_array && !indexed) {
        if (port->size(*block) != 1) {
            throw input_error(c.loc, "connections",
                              "'" + c.text + "': '" + block_path + "." + socket +
                                  "' is a socket array; name one element, e.g. " + socket + "[0]");
        }
        indexed = true;
    }
    if (!port->is_array && indexed) {
        throw input_error(c.loc, "connections",
                          "'" + c.text + "': '" + block_path + "." + socket +
                              "' is a single socket, not an array");
    }
    if (port->is_array) {
        const std::size_t n = port->size(*block);
        if (index >= n) {
            throw input_error(c.loc, "connections",
                              "'" + c.text + "': " + block_path + "." + socket + "[" +
                                  std::to_string(index) + "] is out of range; the block has " +
                                  std::to_string(n) + " (0.." + std::to_string(n == 0 ? 0 : n - 1) +
                                  ")");
        }
    }
    std::string full = block_path + "." + socket;
    if (port->is_array) full += "[" + std::to_string(index) + "]";
    return endpoint{block, port, index, full};
}

void binder::bind_all(const std::vector<connection_desc>& connections) {
    for (const auto& c : connections) {
        endpoint a = resolve(c.from, c);
        endpoint b = resolve(c.to, c);
        const std::string head = "'" + c.text + "': ";
        if (a.port->role == port_role::TARGET && b.port->role == port_role::INITIATOR) {
            throw input_error(c.loc, "connections",
                              head + "written backwards: " + a.path + " is a target and " + b.path +
                                  " an initiator; write initiator -> target");
        }
        if (a.port->role == b.port->role) {
            throw input_error(c.loc, "connections",
                              head + role_name(a.port->role) + "-to-" + role_name(b.port->role) +
                                  " binding: " + a.path + " and " + b.path + " are both " +
                                  role_name(a.port->role) + "s");
        }
        if (a.port->protocol != b.port->protocol || a.port->bind_type != b.port->bind_type) {
            throw input_error(c.loc, "connections",
                              head + "protocol mismatch: " + a.path + " speaks '" +
                                  a.port->protocol + "' but " + b.path + " speaks '" +
                                  b.port->protocol + "'");
        }
        for (const endpoint* e : {&a, &b}) {
            auto it = m_bound.find(e->path);
            if (it != m_bound.end()) {
                throw input_error(
                    c.loc, "connections",
                    head + "socket " + e->path + " is already bound (at " + it->second.str() + ")");
            }
        }
        check_line_rates(a, b, c);
        check_socket_rates(a, b);
        a.port->bind(a.port->socket(*a.block, a.index), b.port->socket(*b.block, b.index));
        m_bound.emplace(a.path, c.loc);
        m_bound.emplace(b.path, c.loc);
    }
}

void binder::check_unbound() const {
    std::vector<std::string> missing;
    source_loc first;
    for (const auto& d : m_descs) {
        ip_module* block = m_blocks.at(d.path);
        for (const auto& p : block->type().ports) {
            if (p.optional) continue;
            const std::size_t n = p.size(*block);
            for (std::size_t i = 0; i < n; ++i) {
                std::string s = d.path + "." + p.name;
                if (p.is_array) s += "[" + std::to_string(i) + "]";
                if (m_bound.count(s)) continue;
                if (missing.empty()) first = d.loc;
                missing.push_back(s + " (" + role_name(p.role) + ", " + p.protocol + ")");
            }
        }
    }
    if (missing.empty()) return;
    // At most the first k_listed: a message naming thousands of sockets (an array of blocks
    // with nothing connected; found by fuzzing) hides its point.
    constexpr std::size_t k_listed = 12;
    const std::size_t n = missing.size();
    if (n > k_listed) {
        missing.resize(k_listed);
        missing.push_back("... and " + std::to_string(n - k_listed) + " more");
    }
    throw input_error(first, "connections",
                      std::to_string(n) + " socket" + (n == 1 ? " is" : "s are") +
                          " not bound (every socket needs a connection): " + join(missing, ", "));
}

}  // namespace trainvp
