#include "workloads/models/model.h"

#include <stdexcept>

namespace trainvp::models {

model::model(std::string name, std::string source, std::string file, std::int64_t batch,
             std::int64_t bytes_per_value, std::map<std::string, std::int64_t> parameters,
             tensor_shape input, std::vector<layer_info> layers)
    : m_name(std::move(name)),
      m_source(std::move(source)),
      m_file(std::move(file)),
      m_batch(batch),
      m_bytes_per_value(bytes_per_value),
      m_parameters(std::move(parameters)),
      m_input(std::move(input)),
      m_layers(std::move(layers)) {
    // Each layer's counts are overflow-checked; so must their sums be, or a huge batch would
    // wrap round to a negative total instead of failing.
    auto acc = [this](std::int64_t& total, std::int64_t v) {
        if (__builtin_add_overflow(total, v, &total)) {
            throw input_error(source_loc{m_file}, "batch",
                              "model " + m_name + ": totals overflow 64 bits at batch " +
                                  std::to_string(m_batch));
        }
    };
    for (const auto& l : m_layers) {
        acc(m_totals.params, l.params);
        acc(m_totals.weight_bytes, l.weight_bytes);
        acc(m_totals.weight_grad_bytes, l.weight_grad_bytes);
        acc(m_totals.forward_flops, l.forward_flops);
        acc(m_totals.backward_input_flops, l.backward_input_flops);
        acc(m_totals.backward_weight_flops, l.backward_weight_flops);
        acc(m_totals.activation_bytes, l.activation_bytes);
    }
}

const layer_info& model::layer(const std::string& name) const {
    for (const auto& l : m_layers) {
        if (l.name == name) return l;
    }
    throw std::out_of_range("model " + m_name + " has no layer '" + name + "'");
}

}  // namespace trainvp::models
