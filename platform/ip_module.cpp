// sc_spawn lives behind this switch in SystemC 2.3.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "platform/ip_module.h"

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

void ip_module::spawn_thread(const char* name, std::function<void()> body) {
    sim_context* ctx = m_ctx;
    const std::string who = path();
    sc_core::sc_spawn(
        [ctx, who, body = std::move(body)]() {
            try {
                body();
            } catch (const sc_core::sc_unwind_exception&) {
                throw;  // the kernel killing or resetting the process: not an error
            } catch (const sim_error& e) {
                ctx->fail(e.what());
            } catch (const input_error& e) {
                ctx->fail(e.what());
            } catch (const std::exception& e) {
                ctx->fail("internal error in " + who + ": " + e.what());
            }
        },
        name);
}

}  // namespace trainvp
