#include "core/config_node.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/input_file.h"

namespace trainvp {

namespace fs = std::filesystem;

config_node config_node::scalar_node(const std::string& text, const source_loc& loc) {
    config_node n;
    n.m_kind = kind::SCALAR;
    n.m_scalar = text;
    n.m_loc = loc;
    return n;
}

config_node config_node::map_node(const source_loc& loc) {
    config_node n;
    n.m_kind = kind::MAP;
    n.m_loc = loc;
    return n;
}

const char* config_node::kind_name() const {
    switch (m_kind) {
        case kind::NIL:
            return "nothing";
        case kind::SCALAR:
            return "a value";
        case kind::MAP:
            return "a map";
        case kind::SEQ:
            return "a list";
    }
    return "?";
}

const config_node* config_node::find(const std::string& key) const {
    const entry* e = find_entry(key);
    return e ? &e->value : nullptr;
}

config_node* config_node::find(const std::string& key) {
    for (auto& e : m_entries) {
        if (e.key == key) return &e.value;
    }
    return nullptr;
}

const config_node::entry* config_node::find_entry(const std::string& key) const {
    for (const auto& e : m_entries) {
        if (e.key == key) return &e;
    }
    return nullptr;
}

config_node& config_node::set(const std::string& key, const config_node& value,
                              const source_loc& key_loc) {
    if (m_kind == kind::NIL) m_kind = kind::MAP;
    for (auto& e : m_entries) {
        if (e.key == key) {
            e.value = value;
            e.key_loc = key_loc;
            return e.value;
        }
    }
    m_entries.push_back(entry{key, key_loc, value});
    return m_entries.back().value;
}

void config_node::erase(const std::string& key) {
    m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(),
                                   [&](const entry& e) { return e.key == key; }),
                    m_entries.end());
}

std::vector<std::string> config_node::keys() const {
    std::vector<std::string> out;
    for (const auto& e : m_entries) out.push_back(e.key);
    return out;
}

void config_node::merge_from(const config_node& over) {
    if (!(is_map() && over.is_map())) {
        *this = over;
        return;
    }
    for (const auto& e : over.m_entries) {
        config_node* mine = find(e.key);
        if (mine == nullptr) {
            m_entries.push_back(e);
        } else if (e.key == "connections" && mine->is_seq() && e.value.is_seq()) {
            for (const auto& item : e.value.m_items) mine->m_items.push_back(item);
        } else {
            mine->merge_from(e.value);
        }
    }
}

namespace {

// yaml-cpp stops at 500 levels of parser recursion with "bad file" and no position; a flow
// nest deeper than this is refused first, at the bracket that goes too deep.
constexpr int k_max_depth = 256;

// The position of the first '[' or '{' that opens level k_max_depth + 1 of flow nesting, if
// any (quoted text and comments are skipped).
bool too_deep(const std::string& text, int& line, int& column) {
    int depth = 0;
    line = 1;
    column = 0;
    char quote = 0;
    bool comment = false;
    char prev = '\n';
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        ++column;
        if (c == '\n') {
            ++line;
            column = 0;
            comment = false;
            if (quote == 0) {
                prev = c;
                continue;
            }
        }
        if (comment) continue;
        if (quote != 0) {
            if (quote == '"' && c == '\\') {
                ++i;
                ++column;
            } else if (c == quote) {
                quote = 0;
            }
            prev = c;
            continue;
        }
        const bool token_start = prev == '\n' || prev == ' ' || prev == '\t' || prev == '[' ||
                                 prev == '{' || prev == ',' || prev == ':';
        if (c == '#' && (prev == '\n' || prev == ' ' || prev == '\t')) {
            comment = true;
        } else if ((c == '"' || c == '\'') && token_start) {
            quote = c;
        } else if (c == '[' || c == '{') {
            if (++depth > k_max_depth) return true;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
        prev = c;
    }
    return false;
}

// Counts the values of N as they expand, down from BUDGET, without building them: an
// exponential document is refused after BUDGET cheap steps rather than BUDGET config_nodes.
// Returns the node at which the budget ran out, or an undefined node.
YAML::Node exhausting(const YAML::Node& n, std::uint64_t& budget) {
    if (budget == 0) return n;
    --budget;
    if (n.IsSequence()) {
        for (const auto& item : n) {
            YAML::Node at = exhausting(item, budget);
            if (at.IsDefined()) return at;
        }
    } else if (n.IsMap()) {
        for (const auto& kv : n) {
            YAML::Node at = exhausting(kv.second, budget);
            if (at.IsDefined()) return at;
        }
    }
    return YAML::Node(YAML::NodeType::Undefined);
}

}  // namespace

config_node config_node::from_yaml(const YAML::Node& n, const std::string& file,
                                   const std::string* path, std::uint64_t& budget) {
    config_node out;
    const YAML::Mark m = n.Mark();
    out.m_loc = source_loc{file, m.line + 1, m.column + 1};
    // Aliases share their anchor's node, so a small file can stand for an exponential tree
    // (nine levels of ten aliases: 10^9 values); every value built counts against the budget.
    if (budget == 0) {
        throw input_error(out.m_loc, path ? *path : "",
                          "YAML aliases expand the document past the limit of " +
                              std::to_string(k_max_values) +
                              " values more than the file has characters (an alias of an "
                              "anchor that holds aliases multiplies)");
    }
    --budget;
    switch (n.Type()) {
        case YAML::NodeType::Undefined:
        case YAML::NodeType::Null:
            out.m_kind = kind::NIL;
            break;
        case YAML::NodeType::Scalar:
            out.m_kind = kind::SCALAR;
            out.m_scalar = n.Scalar();
            out.m_quoted = n.Tag() == "!";
            break;
        case YAML::NodeType::Sequence:
            out.m_kind = kind::SEQ;
            for (const auto& item : n) {
                // Paths are built only when asked for: platform configs can be large.
                std::string item_path;
                if (path) item_path = *path + "[" + std::to_string(out.m_items.size()) + "]";
                out.m_items.push_back(from_yaml(item, file, path ? &item_path : nullptr, budget));
            }
            break;
        case YAML::NodeType::Map:
            out.m_kind = kind::MAP;
            for (const auto& kv : n) {
                const YAML::Mark km = kv.first.Mark();
                source_loc kloc{file, km.line + 1, km.column + 1};
                if (!kv.first.IsScalar()) {
                    throw input_error(kloc, path ? *path : "", "a map key must be a plain value");
                }
                const std::string key = kv.first.Scalar();
                std::string key_path;
                if (path) key_path = path->empty() ? key : *path + "." + key;
                if (const entry* prev = out.find_entry(key)) {
                    throw input_error(kloc, path ? key_path : key,
                                      "duplicate key (first given at " + prev->key_loc.str() + ")");
                }
                out.m_entries.push_back(entry{
                    key, kloc, from_yaml(kv.second, file, path ? &key_path : nullptr, budget)});
            }
            break;
    }
    return out;
}

config_node config_node::parse(const std::string& text, const std::string& file_name,
                               key_names names) {
    YAML::Node root;
    int line = 0, column = 0;
    if (too_deep(text, line, column)) {
        throw input_error(source_loc{file_name, line, column}, "",
                          "YAML nesting deeper than " + std::to_string(k_max_depth) +
                              " levels (lists and maps inside one another; the limit)");
    }
    try {
        root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {
        throw input_error(source_loc{file_name, 0, 0}, "",
                          "YAML nesting deeper than the parser's limit of " +
                              std::to_string(e.depth()) + " levels");
    } catch (const YAML::Exception& e) {
        source_loc loc{file_name, e.mark.line + 1, e.mark.column + 1};
        if (e.mark.is_null()) loc.line = 0;
        throw input_error(loc, "", "YAML syntax: " + e.msg);
    }
    const std::string root_path;
    // Without aliases a document has fewer values than characters.
    std::uint64_t budget = k_max_values + text.size();
    std::uint64_t count = budget;
    const YAML::Node at = exhausting(root, count);
    if (at.IsDefined()) {
        const YAML::Mark m = at.Mark();
        throw input_error(source_loc{file_name, m.line + 1, m.column + 1}, "",
                          "YAML aliases expand the document past the limit of " +
                              std::to_string(k_max_values) +
                              " values more than the file has characters (an alias of an "
                              "anchor that holds aliases multiplies)");
    }
    return from_yaml(root, file_name, names == key_names::FULL_PATH ? &root_path : nullptr, budget);
}

config_node config_node::load_file(const std::string& path) {
    std::vector<std::string> chain;
    return load_file_chain(path, chain, source_loc{});
}

config_node config_node::load_file_chain(const std::string& path, std::vector<std::string>& chain,
                                         const source_loc& from) {
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(fs::path(path), ec);
    const std::string key = ec ? path : canon.string();
    if (std::find(chain.begin(), chain.end(), key) != chain.end()) {
        std::string cycle;
        for (const auto& c : chain) cycle += fs::path(c).filename().string() + " -> ";
        throw input_error(from, "include",
                          "include cycle: " + cycle + fs::path(key).filename().string());
    }
    config_node doc = parse(input_file::read(path, "config file", from, "include"), path);
    if (doc.is_nil()) return map_node(source_loc{path, 1, 1});
    if (!doc.is_map()) {
        throw input_error(
            doc.loc(), "",
            "a config file must be a map of sections, not " + std::string(doc.kind_name()));
    }

    const entry* inc = doc.find_entry("include");
    if (inc == nullptr) return doc;

    std::vector<config_node> files;
    if (inc->value.is_scalar()) {
        files.push_back(inc->value);
    } else if (inc->value.is_seq()) {
        files = inc->value.items();
    } else {
        throw input_error(inc->value.loc(), "include", "expected a file name or a list of them");
    }
    chain.push_back(key);
    config_node merged = map_node(doc.loc());
    const fs::path dir = fs::path(path).parent_path();
    for (const auto& f : files) {
        if (!f.is_scalar()) {
            throw input_error(f.loc(), "include",
                              "expected a file name, got " + std::string(f.kind_name()));
        }
        fs::path p = fs::path(f.scalar());
        if (p.is_relative()) p = dir / p;
        merged.merge_from(load_file_chain(p.string(), chain, f.loc()));
    }
    chain.pop_back();
    doc.erase("include");
    merged.merge_from(doc);
    return merged;
}

namespace {

// Splits "a.b[2].c" into {"a","b","[2]","c"}.  A quoted segment is one key as written, for
// keys that contain dots or brackets: workload.ops."node[0].host"[1].bytes
std::vector<std::string> split_path(const std::string& path, const source_loc& loc) {
    std::vector<std::string> parts;
    std::string cur;
    for (std::size_t i = 0; i < path.size(); ++i) {
        char c = path[i];
        if (c == '"' || c == '\'') {
            const std::size_t close = path.find(c, i + 1);
            if (close == std::string::npos) throw input_error(loc, path, "unclosed quote");
            parts.push_back(path.substr(i + 1, close - i - 1));
            i = close;
        } else if (c == '.') {
            if (!cur.empty()) parts.push_back(cur);
            cur.clear();
        } else if (c == '[') {
            if (!cur.empty()) parts.push_back(cur);
            cur.clear();
            std::size_t close = path.find(']', i);
            if (close == std::string::npos) throw input_error(loc, path, "unclosed '['");
            parts.push_back(path.substr(i, close - i + 1));
            i = close;
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) parts.push_back(cur);
    return parts;
}

}  // namespace

void config_node::apply_set(const std::string& assignment) {
    const source_loc loc{"--set", 0, 0};
    std::size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
        throw input_error(loc, assignment, "expected --set path=value");
    }
    const std::string path = assignment.substr(0, eq);
    const std::string text = assignment.substr(eq + 1);
    config_node value = parse(text, "--set " + path);
    if (value.is_nil() && !text.empty()) value = scalar_node(text, loc);
    if (value.is_nil()) value = scalar_node("", loc);
    // Values from the command line point at the --set argument, not at a file position.
    std::vector<config_node*> stack{&value};
    while (!stack.empty()) {
        config_node* n = stack.back();
        stack.pop_back();
        n->m_loc = source_loc{"--set " + path, 0, 0};
        for (auto& e : n->m_entries) {
            e.key_loc = n->m_loc;
            stack.push_back(&e.value);
        }
        for (auto& i : n->m_items) stack.push_back(&i);
    }

    std::vector<std::string> parts = split_path(path, loc);
    if (parts.empty()) throw input_error(loc, assignment, "empty path");
    config_node* cur = this;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string& p = parts[i];
        const bool last = i + 1 == parts.size();
        if (p.front() == '[') {
            std::size_t idx = 0;
            try {
                idx = std::stoul(p.substr(1, p.size() - 2));
            } catch (...) {
                throw input_error(loc, path, "bad list index " + p);
            }
            if (!cur->is_seq() || idx >= cur->m_items.size()) {
                throw input_error(loc, path, "index " + p + " is out of range");
            }
            if (last) {
                cur->m_items[idx] = value;
                return;
            }
            cur = &cur->m_items[idx];
            continue;
        }
        if (!(cur->is_map() || cur->is_nil())) {
            throw input_error(loc, path, "cannot set '" + p + "' inside " + cur->kind_name());
        }
        if (last) {
            cur->set(p, value, value.m_loc);
            return;
        }
        config_node* next = cur->find(p);
        if (next == nullptr) next = &cur->set(p, map_node(value.m_loc), value.m_loc);
        cur = next;
    }
}

YAML::Node config_node::to_yaml() const {
    switch (m_kind) {
        case kind::NIL:
            return YAML::Node(YAML::NodeType::Null);
        case kind::SCALAR:
            return YAML::Node(m_scalar);
        case kind::SEQ: {
            YAML::Node n(YAML::NodeType::Sequence);
            for (const auto& i : m_items) n.push_back(i.to_yaml());
            return n;
        }
        case kind::MAP: {
            YAML::Node n(YAML::NodeType::Map);
            for (const auto& e : m_entries) n[e.key] = e.value.to_yaml();
            return n;
        }
    }
    return YAML::Node();
}

void config_node::emit(YAML::Emitter& out) const {
    switch (m_kind) {
        case kind::NIL:
            out << YAML::Null;
            return;
        case kind::SCALAR:
            out << m_scalar;
            return;
        case kind::SEQ:
            out << YAML::BeginSeq;
            for (const auto& i : m_items) i.emit(out);
            out << YAML::EndSeq;
            return;
        case kind::MAP:
            out << YAML::BeginMap;
            for (const auto& e : m_entries) {
                out << YAML::Key << e.key << YAML::Value;
                e.value.emit(out);
            }
            out << YAML::EndMap;
            return;
    }
}

}  // namespace trainvp
