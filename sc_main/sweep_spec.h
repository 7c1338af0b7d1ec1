// A sweep file: a base config, fixed --set edits, and a grid of --set paths (cartesian product
// of axes; a `zip:` axis advances several paths together).  Loading validates the file like a
// config (file:line:col, full key, did-you-mean) and loads the base config once per point with
// that point's edits, so that a misspelt path is reported against the sweep file before any
// point runs.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"

namespace trainvp {

class registry;

struct sweep_point {
    std::size_t index = 0;
    std::string name;                 // output folder: p<index>_<values>
    std::vector<std::string> values;  // one per swept path, as --set writes it
    std::vector<std::string> sets;    // the fixed edits, then "path=value" per swept path
    // FNV-1a of the point's fully expanded config (config.resolved.yaml): a rerun reuses a
    // point's result only while this is unchanged (an edit of the base or an included file).
    std::string fingerprint;
};

class sweep_spec {
public:
    // Reads and validates `path`; throws input_error.
    static sweep_spec load(const std::string& path, const registry& reg);

    const std::string& file() const { return m_file; }
    const std::string& base() const { return m_base; }  // the base config, as a usable path
    const std::string& description() const { return m_description; }
    const std::vector<std::string>& paths() const { return m_paths; }  // swept paths
    const std::vector<sweep_point>& points() const { return m_points; }

    // The keys a sweep file may have.
    static const std::vector<std::string>& keys();

private:
    std::string m_file, m_base, m_description;
    std::vector<std::string> m_paths;
    std::vector<sweep_point> m_points;
};

}  // namespace trainvp
