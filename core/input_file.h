// Reads an input file (a config, an include, a model file, a sweep file) with bounded work
// whatever the file is: only a regular file is read (a FIFO, a device such as /dev/zero, a
// directory or a socket is refused before anything is read from it, so it cannot block or
// stream forever), and a file larger than the limit is refused from its size.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"

namespace trainvp {

class input_file {
public:
    // No config, model or sweep file comes near this; a larger file is almost certainly not one.
    static constexpr std::uint64_t k_max_bytes = 64ull << 20;

    // The whole text of the file at PATH.  WHAT names it in errors ("config file", "model
    // file").  A missing or unreadable file is an input_error "cannot open WHAT 'PATH'"; a file
    // that is not regular or is larger than k_max_bytes says so.  The error is located at FROM
    // with KEY (the `include:` that names it) or, when FROM has no file, at the file itself.
    static std::string read(const std::string& path, const std::string& what,
                            const source_loc& from = {}, const std::string& key = {});

    // "a FIFO", "a character device", ... for a path that exists and is not a regular file;
    // empty for a regular file or one that does not exist.
    static std::string not_regular(const std::string& path);
};

}  // namespace trainvp
