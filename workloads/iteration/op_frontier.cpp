#include "workloads/iteration/op_frontier.h"

namespace trainvp::workloads {

std::vector<std::size_t> op_frontier(const std::vector<ops::op>& list, std::size_t first,
                                     std::size_t begin) {
    // waited[i - begin]: some op of [begin, end) waits for op i (ops wait for earlier ones).
    std::vector<char> waited(list.size() - begin, 0);
    for (std::size_t i = begin; i < list.size(); ++i) {
        for (std::size_t a : list[i].after) {
            if (a >= first + begin && a < first + list.size()) waited[a - first - begin] = 1;
        }
    }
    std::vector<std::size_t> out;
    for (std::size_t i = begin; i < list.size(); ++i) {
        if (!waited[i - begin]) out.push_back(first + i);
    }
    return out;
}

}  // namespace trainvp::workloads
