// Writes a whole file atomically: into a temporary beside it (PATH.tmp.PID), flushed to the disk,
// then renamed.  A reader never sees half a file, a process killed at any point leaves the old
// file or the new one (and perhaps a *.tmp.PID), and a failed write (a full disk, a folder that
// cannot be written) leaves the old file in place and says why.
#pragma once

#include <string>

namespace trainvp {

// Throws sim_error naming the path and the system's reason when the write fails.
void write_file_atomically(const std::string& path, const std::string& content);

// Checks that a file another library wrote (SystemC's VCD writer, which does not report its
// write errors) did not lose data to a full disk or the file size limit: one more byte must be
// writable (it is taken back).  Throws sim_error naming PATH and the system's reason.
void check_file_written(const std::string& path);

// Renames a finished temporary file into place (for files written by other libraries, such as
// SystemC's VCD writer).  Throws sim_error on failure.
void commit_file(const std::string& tmp_path, const std::string& path);

}  // namespace trainvp
