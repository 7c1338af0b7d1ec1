// sc_spawn lives behind this switch in SystemC 2.3.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "kit/ip_module.h"

#include <stdexcept>

namespace trainvp {

ip_module::ip_module(const sc_core::sc_module_name& name, const params& p)
    : sc_core::sc_module(name), m_path(p.path()), m_type(p.type()), m_ctx(sim_context::current()) {
    if (m_ctx == nullptr) {
        throw std::logic_error("IP block '" + m_path + "' built outside a simulation context");
    }
    if (m_type == nullptr) {
        throw std::logic_error("IP block '" + m_path + "' built without its type declaration");
    }
}

ip_module::message_site ip_module::site_of_message(std::size_t index, const char* field) const {
    (void)index;
    (void)field;
    // Only a block that declares messages is asked where one was given.
    throw std::logic_error("IP block '" + m_path + "' was asked where a message was given");
}

namespace {

// `body` run by sim_context::guard.  A named type, not a lambda in a std::function: sc_spawn
// keeps it by value in the process's own object, so an activation reaches `body` without
// another heap object to load.
struct guarded {
    sim_context* ctx;
    std::string who;
    std::function<void()> body;

    void operator()() { ctx->guard(who, body); }
};

}  // namespace

void ip_module::spawn_thread(const char* name, std::function<void()> body) {
    sc_core::sc_spawn(guarded{m_ctx, path(), std::move(body)}, name);
}

void ip_module::spawn_method(const char* name, std::function<void()> body) {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    sc_core::sc_spawn(guarded{m_ctx, path(), std::move(body)}, name, &o);
}

void ip_module::start_engine(wake_queue::engine& e, std::function<void()> body) {
    m_ctx->wakes().start(e, path(), std::move(body));
}

}  // namespace trainvp
