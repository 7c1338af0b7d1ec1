#include "workloads/collectives/schedule.h"

#include <algorithm>
#include <stdexcept>

namespace trainvp::collectives {

bool overlaps(const chunk& a, const chunk& b) {
    if (a.count == 0 || b.count == 0) return false;
    return a.offset < b.offset + b.count && b.offset < a.offset + a.count;
}

const char* to_string(step_kind kind) {
    switch (kind) {
        case step_kind::SEND:
            return "SEND";
        case step_kind::RECV_REDUCE:
            return "RECV_REDUCE";
        case step_kind::RECV_COPY:
            return "RECV_COPY";
    }
    return "?";
}

std::vector<step_group> group_by_round(const std::vector<step>& steps) {
    std::vector<step_group> groups;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        if (groups.empty() || steps[i].round != groups.back().round) {
            groups.push_back({steps[i].round, i, i + 1});
        } else {
            groups.back().end = i + 1;
        }
    }
    return groups;
}

std::vector<chunk> partition(uint64_t elements, uint64_t parts) {
    return partition(chunk{0, elements}, parts);
}

std::vector<chunk> partition(const chunk& range, uint64_t parts) {
    if (parts < 1) throw std::invalid_argument("partition: parts must be at least 1");
    std::vector<chunk> out;
    out.reserve(parts);
    const uint64_t base = range.count / parts;
    const uint64_t extra = range.count % parts;
    uint64_t offset = range.offset;
    for (uint64_t i = 0; i < parts; ++i) {
        const uint64_t count = base + (i < extra ? 1 : 0);
        out.push_back({offset, count});
        offset += count;
    }
    return out;
}

uint32_t round_count(const schedule& s) {
    uint32_t rounds = 0;
    for (const auto& rank_steps : s.steps) {
        for (const auto& st : rank_steps) rounds = std::max(rounds, st.round + 1);
    }
    return rounds;
}

schedule without_empty_transfers(const schedule& s) {
    schedule out = s;
    for (auto& rank_steps : out.steps) {
        rank_steps.erase(std::remove_if(rank_steps.begin(), rank_steps.end(),
                                        [](const step& st) { return st.range.count == 0; }),
                         rank_steps.end());
    }
    return out;
}

}  // namespace trainvp::collectives
