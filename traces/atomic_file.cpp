#include "traces/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "core/error.h"

namespace trainvp {

void write_file_atomically(const std::string& path, const std::string& content) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) {
            throw sim_error("cannot write '" + path + "': " + std::strerror(errno));
        }
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out) {
            std::remove(tmp.c_str());
            throw sim_error("cannot write '" + path + "': " + std::strerror(errno));
        }
    }
    commit_file(tmp, path);
}

void commit_file(const std::string& tmp_path, const std::string& path) {
    if (std::rename(tmp_path.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(tmp_path.c_str());
        throw sim_error("cannot write '" + path + "': " + why);
    }
}

}  // namespace trainvp
