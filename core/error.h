// Error types shared by every area.  Modules throw; only sc_main turns errors into exit codes
// (input_error -> 2, sim_error -> 1).  Header-only so that pure C++ areas can use it without
// linking SystemC.
#pragma once

#include <stdexcept>
#include <string>

namespace trainvp {

// Where a value came from: a YAML file position, a --set argument, or nothing known.
struct source_loc {
    std::string file;  // file name, or "--set" for command-line overrides
    int line = 0;      // 1-based; 0 when unknown
    int column = 0;    // 1-based; 0 when unknown

    std::string str() const {
        if (file.empty()) return "<input>";
        if (line <= 0) return file;
        return file + ":" + std::to_string(line) + ":" + std::to_string(column);
    }
};

// Bad input: a config, model file, unit or command-line value that is wrong.  The message reads
// "FILE:LINE:COL: error: KEY: WHAT" so that editors can jump to it.
class input_error : public std::runtime_error {
public:
    input_error(const source_loc& where, const std::string& key, const std::string& what)
        : std::runtime_error(format(where, key, what)), m_where(where), m_key(key), m_what(what) {}

    const source_loc& where() const { return m_where; }
    const std::string& key() const { return m_key; }
    const std::string& reason() const { return m_what; }

private:
    static std::string format(const source_loc& where, const std::string& key,
                              const std::string& what) {
        std::string s = where.str() + ": error: ";
        if (!key.empty()) s += key + ": ";
        return s + what;
    }
    source_loc m_where;
    std::string m_key;
    std::string m_what;
};

// A failure while simulating: a stall, a violated invariant, an output that cannot be written.
class sim_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace trainvp
