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

}  // namespace trainvp
