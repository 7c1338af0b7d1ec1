// Integer expressions in model files ("width", "4 * d_model", "fc_layers - 2"), so that one file
// describes a family of models whose sizes are set at load time.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace trainvp::models {

// Thrown with a message that names the offending text; the loader adds file, line and key.
class expression_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class expression {
public:
    // Evaluates TEXT: decimal integers, parameter names, + - * / and parentheses, unary minus.
    // Division must be exact (a model whose d_model is not a multiple of its heads is a mistake,
    // not something to round), and every step is checked for 64-bit overflow.
    static std::int64_t evaluate(const std::string& text,
                                 const std::map<std::string, std::int64_t>& variables);

    // True for names a parameter may have: a letter or '_' then letters, digits or '_'.
    static bool is_identifier(const std::string& name);
};

}  // namespace trainvp::models
