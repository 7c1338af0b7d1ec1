// The built-in codecs, registered into a registry in their listing order.
#pragma once

#include "ip/codecs/codec_registry.h"

namespace trainvp::codecs {

// Called once by codec_registry::global() on first use.
void register_builtin_codecs(codec_registry& r);

}  // namespace trainvp::codecs
