#include "core/tos.h"

#include "core/error.h"
#include "core/hex_integer.h"
#include "core/param_decl.h"

namespace trainvp {

namespace {

const param_decl& tos_decl() {
    static const param_decl d = [] {
        param_decl x;
        x.name = "tos";
        x.kind = param_kind::INT;
        param_builder(x).range("0", "255");
        return x;
    }();
    return d;
}

}  // namespace

std::uint8_t parse_tos(const config_node& value, const std::string& key) {
    const param_decl& d = tos_decl();
    std::uint64_t hex = 0;
    if (value.is_scalar() && parse_hex_integer(value.scalar(), hex)) {
        if (hex > 255) {
            throw input_error(value.loc(), key,
                              "'" + value.scalar() + "' is out of range " + d.range_text);
        }
        return static_cast<std::uint8_t>(hex);
    }
    return static_cast<std::uint8_t>(param_parse::to_int(value, d, key));
}

}  // namespace trainvp
