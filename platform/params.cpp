#include "platform/params.h"

namespace trainvp {

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
        } else {
            d.apply(obj, config_node::scalar_node(d.default_text, source_loc{"<default>", 0, 0}),
                    key);
        }
    }
}

}  // namespace trainvp
