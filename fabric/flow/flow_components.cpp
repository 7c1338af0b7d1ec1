#include "fabric/flow/flow_components.h"

#include <algorithm>

namespace trainvp::fabric {

flow_components::flow_components(std::size_t resources)
    : m_users(resources), m_mark_res(resources, 0) {}

void flow_components::use(std::uint32_t f, int r) {
    if (f >= m_mark_flow.size()) m_mark_flow.resize(static_cast<std::size_t>(f) + 1, 0);
    m_users[static_cast<std::size_t>(r)].push_back(f);
    m_seed.push_back(r);
}

void flow_components::drop(std::uint32_t f, int r) {
    auto& u = m_users[static_cast<std::size_t>(r)];
    u.erase(std::find(u.begin(), u.end(), f));
    m_seed.push_back(r);
}

void flow_components::begin() {
    if (++m_epoch == 0) {
        std::fill(m_mark_flow.begin(), m_mark_flow.end(), 0);
        std::fill(m_mark_res.begin(), m_mark_res.end(), 0);
        m_epoch = 1;
    }
    m_comp_flows.clear();
    m_comp_res.clear();
    for (int r : m_seed) reach(r);
    m_seed.clear();
}

}  // namespace trainvp::fabric
