// Functional execution of a schedule on real data: the reference every fabric's functional
// mode is checked against, and the way the schedule tests prove each algorithm all-reduces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "workloads/collectives/schedule.h"
#include "workloads/collectives/schedule_walker.h"
#include "workloads/collectives/validate.h"

namespace trainvp::collectives {

struct rank_counters {
    uint64_t steps = 0;   // steps completed (SENDs and RECVs)
    uint32_t rounds = 0;  // round groups completed
    uint64_t elements_sent = 0;
    uint64_t elements_received = 0;
    uint64_t elements_reduced = 0;  // elements added by RECV_REDUCE
};

// Runs `s` over buffers[rank] (each `s.elements` long), in place.  Validates first (throws
// std::logic_error like validate()); throws std::invalid_argument when the buffers do not fit
// the schedule.  Buffers of non-contributing ranks are zeroed before the first round, so every
// rank ends with the sum of the contributing inputs.  Deterministic: overlapping receives of
// a round are applied in step order whatever order they arrive in, and sends read the data as
// it stood when their round began.  T is any type with += (float and double are compiled in
// executor.cpp).
template <typename T>
std::vector<rank_counters> execute(const schedule& s, std::vector<std::vector<T>>& buffers) {
    validate(s);
    if (buffers.size() != static_cast<std::size_t>(s.ranks)) {
        throw std::invalid_argument("execute '" + s.algorithm +
                                    "': " + std::to_string(buffers.size()) + " buffers for " +
                                    std::to_string(s.ranks) + " ranks");
    }
    for (std::size_t r = 0; r < buffers.size(); ++r) {
        if (buffers[r].size() != s.elements) {
            throw std::invalid_argument("execute '" + s.algorithm + "': buffer of rank " +
                                        std::to_string(r) + " holds " +
                                        std::to_string(buffers[r].size()) + " elements, the " +
                                        "schedule needs " + std::to_string(s.elements));
        }
        if (!s.contributes[r]) buffers[r].assign(s.elements, T{});
    }

    // Data is written in place as soon as a message lands, so memory stays at one buffer per
    // rank; the two exceptions keep the snapshot and ordering semantics: a SEND that a landing
    // message would overwrite is copied first, and a receive that overlaps an earlier,
    // not-yet-landed receive of the same round waits in `deferred`.
    struct rank_state {
        step_group group;
        std::vector<bool> fired;
        std::vector<bool> applied;
        std::unordered_map<std::size_t, std::vector<T>> snapshot;
        std::map<std::size_t, std::vector<T>> deferred;
    };
    const std::size_t n = static_cast<std::size_t>(s.ranks);
    std::vector<rank_state> state(n);
    std::vector<rank_counters> counters(n);
    for (std::size_t r = 0; r < n; ++r) {
        state[r].fired.assign(s.steps[r].size(), false);
        state[r].applied.assign(s.steps[r].size(), false);
    }

    auto step_at = [&](std::size_t r, std::size_t i) -> const step& { return s.steps[r][i]; };
    auto protect_sends = [&](std::size_t r, const chunk& range) {
        rank_state& st = state[r];
        for (std::size_t i = st.group.begin; i < st.group.end; ++i) {
            const step& snd = step_at(r, i);
            if (snd.kind != step_kind::SEND || st.fired[i] || st.snapshot.count(i) != 0) continue;
            if (!overlaps(snd.range, range)) continue;
            const T* from = buffers[r].data() + snd.range.offset;
            st.snapshot.emplace(i, std::vector<T>(from, from + snd.range.count));
        }
    };
    auto waits_for_earlier = [&](std::size_t r, std::size_t j) {
        const rank_state& st = state[r];
        for (std::size_t k = st.group.begin; k < j; ++k) {
            const step& other = step_at(r, k);
            if (is_recv(other.kind) && !st.applied[k] && overlaps(other.range, step_at(r, j).range))
                return true;
        }
        return false;
    };
    auto apply = [&](std::size_t r, std::size_t j, const T* data) {
        const step& rcv = step_at(r, j);
        protect_sends(r, rcv.range);
        T* to = buffers[r].data() + rcv.range.offset;
        if (rcv.kind == step_kind::RECV_REDUCE) {
            for (uint64_t k = 0; k < rcv.range.count; ++k) to[k] += data[k];
            counters[r].elements_reduced += rcv.range.count;
        } else {
            for (uint64_t k = 0; k < rcv.range.count; ++k) to[k] = data[k];
        }
        state[r].applied[j] = true;
    };
    auto flush_deferred = [&](std::size_t r) {
        auto& deferred = state[r].deferred;
        for (auto it = deferred.begin(); it != deferred.end();) {
            if (waits_for_earlier(r, it->first)) {
                ++it;
                continue;
            }
            apply(r, it->first, it->second.data());
            deferred.erase(it);
            it = deferred.begin();  // an applied receive may unblock an earlier-listed one
        }
    };

    schedule_walker::callbacks cb;
    cb.round_begin = [&](int rank, const step_group& g) {
        state[static_cast<std::size_t>(rank)].group = g;
    };
    cb.transfer = [&](int src, std::size_t i, int dst, std::size_t j) {
        const std::size_t a = static_cast<std::size_t>(src);
        const std::size_t b = static_cast<std::size_t>(dst);
        const step& snd = step_at(a, i);
        const auto snap = state[a].snapshot.find(i);
        const T* data = snap != state[a].snapshot.end() ? snap->second.data()
                                                        : buffers[a].data() + snd.range.offset;
        if (waits_for_earlier(b, j)) {
            state[b].deferred.emplace(j, std::vector<T>(data, data + snd.range.count));
        } else {
            apply(b, j, data);
            flush_deferred(b);
        }
        state[a].fired[i] = true;
        state[b].fired[j] = true;
        if (snap != state[a].snapshot.end()) state[a].snapshot.erase(snap);
        counters[a].steps += 1;
        counters[a].elements_sent += snd.range.count;
        counters[b].steps += 1;
        counters[b].elements_received += snd.range.count;
    };
    cb.round_end = [&](int rank, const step_group&) {
        rank_state& st = state[static_cast<std::size_t>(rank)];
        if (!st.deferred.empty() || !st.snapshot.empty()) {
            throw std::logic_error("execute '" + s.algorithm + "': rank " + std::to_string(rank) +
                                   " left a round with data in flight");
        }
        counters[static_cast<std::size_t>(rank)].rounds += 1;
    };
    schedule_walker(s).walk(cb);
    return counters;
}

extern template std::vector<rank_counters> execute<float>(const schedule&,
                                                          std::vector<std::vector<float>>&);
extern template std::vector<rank_counters> execute<double>(const schedule&,
                                                           std::vector<std::vector<double>>&);

}  // namespace trainvp::collectives
