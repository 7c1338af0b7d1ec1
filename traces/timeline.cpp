#include "traces/timeline.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <tuple>

#include <nlohmann/json.hpp>

namespace trainvp {

int timeline::pid_of(const std::string& process) {
    auto pit = m_pids.find(process);
    if (pit != m_pids.end()) return pit->second;
    const int pid = static_cast<int>(m_pids.size()) + 1;
    m_pids.emplace(process, pid);
    return pid;
}

int timeline::track_of(const std::string& path) {
    auto it = m_track_index.find(path);
    if (it != m_track_index.end()) return it->second;
    const int pid = pid_of(path.substr(0, path.find('.')));
    const int index = static_cast<int>(m_tracks.size());
    m_tracks.push_back(track{pid, index + 1});
    m_track_paths.push_back(path);
    m_track_index.emplace(path, index);
    return index;
}

void timeline::span(const std::string& path, const std::string& name, const std::string& cat,
                    std::uint64_t start_ps, std::uint64_t end_ps, const span_args& args) {
    if (!m_enabled) return;
    m_spans.push_back(
        span_rec{start_ps, std::max(start_ps, end_ps), track_of(path), name, cat, args});
}

void timeline::counter(const std::string& process, const std::string& name, std::uint64_t start_ps,
                       std::uint64_t step_ps, const std::vector<double>& values) {
    std::vector<std::pair<std::uint64_t, double>> steps;
    steps.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        steps.emplace_back(start_ps + step_ps * i, values[i]);
    }
    counter_steps(process, name, steps);
}

void timeline::counter_steps(const std::string& process, const std::string& name,
                             const std::vector<std::pair<std::uint64_t, double>>& steps) {
    if (!m_enabled || steps.empty()) return;
    const std::string p = process.empty() ? std::string("platform") : process;
    pid_of(p);
    m_counters.push_back(counter_rec{p, name, steps});
}

namespace {
// Trace-event times are microseconds; picosecond resolution needs six decimals.
std::string us(std::uint64_t ps) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%" PRIu64 ".%06" PRIu64, ps / 1000000, ps % 1000000);
    return buf;
}
std::string quote(const std::string& s) { return nlohmann::json(s).dump(); }
std::string real(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}
std::string args_json(const span_args& a) {
    std::string out;
    auto add = [&](const char* k, const std::string& v) {
        out += out.empty() ? "{" : ",";
        out += "\"";
        out += k;
        out += "\":" + v;
    };
    if (a.op) add("op", quote(a.op));
    if (a.bytes >= 0) add("bytes", std::to_string(a.bytes));
    if (a.peer >= 0) {
        add(a.dir == span_args::flow::RECV ? "from" : "to",
            quote("node[" + std::to_string(a.peer) + "]"));
    }
    if (a.tag >= 0) add("tag", std::to_string(a.tag));
    if (a.flops >= 0) add("flops", real(a.flops));
    return out.empty() ? out : out + "}";
}
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
    // Flows: the k-th send from node a to node b with tag t to the k-th receive at b from a
    // with tag t, both in time order.
    using flow_key = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
    std::map<flow_key, std::vector<const span_rec*>> sends, recvs;
    for (const span_rec* s : order) {
        const span_args& a = s->args;
        if (a.node < 0 || a.peer < 0) continue;
        if (a.dir == span_args::flow::SEND) sends[{a.node, a.peer, a.tag}].push_back(s);
        if (a.dir == span_args::flow::RECV) recvs[{a.peer, a.node, a.tag}].push_back(s);
    }
    std::map<const span_rec*, std::uint64_t> flow_out, flow_in;
    std::uint64_t flow_id = 0;
    for (const auto& [key, out_list] : sends) {
        auto it = recvs.find(key);
        if (it == recvs.end()) continue;
        const std::size_t n = std::min(out_list.size(), it->second.size());
        for (std::size_t i = 0; i < n; ++i) {
            ++flow_id;
            flow_out[out_list[i]] = flow_id;
            flow_in[it->second[i]] = flow_id;
        }
    }
    for (const span_rec* s : order) {
        const track& t = m_tracks[s->track_index];
        const std::string where =
            ",\"pid\":" + std::to_string(t.pid) + ",\"tid\":" + std::to_string(t.tid);
        const std::string args = args_json(s->args);
        emit("{\"ph\":\"X\",\"name\":" + quote(s->name) + ",\"cat\":" + quote(s->cat) +
             ",\"ts\":" + us(s->start) + ",\"dur\":" + us(s->end - s->start) + where +
             (args.empty() ? "" : ",\"args\":" + args) + "}");
        // The arrow leaves the send where it starts and enters the receive's slice where it
        // ends (the message is in).
        if (auto f = flow_out.find(s); f != flow_out.end()) {
            emit("{\"ph\":\"s\",\"name\":\"message\",\"cat\":\"flow\",\"id\":" +
                 std::to_string(f->second) + ",\"ts\":" + us(s->start) + where + "}");
        }
        if (auto f = flow_in.find(s); f != flow_in.end()) {
            const std::uint64_t at = s->end > s->start ? s->end - 1 : s->start;
            emit("{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"message\",\"cat\":\"flow\",\"id\":" +
                 std::to_string(f->second) + ",\"ts\":" + us(at) + where + "}");
        }
    }
    for (const auto& c : m_counters) {
        const std::string pid = std::to_string(m_pids.at(c.process));
        for (std::size_t i = 0; i < c.steps.size(); ++i) {
            // A counter holds its value: repeats are left out.
            if (i > 0 && c.steps[i].second == c.steps[i - 1].second) continue;
            emit("{\"ph\":\"C\",\"name\":" + quote(c.name) +
                 ",\"cat\":\"counter\",\"ts\":" + us(c.steps[i].first) + ",\"pid\":" + pid +
                 ",\"tid\":0,\"args\":{\"value\":" + real(c.steps[i].second) + "}}");
        }
    }
    out += "\n]}\n";
    return out;
}

}  // namespace trainvp
