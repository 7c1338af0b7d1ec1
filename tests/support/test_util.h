// Helpers shared by the platform tests: temporary files, running the trainvp command, and
// building a platform from YAML text in-process.
#pragma once

#include <sys/wait.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"

namespace trainvp::test {

// The folders temp_dir made in this process, removed when it exits (each test runs in a process
// of its own under ctest), so that runs of the suite do not pile up outputs in the temp dir
// (they did: 53,000 folders, 62 GB, filled a disk).  TRAINVP_KEEP_TEST_DIRS=1 keeps them for a
// post-mortem.
struct temp_dirs {
    std::vector<std::filesystem::path> made;
    ~temp_dirs() {
        const char* keep = std::getenv("TRAINVP_KEEP_TEST_DIRS");
        if (keep != nullptr && *keep != '\0' && std::string(keep) != "0") return;
        std::error_code ec;
        for (const auto& p : made) std::filesystem::remove_all(p, ec);
    }
    static temp_dirs& of_process() {
        static temp_dirs d;
        return d;
    }
};

// A fresh folder under the system temp dir, unique per test; removed at exit (temp_dirs).
inline std::filesystem::path temp_dir(const std::string& name) {
    namespace fs = std::filesystem;
    fs::path p =
        fs::temp_directory_path() / ("trainvp_test_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    auto& made = temp_dirs::of_process().made;
    if (std::find(made.begin(), made.end(), p) == made.end()) made.push_back(p);
    return p;
}

// The names (without .yaml) of the YAML files in `dir`, sorted: a corpus of test inputs.
inline std::vector<std::string> yaml_stems(const std::filesystem::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

inline std::string write_file(const std::filesystem::path& p, const std::string& text) {
    std::ofstream(p) << text;
    return p.string();
}

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct command_result {
    int exit_code = -1;
    std::string out;  // stdout
    std::string err;  // stderr
};

// Runs a shell command, capturing stdout and stderr separately.
inline command_result run_command(const std::string& cmd) {
    namespace fs = std::filesystem;
    const fs::path dir = temp_dir("cmd");
    const std::string out = (dir / "out.txt").string(), err = (dir / "err.txt").string();
    const int status = std::system((cmd + " >" + out + " 2>" + err).c_str());
    command_result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(out);
    r.err = read_file(err);
    fs::remove_all(dir);
    return r;
}

// What a thrown input_error says (or "" when nothing is thrown).
template <typename F>
std::string input_error_of(F&& f) {
    try {
        f();
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace trainvp::test
