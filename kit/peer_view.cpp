#include "kit/peer_view.h"

#include "kit/ip_module.h"

namespace trainvp {

const ip_module* peer_view::memory_behind(const ip_module& self, const std::string& socket,
                                          std::string* via) const {
    const ip_module* at = target_of(self, socket);
    // A chain of pass-through blocks is short; the bound stops a cycle of them.
    for (int hops = 0; at != nullptr && hops < 64; ++hops) {
        if (at->address_space() > 0) return at;
        const char* next = at->passes_requests_to();
        if (next == nullptr) return nullptr;
        if (via != nullptr) *via += (via->empty() ? "" : ", ") + at->path();
        at = target_of(*at, next);
    }
    return nullptr;
}

}  // namespace trainvp
