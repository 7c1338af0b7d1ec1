#include "workloads/collectives/collective_registry.h"

#include <algorithm>
#include <stdexcept>

#include "workloads/collectives/builtin_collectives.h"

namespace trainvp::collectives {

namespace {

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

bool is_perfect_power(int ranks, int levels) {
    if (levels < 1) return false;
    for (long long g = 2;; ++g) {
        long long p = 1;
        for (int l = 0; l < levels && p <= ranks; ++l) p *= g;
        if (p == ranks) return true;
        if (p > ranks) return false;
    }
}

}  // namespace

const char* fabric_name(fabric f) {
    switch (f) {
        case fabric::HOST:
            return "host";
        case fabric::NOC:
            return "noc";
        case fabric::FPGA:
            return "fpga";
        case fabric::FLOW:
            return "flow";
    }
    return "?";
}

const char* result_name(collective_result r) {
    switch (r) {
        case collective_result::ALL_REDUCE:
            return "all-reduce";
        case collective_result::ALL_GATHER:
            return "all-gather";
        case collective_result::REDUCE_SCATTER:
            return "reduce-scatter";
        case collective_result::BROADCAST:
            return "broadcast";
        case collective_result::REDUCE:
            return "reduce";
        case collective_result::ALL_TO_ALL:
            return "all-to-all";
    }
    return "?";
}

std::string describe_needs(const collective_needs& n) {
    std::string out;
    auto add = [&out](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
    if (n.aggregator) add("an aggregator rank after the workers");
    if (n.power_of_two) add("power-of-two N");
    if (n.even_grid) {
        add("a rows x cols grid, both even");
    } else if (n.grid) {
        add("a rows x cols grid");
    }
    if (n.perfect_power) add("N = g^levels");
    add((out.empty() ? "any N >= " : "N >= ") + std::to_string(n.min_ranks));
    return out;
}

bool collective_info::runs_on(fabric f) const {
    return std::find(fabrics.begin(), fabrics.end(), f) != fabrics.end();
}

collective_registry& collective_registry::global() {
    static collective_registry* r = [] {
        auto* reg = new collective_registry();  // never destroyed: plugins' entries outlive exit
        register_builtin_collectives(*reg);
        return reg;
    }();
    return *r;
}

void collective_registry::add(collective_info info) {
    if (!info.name.empty() && !info.make) {
        throw std::logic_error("collective '" + info.name + "' has no schedule factory");
    }
    name_registry::add(std::move(info));
}

const collective_info& collective_registry::get(const std::string& name) const {
    const collective_info* c = find(name);
    if (c == nullptr) {
        throw std::invalid_argument("no collective '" + name + "'; registered: " + join(names()));
    }
    return *c;
}

std::vector<std::string> collective_registry::names_for(fabric f) const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < size(); ++i) {
        if (at(i).runs_on(f)) out.push_back(at(i).name);
    }
    return out;
}

schedule collective_registry::make(const std::string& name, const collective_args& a) const {
    check(name, a);
    return get(name).make(a);
}

void collective_registry::check(const std::string& name, const collective_args& a) const {
    const collective_info& c = get(name);
    const collective_needs& n = c.needs;
    const std::string what = name + ": ";
    if (a.ranks < n.min_ranks) {
        throw std::invalid_argument(what + "needs at least " + std::to_string(n.min_ranks) +
                                    " ranks, got " + std::to_string(a.ranks));
    }
    if (n.power_of_two && (a.ranks & (a.ranks - 1)) != 0) {
        throw std::invalid_argument(what + "needs a power-of-two rank count, got " +
                                    std::to_string(a.ranks));
    }
    if ((n.grid || n.even_grid) && (a.rows < 1 || a.cols < 1 || a.rows * a.cols != a.ranks)) {
        throw std::invalid_argument(what + "needs a rows x cols grid of the " +
                                    std::to_string(a.ranks) + " ranks, got " +
                                    std::to_string(a.rows) + "x" + std::to_string(a.cols));
    }
    if (n.perfect_power && !a.group_sizes.empty()) {
        long long product = 1;
        for (int g : a.group_sizes) product *= g;
        if (product != a.ranks) {
            throw std::invalid_argument(what + "levels of " + std::to_string(product) +
                                        " ranks in all, not " + std::to_string(a.ranks));
        }
    } else if (n.perfect_power && !is_perfect_power(a.ranks, a.levels)) {
        throw std::invalid_argument(what + std::to_string(a.ranks) + " ranks is not the " +
                                    std::to_string(a.levels) + "-th power of an integer >= 2");
    }
}

collective_registrar::collective_registrar(collective_info (*make_info)()) noexcept {
    try {
        register_noexcept(collective_registry::global(), make_info);
    } catch (...) {
        // Out of memory making the registry: nothing is registered.
    }
}

}  // namespace trainvp::collectives
