#include "workloads/iteration/op_yaml.h"

#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace trainvp::workloads {

namespace {

// Double-quoted, so that any name survives YAML (':', ',', '[', '#' ...).
std::string quoted(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') q += '\\';
        q += c;
    }
    return q + "\"";
}

std::string hex(std::uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string real(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

}  // namespace

std::vector<op_field> op_fields(const std::vector<ops::op>& list, std::size_t i) {
    using ops::op_kind;
    const ops::op& o = list[i];
    std::vector<op_field> f;
    f.reserve(8);
    f.push_back({"op", ops::kind_name(o.kind)});
    if (!o.name.empty()) f.push_back({"name", o.name});
    f.push_back({"unit", ops::unit_name(o.unit)});
    if (o.phase != ops::op_phase::AUTO) f.push_back({"phase", ops::phase_name(o.phase)});
    const std::string bytes = std::to_string(o.bytes) + "B";
    switch (o.kind) {
        case op_kind::COMPUTE:
            f.push_back({"flops", real(o.flops)});
            f.push_back({"bytes", bytes});
            f.push_back({"address", hex(o.address)});
            break;
        case op_kind::GPU_COMPUTE:
            f.push_back({"flops", real(o.flops)});
            f.push_back({"bytes", bytes});
            break;
        case op_kind::COPY_TO_HOST:
        case op_kind::COPY_TO_GPU:
        case op_kind::UPDATE:
            f.push_back({"bytes", bytes});
            f.push_back({"address", hex(o.address)});
            break;
        case op_kind::SUM:
            f.push_back({"bytes", bytes});
            f.push_back({"inputs", std::to_string(o.inputs)});
            f.push_back({"address", hex(o.address)});
            break;
        case op_kind::SEND:
            f.push_back({"to", std::to_string(o.peer)});
            f.push_back({"bytes", bytes});
            f.push_back({"tag", std::to_string(o.tag)});
            f.push_back({"tos", std::to_string(static_cast<unsigned>(o.tos))});
            f.push_back({"address", hex(o.address)});
            break;
        case op_kind::RECV:
            f.push_back({"from", std::to_string(o.peer)});
            f.push_back({"bytes", bytes});
            f.push_back({"tag", std::to_string(o.tag)});
            f.push_back({"address", hex(o.address)});
            break;
        case op_kind::DELAY:
            f.push_back({"time", std::to_string(o.delay_ps) + "ps"});
            break;
        case op_kind::ALLREDUCE:
            f.push_back({"bytes", bytes});
            f.push_back({"address", hex(o.address)});
            f.push_back({"tag", std::to_string(o.tag)});
            break;
    }
    return f;
}

std::vector<std::string> op_after(const std::vector<ops::op>& list, std::size_t i) {
    std::vector<std::string> names;
    for (const std::size_t a : list[i].after) {
        if (a >= i) {
            throw std::invalid_argument("ops_yaml: op [" + std::to_string(i) + "] waits for op [" +
                                        std::to_string(a) + "], which is not before it");
        }
        if (list[a].name.empty()) {
            throw std::invalid_argument("ops_yaml: op [" + std::to_string(i) + "] waits for op [" +
                                        std::to_string(a) + "], which has no name");
        }
        names.push_back(list[a].name);
    }
    return names;
}

std::string ops_yaml(const std::vector<ops::op>& list, const std::string& indent) {
    std::ostringstream out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        out << indent << "- {";
        bool first = true;
        for (const op_field& f : op_fields(list, i)) {
            out << (first ? "" : ", ") << f.key << ": "
                << (f.key == "name" ? quoted(f.value) : f.value);
            first = false;
        }
        const std::vector<std::string> after = op_after(list, i);
        if (!after.empty()) {
            out << ", after: [";
            for (std::size_t k = 0; k < after.size(); ++k) {
                out << (k ? ", " : "") << quoted(after[k]);
            }
            out << "]";
        }
        out << "}\n";
    }
    return out.str();
}

}  // namespace trainvp::workloads
