// The params one instance was given in the config, as handed to an IP constructor.  The
// constructor calls apply(*this): every declared param gets its configured value or its
// default, with the checks of its declaration.  Keys the type does not declare were rejected
// before construction.
#pragma once

#include <string>
#include <vector>

#include "core/config_node.h"
#include "core/param_decl.h"

namespace trainvp {

struct type_info;

struct param_value {
    std::string name;
    config_node value;
};

// A declared param's default as a config value.
config_node default_value(const param_decl& d);

class params {
public:
    params(std::string instance_path, std::vector<param_value> values)
        : m_path(std::move(instance_path)), m_values(std::move(values)) {}

    const std::string& path() const { return m_path; }
    const std::vector<param_value>& values() const { return m_values; }
    const config_node* find(const std::string& name) const;

    // Stores every declared param into `obj`: the configured value, else the default.
    // A missing required param is an input_error naming the instance.
    void apply_to(void* obj, const std::vector<param_decl>& decls) const;

    template <typename T>
    void apply(T& obj, const std::vector<param_decl>& decls) const {
        apply_to(static_cast<void*>(&obj), decls);
    }

    // The type being built, whose declared params apply(obj) uses.
    const type_info* type() const { return m_type; }
    void set_type(const type_info* t, const std::vector<param_decl>* decls) {
        m_type = t;
        m_decls = decls;
    }
    // Stores every param the type declares into `obj` (call from the IP's constructor).
    template <typename T>
    void apply(T& obj) const {
        apply_to(static_cast<void*>(&obj), *m_decls);
    }

    // Location to blame for errors about the instance as a whole.
    source_loc where() const { return m_where; }
    void set_where(const source_loc& w) { m_where = w; }

private:
    std::string m_path;
    std::vector<param_value> m_values;
    source_loc m_where;
    const type_info* m_type = nullptr;
    const std::vector<param_decl>* m_decls = nullptr;
};

}  // namespace trainvp
