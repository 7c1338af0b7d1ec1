#include "core/params.h"

namespace trainvp {

// Defaults are spelt as in a config; a list default such as "[]" is YAML, not a plain value.
config_node default_value(const param_decl& d) {
    const source_loc where{"<default>", 0, 0};
    if (!d.default_text.empty() && d.default_text.front() == '[') {
        config_node v = config_node::parse(d.default_text, "<default>");
        if (v.is_seq()) return v;
    }
    return config_node::scalar_node(d.default_text, where);
}

const config_node* params::find(const std::string& name) const {
    for (const auto& v : m_values) {
        if (v.name == name) return &v.value;
    }
    return nullptr;
}

void params::apply_to(void* obj, const std::vector<param_decl>& decls) const {
    for (const auto& d : decls) {
        const std::string key = m_path.empty() ? d.name : m_path + "." + d.name;
        if (const config_node* v = find(d.name)) {
            d.apply(obj, *v, key);
        } else if (d.required) {
            throw input_error(m_where, key, "missing required param (" + d.description + ")");
        } else if (d.default_text.empty()) {
            // An empty default is "not set": the member keeps its initial value, and the block
            // asks find() whether the config gave one.
        } else {
            d.apply(obj, default_value(d), key);
        }
    }
}

}  // namespace trainvp
