#include "core/tos.h"

#include "core/error.h"
#include "core/param_decl.h"

namespace trainvp {

namespace {

// 0x-prefixed hexadecimal, or nothing when `text` is not (then it is read as a number).
bool parse_hex(const std::string& text, std::uint64_t& out) {
    if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return false;
    if (text.size() > 18) return false;
    std::uint64_t v = 0;
    for (std::size_t i = 2; i < text.size(); ++i) {
        const char c = text[i];
        int d = 0;
        if (c >= '0' && c <= '9') {
            d = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            d = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            d = c - 'A' + 10;
        } else {
            return false;
        }
        v = v * 16 + static_cast<std::uint64_t>(d);
    }
    out = v;
    return true;
}

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
    if (value.is_scalar() && parse_hex(value.scalar(), hex)) {
        if (hex > 255) {
            throw input_error(value.loc(), key,
                              "'" + value.scalar() + "' is out of range " + d.range_text);
        }
        return static_cast<std::uint8_t>(hex);
    }
    return static_cast<std::uint8_t>(param_parse::to_int(value, d, key));
}

}  // namespace trainvp
