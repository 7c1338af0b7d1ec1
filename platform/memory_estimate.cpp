#include "platform/memory_estimate.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/units.h"

namespace trainvp {

namespace {
constexpr std::uint64_t k_most = memory_estimate::k_most;

std::uint64_t count_of(const config_node& body) {
    const config_node* c = body.is_map() ? body.find("count") : nullptr;
    if (c == nullptr || !c->is_scalar()) return 1;
    const auto n = units::parse_number(c->scalar());
    if (!n || !(*n >= 1.0)) return 1;  // the loader reports a bad count
    return *n >= static_cast<double>(k_most) ? k_most : static_cast<std::uint64_t>(*n);
}
}  // namespace

memory_estimate::memory_estimate(const config_node& components, const config_node& templates)
    : m_templates(templates) {
    if (!components.is_map()) return;
    std::uint64_t most = 0;
    for (const auto& e : components.entries()) {
        const std::uint64_t n = blocks_of(e.value, 0);
        m_blocks = plus(m_blocks, n);
        if (n > most) {
            most = n;
            m_largest_count = count_of(e.value);
            m_largest = "components." + e.key + (m_largest_count > 1 ? ".count" : "");
            const config_node* c = e.value.is_map() ? e.value.find("count") : nullptr;
            m_largest_loc = c != nullptr ? c->loc() : e.key_loc;
        }
    }
}

std::uint64_t memory_estimate::blocks_of(const config_node& body, int depth) const {
    std::uint64_t one = 1;
    const config_node* t = body.is_map() ? body.find("template") : nullptr;
    // A template's blocks, through nested templates (a cycle is the loader's error to report).
    if (t != nullptr && t->is_scalar() && depth < 16 && m_templates.is_map()) {
        const config_node* tpl = m_templates.find(t->scalar());
        const config_node* inner =
            tpl != nullptr && tpl->is_map() ? tpl->find("components") : nullptr;
        if (inner != nullptr && inner->is_map()) {
            one = 0;
            for (const auto& e : inner->entries()) {
                one = plus(one, blocks_of(e.value, depth + 1));
            }
        }
    }
    return times(count_of(body), one);
}

std::uint64_t memory_estimate::available_memory() {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("MemAvailable:", 0) != 0) continue;
        std::istringstream is(line.substr(13));
        std::uint64_t kb = 0;
        if (is >> kb) return kb * 1024;
    }
    return 0;
}

}  // namespace trainvp
