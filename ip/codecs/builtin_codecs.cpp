// The built-in codecs, one line each: an explicit list (not static registrars), for the
// reasons given in workloads/collectives/builtin_collectives.cpp.
#include "ip/codecs/builtin_codecs.h"

#include "ip/codecs/bfp_codec.h"
#include "ip/codecs/inceptionn_codec.h"
#include "ip/codecs/none_codec.h"

namespace trainvp::codecs {

void register_builtin_codecs(codec_registry& r) {
    r.add(none_codec_info());
    r.add(inceptionn_codec_info());
    r.add(bfp_codec_info());
}

}  // namespace trainvp::codecs
