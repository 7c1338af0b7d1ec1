#include "workloads/models/expression.h"

#include <cctype>
#include <vector>

#include "core/did_you_mean.h"

namespace trainvp::models {

namespace {

class parser {
public:
    parser(const std::string& text, const std::map<std::string, std::int64_t>& variables)
        : m_text(text), m_vars(variables) {}

    std::int64_t parse() {
        skip_space();
        if (m_pos == m_text.size())
            throw expression_error("expected an integer, got an empty value");
        const std::int64_t v = parse_sum();
        skip_space();
        if (m_pos != m_text.size()) unexpected();
        return v;
    }

private:
    std::int64_t parse_sum() {
        std::int64_t v = parse_product();
        for (;;) {
            skip_space();
            if (m_pos >= m_text.size()) return v;
            const char op = m_text[m_pos];
            if (op != '+' && op != '-') return v;
            ++m_pos;
            const std::int64_t rhs = parse_product();
            std::int64_t r = 0;
            const bool overflow =
                op == '+' ? __builtin_add_overflow(v, rhs, &r) : __builtin_sub_overflow(v, rhs, &r);
            if (overflow) fail("overflows a 64-bit integer");
            v = r;
        }
    }

    std::int64_t parse_product() {
        std::int64_t v = parse_unary();
        for (;;) {
            skip_space();
            if (m_pos >= m_text.size()) return v;
            const char op = m_text[m_pos];
            if (op != '*' && op != '/') return v;
            ++m_pos;
            const std::int64_t rhs = parse_unary();
            if (op == '*') {
                std::int64_t r = 0;
                if (__builtin_mul_overflow(v, rhs, &r)) fail("overflows a 64-bit integer");
                v = r;
            } else {
                if (rhs == 0) fail("divides by zero");
                if (v % rhs != 0) {
                    fail("is not a whole number (" + std::to_string(v) + " / " +
                         std::to_string(rhs) + ")");
                }
                v /= rhs;
            }
        }
    }

    std::int64_t parse_unary() {
        skip_space();
        if (m_pos < m_text.size() && m_text[m_pos] == '-') {
            ++m_pos;
            const std::int64_t v = parse_unary();
            std::int64_t r = 0;
            if (__builtin_sub_overflow(std::int64_t{0}, v, &r)) fail("overflows a 64-bit integer");
            return r;
        }
        return parse_primary();
    }

    std::int64_t parse_primary() {
        skip_space();
        if (m_pos >= m_text.size()) fail("ends where a number or a parameter was expected");
        const char c = m_text[m_pos];
        if (c == '(') {
            ++m_pos;
            const std::int64_t v = parse_sum();
            skip_space();
            if (m_pos >= m_text.size() || m_text[m_pos] != ')') fail("misses a closing ')'");
            ++m_pos;
            return v;
        }
        if (std::isdigit(static_cast<unsigned char>(c))) {
            std::int64_t v = 0;
            while (m_pos < m_text.size() &&
                   std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
                const int digit = m_text[m_pos] - '0';
                if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, digit, &v)) {
                    fail("overflows a 64-bit integer");
                }
                ++m_pos;
            }
            return v;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            const std::size_t start = m_pos;
            while (
                m_pos < m_text.size() &&
                (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_')) {
                ++m_pos;
            }
            const std::string name = m_text.substr(start, m_pos - start);
            auto it = m_vars.find(name);
            if (it == m_vars.end()) unknown(name);
            return it->second;
        }
        unexpected();
    }

    [[noreturn]] void unknown(const std::string& name) const {
        std::vector<std::string> known;
        for (const auto& [k, v] : m_vars) known.push_back(k);
        std::string msg = "unknown parameter '" + name + "'";
        if (m_text != name) msg += " in '" + m_text + "'";
        if (known.empty()) throw expression_error(msg + " (the model declares no parameters)");
        const std::string hint = did_you_mean(name, known);
        throw expression_error(msg + (hint.empty() ? " (known: " + join(known) + ")" : hint));
    }

    [[noreturn]] void unexpected() const {
        throw expression_error("expected an integer, got '" + m_text + "'");
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw expression_error("'" + m_text + "' " + what);
    }

    void skip_space() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) {
            ++m_pos;
        }
    }

    const std::string& m_text;
    const std::map<std::string, std::int64_t>& m_vars;
    std::size_t m_pos = 0;
};

}  // namespace

std::int64_t expression::evaluate(const std::string& text,
                                  const std::map<std::string, std::int64_t>& variables) {
    return parser(text, variables).parse();
}

bool expression::is_identifier(const std::string& name) {
    if (name.empty()) return false;
    if (!std::isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_') return false;
    for (char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    }
    return true;
}

}  // namespace trainvp::models
