#include "traces/stats_report.h"

#include <cstdio>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace trainvp {

void stats_report::run_fact(const std::string& key, const std::string& value) {
    m_facts.push_back(fact{key, fact::kind::TEXT, value});
}
void stats_report::run_fact(const std::string& key, std::uint64_t value) {
    m_facts.push_back(fact{key, fact::kind::UINT, "", value});
}
void stats_report::run_fact(const std::string& key, double value) {
    m_facts.push_back(fact{key, fact::kind::REAL, "", 0, value});
}

void stats_report::add(const std::string& block, const std::string& type, const std::string& stat,
                       const std::string& unit, const counter& c) {
    row r{block, type, stat, unit, row::kind::COUNTER};
    r.count = c.value();
    m_rows.push_back(r);
}

void stats_report::add(const std::string& block, const std::string& type, const std::string& stat,
                       const std::string& unit, const scalar& s) {
    row r{block, type, stat, unit, row::kind::SCALAR};
    r.value = s.value();
    m_rows.push_back(r);
}

void stats_report::add(const std::string& block, const std::string& type, const std::string& stat,
                       const std::string& unit, const distribution& d) {
    row r{block, type, stat, unit, row::kind::DISTRIBUTION};
    r.count = d.count();
    r.value = d.sum();
    r.mean = d.mean();
    r.min = d.min();
    r.max = d.max();
    m_rows.push_back(r);
}

std::string stats_report::json() const {
    using nlohmann::ordered_json;
    ordered_json doc;
    ordered_json run = ordered_json::object();
    for (const auto& f : m_facts) {
        if (f.k == fact::kind::TEXT) run[f.key] = f.text;
        if (f.k == fact::kind::UINT) run[f.key] = f.u;
        if (f.k == fact::kind::REAL) run[f.key] = f.d;
    }
    doc["run"] = run;
    // ordered_json finds a key by a linear search, so looking each row's block up in `blocks`
    // made the report quadratic in the block count (~0.2 s at 1024 nodes).  Blocks are kept in
    // first-seen order through an index, and appended to the object's storage (an ordered_map is
    // a vector of pairs) without a search: each key is added once.
    ordered_json blocks = ordered_json::object();
    auto& block_list = blocks.get_ref<ordered_json::object_t&>();
    using block_vector = ordered_json::object_t::Container;
    std::unordered_map<std::string, std::size_t> block_at;
    for (const auto& r : m_rows) {
        const auto [it, first] = block_at.emplace(r.block, block_list.size());
        if (first) {
            static_cast<block_vector&>(block_list).emplace_back(r.block, ordered_json::object());
            ordered_json& fresh = block_list.back().second;
            fresh["type"] = r.type;
            fresh["stats"] = ordered_json::object();
        }
        ordered_json& b = static_cast<block_vector&>(block_list)[it->second].second;
        ordered_json s;
        switch (r.k) {
            case row::kind::COUNTER:
                s["value"] = r.count;
                break;
            case row::kind::SCALAR:
                s["value"] = r.value;
                break;
            case row::kind::DISTRIBUTION:
                s["count"] = r.count;
                s["mean"] = r.mean;
                s["min"] = r.min;
                s["max"] = r.max;
                s["sum"] = r.value;
                break;
        }
        s["unit"] = r.unit;
        // Appended without a search too: a block's stats are distinct, and a block with a
        // value per endpoint (fabric.flow at 16,384 endpoints) has tens of thousands.
        static_cast<block_vector&>(b["stats"].get_ref<ordered_json::object_t&>())
            .emplace_back(r.stat, std::move(s));
    }
    doc["blocks"] = blocks;
    return doc.dump(2) + "\n";
}

namespace {
std::string num(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}
std::string field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}
}  // namespace

std::string stats_report::csv() const {
    std::string out = "block,type,stat,value,unit,count,mean,min,max\n";
    for (const auto& r : m_rows) {
        out += field(r.block) + "," + field(r.type) + "," + field(r.stat) + ",";
        if (r.k == row::kind::COUNTER) {
            out += std::to_string(r.count) + "," + field(r.unit) + ",,,,\n";
        } else if (r.k == row::kind::SCALAR) {
            out += num(r.value) + "," + field(r.unit) + ",,,,\n";
        } else {
            out += num(r.value) + "," + field(r.unit) + "," + std::to_string(r.count) + "," +
                   num(r.mean) + "," + num(r.min) + "," + num(r.max) + "\n";
        }
    }
    return out;
}

}  // namespace trainvp
