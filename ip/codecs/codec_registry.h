// Gradient codecs by name.  A block makes its codec through make() from the name a config
// gives and never switches over codecs.  The built-in codecs are listed once, in
// builtin_codecs.cpp (one line each); a plugin registers its own with TRAINVP_REGISTER_CODEC
// (docs/adding-a-collective-or-codec.md).  Pure C++ (no SystemC).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/name_registry.h"
#include "ip/codecs/codec_info.h"

namespace trainvp::codecs {

class codec_registry : public name_registry<codec_info> {
public:
    // The process-wide registry: the built-in codecs (registered on first use, in the order of
    // builtin_codecs.cpp), then those of plugins in load order.
    static codec_registry& global();

    // Adds a codec.  Throws std::logic_error when the name is taken or empty, the factory is
    // missing, or a param's default is outside its range.
    void add(codec_info info);

    // A codec of `name` with `args` (defaults for the params not given).  Throws
    // std::invalid_argument for an unknown name, an unknown param, a value out of range or
    // not an integer where one is needed; the factory's own std::invalid_argument passes through.
    std::unique_ptr<codec> make(const std::string& name, const codec_args& args = {}) const;

private:
    codec_registry() : name_registry("codec") {}
};

// codec_registry::global().make(name, args).
std::unique_ptr<codec> make_codec(const std::string& name, const codec_args& args = {});

// Registers the result of `make_info()` from a static initialiser (a plugin's entry point).
// Errors are recorded, not thrown (the plugin loader reports them).
class codec_registrar {
public:
    explicit codec_registrar(codec_info (*make_info)()) noexcept;
};

}  // namespace trainvp::codecs

// One line at the end of a plugin's .cpp: TRAINVP_REGISTER_CODEC(my_codec_info).
#define TRAINVP_REGISTER_CODEC(MAKE_INFO)                                                 \
    static const ::trainvp::codecs::codec_registrar trainvp_codec_registrar_##MAKE_INFO { \
        &MAKE_INFO                                                                        \
    }
