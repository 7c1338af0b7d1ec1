#include "noc/router/noc_router.h"

namespace trainvp::noc {

noc_router::noc_router(int id, int ports, int vcs, int depth, int vc_classes, int local_width,
                       int eject_width)
    : m_id(id),
      m_local_width(local_width),
      m_eject_width(eject_width > 0 ? eject_width : local_width),
      m_ports(ports),
      m_vcs(vcs),
      m_depth(depth),
      m_vcs_per_class(vcs / vc_classes),
      m_port_count(static_cast<std::size_t>(ports), 0),
      m_nonempty(static_cast<std::size_t>(ports), 0),
      m_in(static_cast<std::size_t>(ports * vcs)),
      m_buffer(static_cast<std::size_t>(ports * vcs * depth)),
      m_outvc(static_cast<std::size_t>(ports * vcs)),
      m_out(static_cast<std::size_t>(ports)),
      m_sa_in(static_cast<std::size_t>(ports)),
      m_nominee(static_cast<std::size_t>(ports * ports), -1),
      m_requests(static_cast<std::size_t>(ports), 0) {}

void noc_router::set_credits(int port, int credits) {
    for (int v = 0; v < m_vcs; ++v) out_vc(port, v).credits = credits;
}

void noc_router::write(int port, int vc, const noc_flit& f) {
    input_vc& ivc = in_vc(port, vc);
    slot(port, vc, ivc.head + ivc.count) = f;
    ++ivc.count;
    ++m_port_count[static_cast<std::size_t>(port)];
    m_nonempty[static_cast<std::size_t>(port)] |= std::uint64_t{1} << vc;
    ++m_buffered;
}

}  // namespace trainvp::noc
