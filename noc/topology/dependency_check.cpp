#include "noc/topology/dependency_check.h"

#include <algorithm>
#include <stdexcept>

namespace trainvp::noc {

std::vector<route_hop> trace_route(const noc_topology& t, const route_table& rt, int src, int dst,
                                   int variant) {
    std::vector<route_hop> hops;
    int r = src, prev = -1, cls = 0;
    const std::size_t limit = static_cast<std::size_t>(t.routers()) * 4;
    while (r != dst) {
        const int p = rt.port(r, dst, variant);
        const int c = p > 0 && p < t.ports() ? t.out_channel(r, p) : -1;
        if (c < 0) {
            throw std::invalid_argument("the route from router " + std::to_string(src) +
                                        " to router " + std::to_string(dst) + " leaves router " +
                                        std::to_string(r) + " through port " + std::to_string(p) +
                                        ", which has no link");
        }
        cls = t.next_class(prev, cls, c);
        hops.push_back({c, cls});
        if (hops.size() > limit) {
            throw std::invalid_argument("the route from router " + std::to_string(src) +
                                        " to router " + std::to_string(dst) + " loops");
        }
        prev = c;
        r = t.channels()[static_cast<std::size_t>(c)].dst;
    }
    return hops;
}

std::string find_dependency_cycle(const noc_topology& t, const route_table& rt) {
    const int classes = t.vc_classes();
    const std::size_t nodes = t.channels().size() * static_cast<std::size_t>(classes);
    std::vector<std::vector<int>> edges(nodes);
    auto id = [classes](const route_hop& h) { return h.channel * classes + h.vc_class; };
    for (int s = 0; s < t.routers(); ++s) {
        for (int d = 0; d < t.routers(); ++d) {
            if (s == d || rt.port(s, d) < 0) continue;
            for (int variant = 0; variant <= (rt.has_alternates() ? 1 : 0); ++variant) {
                const auto hops = trace_route(t, rt, s, d, variant);
                for (std::size_t i = 1; i < hops.size(); ++i) {
                    edges[static_cast<std::size_t>(id(hops[i - 1]))].push_back(id(hops[i]));
                }
            }
        }
    }
    for (auto& e : edges) {
        std::sort(e.begin(), e.end());
        e.erase(std::unique(e.begin(), e.end()), e.end());
    }
    // Iterative depth-first search; a back edge closes a cycle, read off the stack.
    enum : char { WHITE, GREY, BLACK };
    std::vector<char> colour(nodes, WHITE);
    std::vector<std::pair<int, std::size_t>> stack;
    for (std::size_t root = 0; root < nodes; ++root) {
        if (colour[root] != WHITE) continue;
        stack.push_back({static_cast<int>(root), 0});
        colour[root] = GREY;
        while (!stack.empty()) {
            auto& [n, next] = stack.back();
            const auto& out = edges[static_cast<std::size_t>(n)];
            if (next == out.size()) {
                colour[static_cast<std::size_t>(n)] = BLACK;
                stack.pop_back();
                continue;
            }
            const int m = out[next++];
            if (colour[static_cast<std::size_t>(m)] == WHITE) {
                colour[static_cast<std::size_t>(m)] = GREY;
                stack.push_back({m, 0});
            } else if (colour[static_cast<std::size_t>(m)] == GREY) {
                std::string text;
                auto name = [&](int node) {
                    return t.channel_name(node / classes) + " (class " +
                           std::to_string(node % classes) + ")";
                };
                std::size_t i = stack.size();
                while (stack[i - 1].first != m) --i;
                for (std::size_t j = i - 1; j < stack.size(); ++j) {
                    text += name(stack[j].first) + " => ";
                }
                return text + name(m);
            }
        }
    }
    return {};
}

}  // namespace trainvp::noc
