#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace trainvp {

namespace {

std::string kind_of(mode_t mode) {
    if (S_ISREG(mode)) return {};
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// "64 MiB" for a whole number of MiB, else in bytes (never rounded: 64 MiB + 1 B must not read
// as 64 MiB).
std::string size_text(std::uint64_t bytes) {
    const std::uint64_t mib = 1ull << 20;
    if (bytes >= mib && bytes % mib == 0) return std::to_string(bytes / mib) + " MiB";
    return std::to_string(bytes) + " B";
}

// Closes the descriptor on every path out.
class fd_guard {
public:
    explicit fd_guard(int fd) : m_fd(fd) {}
    ~fd_guard() {
        if (m_fd >= 0) ::close(m_fd);
    }
    fd_guard(const fd_guard&) = delete;
    fd_guard& operator=(const fd_guard&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

}  // namespace

std::string input_file::not_regular(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return {};
    return kind_of(st.st_mode);
}

std::string input_file::read(const std::string& path, const std::string& what,
                             const source_loc& from, const std::string& key) {
    const bool at_file = from.file.empty();
    const source_loc where = at_file ? source_loc{path, 0, 0} : from;
    const std::string k = at_file ? std::string() : key;
    auto fail = [&](const std::string& why) { throw input_error(where, k, why); };
    const std::string cannot = "cannot open " + what + " '" + path + "'";

    // stat before open: opening a FIFO for reading blocks until a writer comes, and a device
    // such as /dev/zero never ends.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) fail(cannot);
    if (!S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) fail(cannot);
        fail(cannot + ": it is " + kind_of(st.st_mode) + ", not a regular file");
    }
    // O_NONBLOCK: should the path have become a FIFO since the stat, open does not wait.
    const fd_guard fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) fail(cannot);
    if (::fstat(fd.get(), &st) != 0) fail(cannot);
    if (!S_ISREG(st.st_mode)) {
        fail(cannot + ": it is " + kind_of(st.st_mode) + ", not a regular file");
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > k_max_bytes) {
        fail(what + " '" + path + "' is " + size_text(size) + ", more than the limit of " +
             size_text(k_max_bytes));
    }
    std::string text;
    text.resize(static_cast<std::size_t>(size));
    std::size_t got = 0;
    // Read at most the limit (the file may grow while it is read).
    while (got < text.size()) {
        const ssize_t n = ::read(fd.get(), &text[got], text.size() - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("cannot read " + what + " '" + path + "'");
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    return text;
}

}  // namespace trainvp
