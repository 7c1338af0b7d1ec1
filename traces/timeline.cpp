#include "traces/timeline.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace trainvp {

int timeline::track_of(const std::string& path) {
    auto it = m_track_index.find(path);
    if (it != m_track_index.end()) return it->second;
    const std::string process = path.substr(0, path.find('.'));
    auto pit = m_pids.find(process);
    int pid = 0;
    if (pit == m_pids.end()) {
        pid = static_cast<int>(m_pids.size()) + 1;
        m_pids.emplace(process, pid);
    } else {
        pid = pit->second;
    }
    const int index = static_cast<int>(m_tracks.size());
    m_tracks.push_back(track{pid, index + 1});
    m_track_paths.push_back(path);
    m_track_index.emplace(path, index);
    return index;
}

void timeline::span(const std::string& path, const std::string& name, const std::string& cat,
                    std::uint64_t start_ps, std::uint64_t end_ps) {
    if (!m_enabled) return;
    m_spans.push_back(span_rec{start_ps, std::max(start_ps, end_ps), track_of(path), name, cat});
}

namespace {
// Trace-event times are microseconds; picosecond resolution needs six decimals.
std::string us(std::uint64_t ps) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%" PRIu64 ".%06" PRIu64, ps / 1000000, ps % 1000000);
    return buf;
}
std::string quote(const std::string& s) { return nlohmann::json(s).dump(); }
}  // namespace

std::string timeline::to_json() const {
    std::vector<const span_rec*> order;
    order.reserve(m_spans.size());
    for (const auto& s : m_spans) order.push_back(&s);
    std::stable_sort(order.begin(), order.end(), [&](const span_rec* a, const span_rec* b) {
        if (a->start != b->start) return a->start < b->start;
        if (m_track_paths[a->track_index] != m_track_paths[b->track_index]) {
            return m_track_paths[a->track_index] < m_track_paths[b->track_index];
        }
        return a->name < b->name;
    });

    std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    auto emit = [&](const std::string& line) {
        if (!first) out += ",\n";
        first = false;
        out += line;
    };
    for (const auto& [process, pid] : m_pids) {
        emit("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pid) +
             ",\"tid\":0,\"args\":{\"name\":" + quote(process) + "}}");
    }
    std::vector<std::string> paths = m_track_paths;
    std::sort(paths.begin(), paths.end());
    for (const auto& path : paths) {
        const track& t = m_tracks[m_track_index.at(path)];
        emit("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(t.pid) +
             ",\"tid\":" + std::to_string(t.tid) + ",\"args\":{\"name\":" + quote(path) + "}}");
    }
    for (const span_rec* s : order) {
        const track& t = m_tracks[s->track_index];
        emit("{\"ph\":\"X\",\"name\":" + quote(s->name) + ",\"cat\":" + quote(s->cat) +
             ",\"ts\":" + us(s->start) + ",\"dur\":" + us(s->end - s->start) +
             ",\"pid\":" + std::to_string(t.pid) + ",\"tid\":" + std::to_string(t.tid) + "}");
    }
    out += "\n]}\n";
    return out;
}

}  // namespace trainvp
