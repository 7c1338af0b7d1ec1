#include "workloads/models/layer_cost_model.h"

#include <algorithm>
#include <stdexcept>

#include "workloads/models/conv_heuristic_registry.h"
#include "workloads/models/conv_problem.h"

namespace trainvp::models {

namespace {

double input_values(const layer_info& l, std::int64_t batch) {
    double v = 0;
    for (const auto& s : l.input_shapes) v += static_cast<double>(s.elements());
    return v * static_cast<double>(batch);
}

bool fed_by_model_input_only(const layer_info& l) {
    return !l.inputs.empty() && std::all_of(l.inputs.begin(), l.inputs.end(),
                                            [](const std::string& n) { return n == "input"; });
}

// Which saved tensor a kind's data gradient reads besides the output gradient.
enum class saved { NONE, INPUT, OUTPUT };

saved saved_for_backward(layer_kind k) {
    switch (k) {
        case layer_kind::POOL:
        case layer_kind::ACTIVATION:
        case layer_kind::DROPOUT:
        case layer_kind::BATCHNORM:
        case layer_kind::LAYERNORM:
        case layer_kind::LRN:
        case layer_kind::EMBEDDING:
        case layer_kind::ATTENTION:
        case layer_kind::INTERACTION:
        case layer_kind::GENERIC:  // not known: assume it needs its input, as most do
            return saved::INPUT;
        case layer_kind::SOFTMAX:
            return saved::OUTPUT;
        default:
            return saved::NONE;
    }
}

}  // namespace

const op_cost& layer_costs::of(layer_op o) const {
    switch (o) {
        case layer_op::FORWARD:
            return forward;
        case layer_op::BACKWARD_DATA:
            return backward_data;
        case layer_op::BACKWARD_FILTER:
            return backward_filter;
    }
    return forward;
}

op_cost layer_costs::backward() const {
    op_cost c = backward_data;
    c += backward_filter;
    return c;
}

layer_cost_model::layer_cost_model(layer_cost_options o) : m_options(std::move(o)) {
    conv_heuristic_registry::global().get(m_options.heuristic);  // throws if unknown
    if (!(m_options.workspace_limit >= 0)) {
        throw std::invalid_argument("layer_cost_model: negative workspace limit");
    }
}

layer_costs layer_cost_model::cost(const layer_info& l, std::int64_t batch,
                                   std::int64_t bpv) const {
    layer_costs c;
    c.name = l.name;
    const bool skip_data = fed_by_model_input_only(l);
    if (l.kind == layer_kind::CONV || l.kind == layer_kind::DECONV || l.kind == layer_kind::FC) {
        const conv_heuristic_info& h = conv_heuristic_registry::global().get(m_options.heuristic);
        for (layer_op op :
             {layer_op::FORWARD, layer_op::BACKWARD_DATA, layer_op::BACKWARD_FILTER}) {
            if (op == layer_op::BACKWARD_DATA && skip_data) continue;
            const conv_problem p = conv_problem::of(l, op, batch, bpv, m_options.zeros);
            const conv_algorithm a = h.choose(l, p, op, m_options.workspace_limit);
            const op_cost o =
                a == conv_algorithm::GEMM ? p.gemm() : p.fft(a == conv_algorithm::FFT_TILING);
            (op == layer_op::FORWARD         ? c.forward
             : op == layer_op::BACKWARD_DATA ? c.backward_data
                                             : c.backward_filter) = o;
        }
        return c;
    }
    if (l.kind == layer_kind::FLATTEN || l.kind == layer_kind::RESHAPE) return c;
    const double b = static_cast<double>(bpv);
    const double x = input_values(l, batch);
    const double y = static_cast<double>(l.output_shape.elements() * batch);
    const double w = static_cast<double>(l.weight_bytes);
    c.forward.flops = static_cast<double>(l.forward_flops);
    c.forward.read_bytes = x * b + w;
    c.forward.write_bytes = y * b;
    if (!skip_data) {
        c.backward_data.flops = static_cast<double>(l.backward_input_flops);
        const saved s = saved_for_backward(l.kind);
        c.backward_data.read_bytes = y * b +
                                     (s == saved::INPUT    ? x * b
                                      : s == saved::OUTPUT ? y * b
                                                           : 0.0) +
                                     w;
        c.backward_data.write_bytes = x * b;
    }
    if (l.params > 0) {
        c.backward_filter.flops = static_cast<double>(l.backward_weight_flops);
        c.backward_filter.read_bytes = (x + y) * b;
        c.backward_filter.write_bytes = static_cast<double>(l.weight_grad_bytes);
    }
    return c;
}

std::vector<layer_costs> layer_cost_model::costs(const model& m) const {
    std::vector<layer_costs> out;
    out.reserve(m.layers().size());
    for (const auto& l : m.layers()) out.push_back(cost(l, m.batch(), m.bytes_per_value()));
    return out;
}

}  // namespace trainvp::models
