// Writes a whole file atomically: into a temporary beside it, then rename.  A reader never
// sees half a file, and a failed write leaves the old file in place.
#pragma once

#include <string>

namespace trainvp {

// Throws sim_error naming the path and the system's reason when the write fails.
void write_file_atomically(const std::string& path, const std::string& content);

// Renames a finished temporary file into place (for files written by other libraries, such as
// SystemC's VCD writer).  Throws sim_error on failure.
void commit_file(const std::string& tmp_path, const std::string& path);

}  // namespace trainvp
