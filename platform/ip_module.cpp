// sc_spawn lives behind this switch in SystemC 2.3.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "platform/ip_module.h"

#include <cstring>
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

namespace {

// `body` with its errors turned into a failed run (sim_context::fail).  A named type, not a
// lambda in a std::function: sc_spawn keeps it by value in the process's own object, so an
// activation reaches `body` without another heap object to load (a method runs millions of
// times in a large platform).
struct guarded {
    sim_context* ctx;
    std::string who;
    std::function<void()> body;

    void operator()() {
        try {
            body();
        } catch (const sc_core::sc_unwind_exception&) {
            throw;  // the kernel killing or resetting the process: not an error
        } catch (const sim_error& e) {
            ctx->fail(e.what());
        } catch (const input_error& e) {
            ctx->fail(e.what());
        } catch (const sc_core::sc_report& e) {
            if (std::strcmp(e.get_msg_type(), sc_core::SC_ID_WAIT_NOT_ALLOWED_) == 0) {
                // A method (an event-driven engine) called a target that waits.
                ctx->fail(who +
                          ": a block it called waits inside b_transport, but its engine is an "
                          "event-driven method: targets must be loosely timed (annotate the "
                          "delay instead of waiting; docs/adding-ip.md)");
            } else {
                ctx->fail("internal error in " + who + ": " + e.what());
            }
        } catch (const std::exception& e) {
            ctx->fail("internal error in " + who + ": " + e.what());
        }
    }
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

}  // namespace trainvp
