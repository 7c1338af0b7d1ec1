// A YAML document as a tree that remembers where every key and value came from (file, line,
// column), so that any error found later can point at it.  Includes are resolved here, and
// --set overrides are applied to the tree before the loader expands it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"

namespace YAML {
class Node;
class Emitter;
}  // namespace YAML

namespace trainvp {

class config_node {
public:
    enum class kind { NIL, SCALAR, MAP, SEQ };

    struct entry;  // a map entry: key, key location, value

    config_node() = default;
    static config_node scalar_node(const std::string& text, const source_loc& loc);
    static config_node map_node(const source_loc& loc);

    kind type() const { return m_kind; }
    bool is_nil() const { return m_kind == kind::NIL; }
    bool is_scalar() const { return m_kind == kind::SCALAR; }
    bool is_map() const { return m_kind == kind::MAP; }
    bool is_seq() const { return m_kind == kind::SEQ; }
    const char* kind_name() const;

    const source_loc& loc() const { return m_loc; }
    const std::string& scalar() const { return m_scalar; }
    bool quoted() const { return m_quoted; }
    const std::vector<entry>& entries() const { return m_entries; }
    std::vector<entry>& entries() { return m_entries; }
    const std::vector<config_node>& items() const { return m_items; }
    std::vector<config_node>& items() { return m_items; }

    const config_node* find(const std::string& key) const;
    config_node* find(const std::string& key);
    const entry* find_entry(const std::string& key) const;
    // Inserts or replaces a map entry; the node becomes a map if it was nil.
    config_node& set(const std::string& key, const config_node& value, const source_loc& key_loc);
    void erase(const std::string& key);
    std::vector<std::string> keys() const;

    // Maps merge key by key; a `connections` list is appended to; anything else in `over`
    // replaces what is here.
    void merge_from(const config_node& over);

    // How parse() names a repeated key in its error: as written ("mem"), as platform configs
    // report it, or by its full path from the document's root ("layers[0].kernel"), as model
    // files report every key.
    enum class key_names { AS_WRITTEN, FULL_PATH };

    // How many values aliases may add to a document (each alias counts the values it stands
    // for); past it, parse() refuses the document at the value it was building.
    static constexpr std::uint64_t k_max_values = 1000000;

    // Parses one YAML document.  Syntax errors, duplicate keys, nesting deeper than 256 levels
    // and aliases expanding past k_max_values are input_errors.
    static config_node parse(const std::string& text, const std::string& file_name,
                             key_names names = key_names::AS_WRITTEN);
    // Loads a file and, recursively, the files its top-level `include:` names (relative to the
    // including file).  Included files are merged first; the including file wins.
    static config_node load_file(const std::string& path);

    // Applies "a.b[2].c=value" to the tree (creating maps on the way).  The value is parsed as
    // YAML so that lists and maps can be given.
    void apply_set(const std::string& assignment);

    YAML::Node to_yaml() const;
    // Streams the node to `out` as out << to_yaml() would, without building the node tree.
    void emit(YAML::Emitter& out) const;

private:
    // PATH is the node's full key when duplicate keys are named by path, else null.
    // BUDGET counts down the values still allowed.
    static config_node from_yaml(const YAML::Node& n, const std::string& file,
                                 const std::string* path, std::uint64_t& budget);
    static config_node load_file_chain(const std::string& path, std::vector<std::string>& chain,
                                       const source_loc& from);

    kind m_kind = kind::NIL;
    source_loc m_loc;
    std::string m_scalar;
    bool m_quoted = false;
    std::vector<entry> m_entries;
    std::vector<config_node> m_items;
};

struct config_node::entry {
    std::string key;
    source_loc key_loc;
    config_node value;
};

}  // namespace trainvp
