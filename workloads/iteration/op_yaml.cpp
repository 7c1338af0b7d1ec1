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

std::string ops_yaml(const std::vector<ops::op>& list, const std::string& indent) {
    using ops::op_kind;
    std::ostringstream out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const ops::op& o = list[i];
        out << indent << "- {op: " << ops::kind_name(o.kind);
        if (!o.name.empty()) out << ", name: " << quoted(o.name);
        out << ", unit: " << ops::unit_name(o.unit);
        if (o.phase != ops::op_phase::AUTO) out << ", phase: " << ops::phase_name(o.phase);
        const std::string bytes = std::to_string(o.bytes) + "B";
        switch (o.kind) {
            case op_kind::COMPUTE:
                out << ", flops: " << real(o.flops) << ", bytes: " << bytes
                    << ", address: " << hex(o.address);
                break;
            case op_kind::GPU_COMPUTE:
                out << ", flops: " << real(o.flops) << ", bytes: " << bytes;
                break;
            case op_kind::COPY_TO_HOST:
            case op_kind::COPY_TO_GPU:
            case op_kind::UPDATE:
                out << ", bytes: " << bytes << ", address: " << hex(o.address);
                break;
            case op_kind::SUM:
                out << ", bytes: " << bytes << ", inputs: " << o.inputs
                    << ", address: " << hex(o.address);
                break;
            case op_kind::SEND:
                out << ", to: " << o.peer << ", bytes: " << bytes << ", tag: " << o.tag
                    << ", tos: " << static_cast<unsigned>(o.tos) << ", address: " << hex(o.address);
                break;
            case op_kind::RECV:
                out << ", from: " << o.peer << ", bytes: " << bytes << ", tag: " << o.tag
                    << ", address: " << hex(o.address);
                break;
            case op_kind::DELAY:
                out << ", time: " << o.delay_ps << "ps";
                break;
        }
        if (!o.after.empty()) {
            out << ", after: [";
            for (std::size_t k = 0; k < o.after.size(); ++k) {
                const std::size_t a = o.after[k];
                if (a >= i) {
                    throw std::invalid_argument("ops_yaml: op [" + std::to_string(i) +
                                                "] waits for op [" + std::to_string(a) +
                                                "], which is not before it");
                }
                if (list[a].name.empty()) {
                    throw std::invalid_argument("ops_yaml: op [" + std::to_string(i) +
                                                "] waits for op [" + std::to_string(a) +
                                                "], which has no name");
                }
                out << (k ? ", " : "") << quoted(list[a].name);
            }
            out << "]";
        }
        out << "}\n";
    }
    return out.str();
}

}  // namespace trainvp::workloads
