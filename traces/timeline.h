// Spans of activity per block, written as Chrome trace-event JSON (open in ui.perfetto.dev).
// One process per top-level instance (a node), one thread (track) per block inside it.  Spans
// carry args (the op's kind, bytes, peer, tag, FLOPs); a send is joined to its receive by a
// flow arrow (messages between one pair of nodes with one tag are matched in order, as MPI's
// non-overtaking rule does); counter tracks show a quantity over time (a link's utilisation).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trainvp {

// What a span knows about its op; a negative number is "not given".
struct span_args {
    const char* op = nullptr;  // the op's kind ("send", "compute", ...)
    std::int64_t bytes = -1;
    std::int64_t node = -1;  // the node the span's host belongs to
    std::int64_t peer = -1;  // send: destination node, recv: source node
    std::int64_t tag = -1;
    double flops = -1;
    enum class flow : std::uint8_t { NONE, SEND, RECV } dir = flow::NONE;
};

class timeline {
public:
    explicit timeline(bool enabled = true) : m_enabled(enabled) {}

    bool enabled() const { return m_enabled; }

    // A span [start_ps, end_ps) named `name` on the track of block `path` ("node[2].nic"),
    // with category `cat` ("compute", "comm", ...).
    void span(const std::string& path, const std::string& name, const std::string& cat,
              std::uint64_t start_ps, std::uint64_t end_ps, const span_args& args = {});
    // A counter track `name` of process `process` ("node[0]", or "" for the platform):
    // value[i] from start_ps + i * step_ps on.
    void counter(const std::string& process, const std::string& name, std::uint64_t start_ps,
                 std::uint64_t step_ps, const std::vector<double>& values);
    // A counter track given as (time, value) steps in time order.
    void counter_steps(const std::string& process, const std::string& name,
                       const std::vector<std::pair<std::uint64_t, double>>& steps);

    std::size_t size() const { return m_spans.size(); }
    // The trace-event JSON document.  Spans are sorted by (start, track, name) so that the
    // file is the same whatever order blocks reported them in.
    std::string to_json() const;

private:
    struct track {
        int pid;
        int tid;
    };
    struct span_rec {
        std::uint64_t start;
        std::uint64_t end;
        int track_index;
        std::string name;
        std::string cat;
        span_args args;
    };
    struct counter_rec {
        std::string process, name;
        std::vector<std::pair<std::uint64_t, double>> steps;
    };
    int pid_of(const std::string& process);
    int track_of(const std::string& path);

    bool m_enabled;
    std::map<std::string, int> m_track_index;  // path -> index into m_tracks
    std::vector<std::string> m_track_paths;
    std::vector<track> m_tracks;
    std::map<std::string, int> m_pids;  // process (top-level instance) -> pid
    std::vector<span_rec> m_spans;
    std::vector<counter_rec> m_counters;
};

}  // namespace trainvp
