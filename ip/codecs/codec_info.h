// What the codec registry knows about one codec: its name as configs write it, a sentence for
// `trainvp describe codecs`, its params and the factory.  Pure C++ (no SystemC).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ip/codecs/codec.h"

namespace trainvp::codecs {

// A codec's parameter: a number with a default and an inclusive range.
struct codec_param {
    std::string name;
    std::string description;
    double default_value = 0;
    double min = 0, max = 0;
    bool integer = true;  // all of the built-in codecs' params are
};

// Param values by name.  codec_registry::make fills in the defaults and checks the names,
// ranges and integrality before the factory sees them, so a factory reads every declared param.
using codec_args = std::map<std::string, double>;

struct codec_info {
    std::string name;         // as configs write it ("bfp"); equals codec::name()
    std::string description;  // one sentence, with its source
    std::vector<codec_param> params;
    std::function<std::unique_ptr<codec>(const codec_args&)> make;
};

}  // namespace trainvp::codecs
