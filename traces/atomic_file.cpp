#include "traces/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/error.h"

namespace trainvp {

namespace {

[[noreturn]] void fail(const std::string& path, int err) {
    throw sim_error("cannot write '" + path + "': " + std::strerror(err));
}

// Writes all of `size` bytes to `fd`; returns 0 or the errno of the failure.
int write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (n == 0) return ENOSPC;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return 0;
}

}  // namespace

// The temporary is PATH.tmp.PID: two processes writing the same file do not share it, and one
// killed halfway leaves a file whose name says it is not a result.  The data reaches the disk
// (fsync) before the rename, so that the file under its final name is whole even after a crash
// of the machine.
void write_file_atomically(const std::string& path, const std::string& content) {
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail(path, errno);
    int err = write_all(fd, content.data(), content.size());
    if (err == 0 && ::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) err = errno;
    if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
    if (err != 0) {
        ::unlink(tmp.c_str());
        fail(path, err);
    }
    commit_file(tmp, path);
}

void check_file_written(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) fail(path, errno);
    struct stat st {};
    int err = ::fstat(fd, &st) == 0 ? 0 : errno;
    // A writer that dropped data on a full disk (or past the file size limit) left the disk
    // full: one more byte cannot be written either.  The byte is taken back at once.
    if (err == 0) err = write_all(fd, "\n", 1);
    if (err == 0 && ::ftruncate(fd, st.st_size) != 0) err = errno;
    if (err == 0 && ::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) err = errno;
    ::close(fd);
    if (err != 0) fail(path, err);
}

void commit_file(const std::string& tmp_path, const std::string& path) {
    if (std::rename(tmp_path.c_str(), path.c_str()) != 0) {
        const int err = errno;
        std::remove(tmp_path.c_str());
        fail(path, err);
    }
}

}  // namespace trainvp
