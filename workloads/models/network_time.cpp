#include "workloads/models/network_time.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace trainvp::models {

pass_time network_time(const model& m, const std::vector<double>& times) {
    const auto& layers = m.layers();
    if (times.size() != layers.size()) {
        throw std::invalid_argument("network_time: one time per layer expected");
    }
    pass_time t;
    std::map<std::string, double> finish;  // earliest finish of each layer with full overlap
    for (std::size_t i = 0; i < layers.size(); ++i) {
        double start = 0;
        for (const auto& in : layers[i].inputs) {
            if (in != "input") start = std::max(start, finish.at(in));
        }
        finish[layers[i].name] = start + times[i];
        t.sequential += times[i];
        t.lower = std::max(t.lower, start + times[i]);
    }
    return t;
}

}  // namespace trainvp::models
