#include "ip/ethernet/framing.h"

#include "core/error.h"

namespace trainvp::ip {

void framing::check(const params& p, const std::string& path) const {
    if (m_mtu.bytes <= m_l3l4_header.bytes) {
        throw input_error(p.where(), path + ".mtu", "the MTU must exceed l3l4_header");
    }
}

}  // namespace trainvp::ip
