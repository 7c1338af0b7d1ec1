// What an IP type declares about itself: description, params, ports, statistics and traced
// signals.  `trainvp describe`, docs/ip-reference.md, the param checks, the binder and the
// stats writers all read these declarations; nothing about a type is written twice.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "core/param_decl.h"
#include "traces/stat.h"

namespace sc_core {
class sc_module_name;
class sc_trace_file;
}  // namespace sc_core
namespace tlm {
template <unsigned int BUSWIDTH, typename FW_IF, typename BW_IF>
class tlm_base_target_socket_b;
}  // namespace tlm

namespace trainvp {

class ip_module;
class params;
class traced_level;

enum class port_role { INITIATOR, TARGET };

struct port_decl {
    std::string name;
    port_role role = port_role::INITIATOR;
    std::string protocol;  // "mem", "eth", ... : both ends of a binding must agree
    std::string description;
    bool is_array = false;
    // May be left unbound (a host without an accelerator).  The socket type must then use the
    // SC_ZERO_OR_MORE_BOUND policy, and the block checks size() before using it.
    bool optional = false;
    // The block's param that holds the line rate the socket's frames are serialised at (an
    // Ethernet MAC's or link's `rate`), or empty.  The binder checks that the two ends of a
    // binding that both name one agree: a NIC and its cable run at one rate.
    std::string line_rate;
    // The C++ type both ends must share (the TLM target-socket base for the bus width and
    // protocol types).  Equal protocol names with different types is a programming error.
    std::type_index bind_type = typeid(void);
    std::function<std::size_t(ip_module&)> size;           // 1 for a single socket
    std::function<void*(ip_module&, std::size_t)> socket;  // initiator socket or target base
    std::function<void(void* initiator, void* target_base)> bind;  // initiators only
};

enum class stat_kind { COUNTER, SCALAR, DISTRIBUTION };

struct stat_decl {
    std::string name;
    std::string unit;
    std::string description;
    stat_kind kind = stat_kind::COUNTER;
    bool headline = false;  // shown in the run summary
    // Visits the stat's values: one for a single stat, one per element ("name[i]") for a
    // per-port vector of stats.
    std::function<void(const ip_module&,
                       const std::function<void(const std::string&, const void*)>&)>
        each;
    std::function<void(ip_module&)> reset;
};

struct signal_decl {
    std::string name;
    std::string description;
    std::function<void(ip_module&, const std::function<void(const std::string&, traced_level&)>&)>
        each;
};

// Everything the registry knows about one IP type.
struct type_info {
    std::string name;
    std::string description;
    std::vector<param_decl> params;
    std::vector<port_decl> ports;
    std::vector<stat_decl> stats;
    std::vector<signal_decl> signals;
    std::function<std::unique_ptr<ip_module>(const sc_core::sc_module_name&,
                                             const trainvp::params&)>
        create;

    const param_decl* find_param(const std::string& n) const;
    const port_decl* find_port(const std::string& n) const;
};

// Declaration builder handed to `T::declare`.
// The TLM target-socket base class of a target socket type (deduced through the derived-to-
// base conversion, since socket classes name their bases inconsistently).
template <unsigned int B, typename F, typename W>
tlm::tlm_base_target_socket_b<B, F, W>* target_base_of(tlm::tlm_base_target_socket_b<B, F, W>* p) {
    return p;
}

template <typename T>
class type_decl : public param_list<T> {
public:
    explicit type_decl(type_info& info) : m_info(info) {}

    void describe(const std::string& text) { m_info.description = text; }

    // An initiator socket member (a single socket, or an sc_vector of sockets).
    template <typename S, typename C>
    port_decl& initiator(const std::string& name, S C::*member, const std::string& protocol,
                         const std::string& description) {
        port_decl p = base_port<S>(name, static_cast<S T::*>(member), port_role::INITIATOR,
                                   protocol, description);
        using sock = typename element<S>::type;
        using target_base = typename sock::base_target_socket_type;
        p.bind_type = typeid(target_base);
        p.bind = [](void* init, void* target) {
            static_cast<sock*>(init)->bind(*static_cast<target_base*>(target));
        };
        m_info.ports.push_back(std::move(p));
        return m_info.ports.back();
    }

    // A target socket member (a single socket, or an sc_vector of sockets).
    template <typename S, typename C>
    port_decl& target(const std::string& name, S C::*member, const std::string& protocol,
                      const std::string& description) {
        port_decl p = base_port<S>(name, static_cast<S T::*>(member), port_role::TARGET, protocol,
                                   description);
        using sock = typename element<S>::type;
        using target_base = std::remove_pointer_t<decltype(target_base_of(std::declval<sock*>()))>;
        p.bind_type = typeid(target_base);
        auto get = p.socket;
        p.socket = [get](ip_module& m, std::size_t i) -> void* {
            return static_cast<target_base*>(static_cast<sock*>(get(m, i)));
        };
        m_info.ports.push_back(std::move(p));
        return m_info.ports.back();
    }

    // A statistic member: counter, scalar, distribution, or a std::vector of one of them (one
    // value per port, written as name[i]).
    template <typename S, typename C>
    stat_decl& stat(const std::string& name, S C::*base_member, const std::string& unit,
                    const std::string& description) {
        S T::*member = static_cast<S T::*>(base_member);
        stat_decl s;
        s.name = name;
        s.unit = unit;
        s.description = description;
        using elem = typename stat_element<S>::type;
        if constexpr (std::is_same_v<elem, counter>) s.kind = stat_kind::COUNTER;
        if constexpr (std::is_same_v<elem, scalar>) s.kind = stat_kind::SCALAR;
        if constexpr (std::is_same_v<elem, distribution>) s.kind = stat_kind::DISTRIBUTION;
        s.each = [member, name](const ip_module& m,
                                const std::function<void(const std::string&, const void*)>& f) {
            const S& v = static_cast<const T&>(m).*member;
            if constexpr (stat_element<S>::is_vector) {
                for (std::size_t i = 0; i < v.size(); ++i) {
                    f(name + "[" + std::to_string(i) + "]", &v[i]);
                }
            } else {
                f(name, &v);
            }
        };
        s.reset = [member](ip_module& m) {
            S& v = static_cast<T&>(m).*member;
            if constexpr (stat_element<S>::is_vector) {
                for (auto& x : v) x.reset();
            } else {
                v.reset();
            }
        };
        m_info.stats.push_back(std::move(s));
        return m_info.stats.back();
    }

    // Like stat(), and also shown in the run's summary.
    template <typename S, typename C>
    void headline(const std::string& name, S C::*member, const std::string& unit,
                  const std::string& description) {
        stat(name, member, unit, description).headline = true;
    }

    // A traced_level member (or a std::vector of them, one per port), written to the VCD.
    template <typename S, typename C>
    void signal(const std::string& name, S C::*base_member, const std::string& description) {
        S T::*member = static_cast<S T::*>(base_member);
        signal_decl s;
        s.name = name;
        s.description = description;
        s.each = [member, name](ip_module& m,
                                const std::function<void(const std::string&, traced_level&)>& f) {
            S& v = static_cast<T&>(m).*member;
            if constexpr (stat_element<S>::is_vector) {
                for (std::size_t i = 0; i < v.size(); ++i) f(name + "_" + std::to_string(i), v[i]);
            } else {
                f(name, v);
            }
        };
        m_info.signals.push_back(std::move(s));
    }

    // A statistic reached through an accessor (a member of a member, such as an embedded
    // dma_channel's counters): get(const T&) returns a counter, scalar or distribution.
    template <typename F>
    stat_decl& stat_of(const std::string& name, F get, const std::string& unit,
                       const std::string& description) {
        using S = std::decay_t<decltype(get(std::declval<const T&>()))>;
        stat_decl s;
        s.name = name;
        s.unit = unit;
        s.description = description;
        if constexpr (std::is_same_v<S, counter>) s.kind = stat_kind::COUNTER;
        if constexpr (std::is_same_v<S, scalar>) s.kind = stat_kind::SCALAR;
        if constexpr (std::is_same_v<S, distribution>) s.kind = stat_kind::DISTRIBUTION;
        s.each = [get, name](const ip_module& m,
                             const std::function<void(const std::string&, const void*)>& f) {
            f(name, &get(static_cast<const T&>(m)));
        };
        s.reset = [get](ip_module& m) { const_cast<S&>(get(static_cast<const T&>(m))).reset(); };
        m_info.stats.push_back(std::move(s));
        return m_info.stats.back();
    }

    // A VCD signal reached through an accessor: get(T&) returns a traced_level (the busy flag
    // of an embedded timed_resource).
    template <typename F>
    void signal_of(const std::string& name, F get, const std::string& description) {
        signal_decl s;
        s.name = name;
        s.description = description;
        s.each = [get, name](ip_module& m,
                             const std::function<void(const std::string&, traced_level&)>& f) {
            f(name, get(static_cast<T&>(m)));
        };
        m_info.signals.push_back(std::move(s));
    }

    // Moves the params declared through param_list into the type info.
    void finish() { m_info.params = this->params(); }

private:
    template <typename S, typename = void>
    struct element {
        using type = S;
        static constexpr bool is_vector = false;
    };
    template <typename S>
    struct element<S, std::void_t<typename S::element_type>> {
        using type = typename S::element_type;
        static constexpr bool is_vector = true;
    };
    template <typename S>
    struct stat_element {
        using type = S;
        static constexpr bool is_vector = false;
    };
    template <typename S>
    struct stat_element<std::vector<S>> {
        using type = S;
        static constexpr bool is_vector = true;
    };

    template <typename S>
    port_decl base_port(const std::string& name, S T::*member, port_role role,
                        const std::string& protocol, const std::string& description) {
        port_decl p;
        p.name = name;
        p.role = role;
        p.protocol = protocol;
        p.description = description;
        p.is_array = element<S>::is_vector;
        p.size = [member](ip_module& m) -> std::size_t {
            if constexpr (element<S>::is_vector) {
                return (static_cast<T&>(m).*member).size();
            } else {
                (void)m;
                (void)member;
                return 1;
            }
        };
        p.socket = [member](ip_module& m, std::size_t i) -> void* {
            if constexpr (element<S>::is_vector) {
                return &(static_cast<T&>(m).*member)[i];
            } else {
                (void)i;
                return &(static_cast<T&>(m).*member);
            }
        };
        return p;
    }

    type_info& m_info;
};

}  // namespace trainvp
