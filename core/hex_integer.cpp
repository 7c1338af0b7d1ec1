#include "core/hex_integer.h"

namespace trainvp {

bool parse_hex_integer(const std::string& text, std::uint64_t& out) {
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

}  // namespace trainvp
