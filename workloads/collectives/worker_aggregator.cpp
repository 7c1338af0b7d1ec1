#include "workloads/collectives/worker_aggregator.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "workloads/collectives/collective_info.h"
#include "workloads/collectives/schedule_builder.h"

namespace trainvp::collectives {

schedule worker_aggregator(int workers, uint64_t elements,
                           const worker_aggregator_options& options) {
    const std::string name = "worker_aggregator";
    if (workers < 1) {
        throw std::invalid_argument(name + ": needs at least 1 worker, got " +
                                    std::to_string(workers));
    }
    if (elements < 1) throw std::invalid_argument(name + ": needs at least 1 element");
    if (options.fan_in < 0 || options.fan_in == 1) {
        throw std::invalid_argument(name +
                                    ": fan_in must be 0 (one aggregator) or at least 2, "
                                    "got " +
                                    std::to_string(options.fan_in));
    }
    const int fan_in = options.fan_in == 0 || options.fan_in >= workers ? workers : options.fan_in;

    // levels[k]: the ranks at level k (level 0: workers); children[a]: the ranks under a.
    std::vector<std::vector<int>> levels{{}};
    for (int w = 0; w < workers; ++w) levels[0].push_back(w);
    std::vector<std::vector<int>> children(static_cast<std::size_t>(workers));
    int next_rank = workers;
    do {
        const std::vector<int>& below = levels.back();
        const int count = static_cast<int>(below.size());
        const int groups = (count + fan_in - 1) / fan_in;
        const std::vector<chunk> split =
            partition(static_cast<uint64_t>(count), static_cast<uint64_t>(groups));
        std::vector<int> level;
        for (const chunk& g : split) {
            const int aggregator = next_rank++;
            level.push_back(aggregator);
            std::vector<int> members;
            for (uint64_t i = g.offset; i < g.offset + g.count; ++i) {
                members.push_back(below[static_cast<std::size_t>(i)]);
            }
            children.push_back(std::move(members));
        }
        levels.push_back(std::move(level));
    } while (levels.back().size() > 1);

    const int ranks = next_rank;
    const int root = ranks - 1;
    const int height = static_cast<int>(levels.size()) - 1;
    schedule_builder b(name, ranks, elements);
    for (int r = workers; r < ranks; ++r) b.set_contributes(r, false);
    const chunk all{0, elements};

    for (int k = 1; k <= height; ++k) {
        for (int a : levels[static_cast<std::size_t>(k)]) {
            bool first = true;
            for (int c : children[static_cast<std::size_t>(a)]) {
                // The aggregator's buffer starts at zero, so the first arrival is a copy.
                b.transfer(c, a, all, first ? step_kind::RECV_COPY : step_kind::RECV_REDUCE,
                           static_cast<uint32_t>(k - 1));
                first = false;
            }
        }
    }

    const uint32_t first_return = static_cast<uint32_t>(height);
    if (options.result_return == aggregator_return::TREE) {
        for (int k = height; k >= 1; --k) {
            const uint32_t round = first_return + static_cast<uint32_t>(height - k);
            for (int a : levels[static_cast<std::size_t>(k)]) {
                for (int c : children[static_cast<std::size_t>(a)]) {
                    b.transfer(a, c, all, step_kind::RECV_COPY, round);
                }
            }
        }
    } else {
        // Virtual index 0 is the root, index i >= 1 is rank i - 1; after t rounds indices
        // [0, 2^t) hold the sum.
        auto real = [&](int v) { return v == 0 ? root : v - 1; };
        uint32_t round = first_return;
        for (int have = 1; have < ranks; have *= 2, ++round) {
            for (int v = 0; v < have && v + have < ranks; ++v) {
                b.transfer(real(v), real(v + have), all, step_kind::RECV_COPY, round);
            }
        }
    }
    return b.finish();
}

collective_info worker_aggregator_collective() {
    collective_info c;
    c.name = "worker_aggregator";
    c.description =
        "Parameter-server exchange: workers send their vectors to aggregator ranks that sum "
        "them and send the result back, directly or by a binomial broadcast (inceptionn.md "
        "§II-B)";
    c.needs.min_ranks = 1;
    c.needs.aggregator = true;
    c.fabrics = {fabric::HOST};
    c.make = [](const collective_args& a) {
        return worker_aggregator(a.ranks, a.elements, a.aggregator);
    };
    return c;
}

}  // namespace trainvp::collectives
