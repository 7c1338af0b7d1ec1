// Spans of activity per block, written as Chrome trace-event JSON (open in ui.perfetto.dev).
// One process per top-level instance (a node), one thread (track) per block inside it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trainvp {

class timeline {
public:
    explicit timeline(bool enabled = true) : m_enabled(enabled) {}

    bool enabled() const { return m_enabled; }

    // A span [start_ps, end_ps) named `name` on the track of block `path` ("node[2].nic"),
    // with category `cat` ("compute", "comm", ...).
    void span(const std::string& path, const std::string& name, const std::string& cat,
              std::uint64_t start_ps, std::uint64_t end_ps);

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
    };
    int track_of(const std::string& path);

    bool m_enabled;
    std::map<std::string, int> m_track_index;  // path -> index into m_tracks
    std::vector<std::string> m_track_paths;
    std::vector<track> m_tracks;
    std::map<std::string, int> m_pids;  // process (top-level instance) -> pid
    std::vector<span_rec> m_spans;
};

}  // namespace trainvp
