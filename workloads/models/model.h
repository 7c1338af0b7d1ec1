// A loaded model: its layers with derived numbers for one batch size, and their totals.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "workloads/models/layer_info.h"

namespace trainvp::models {

// What the caller chooses at load time.  Batch has no default: every FLOP and activation count
// scales with it, so forgetting it must be an error, not a silent batch of 1.
struct model_options {
    std::int64_t batch = 0;                          // samples per iteration per node; > 0
    std::map<std::string, std::int64_t> parameters;  // overrides of the file's `parameters`
    std::int64_t bytes_per_value = 4;                // fp32 weights, gradients and activations
    source_loc origin;  // where the options came from (config file, --set), for error messages
    // The key that holds `parameters` where they came from, for error messages (a training
    // section's "workload.training.model_parameters").
    std::string parameters_key = "parameters";
};

struct model_totals {
    std::int64_t params = 0;
    std::int64_t weight_bytes = 0;
    std::int64_t weight_grad_bytes = 0;
    std::int64_t forward_flops = 0;
    std::int64_t backward_input_flops = 0;
    std::int64_t backward_weight_flops = 0;
    std::int64_t activation_bytes = 0;

    std::int64_t backward_flops() const { return backward_input_flops + backward_weight_flops; }
};

class model {
public:
    model(std::string name, std::string source, std::string file, std::int64_t batch,
          std::int64_t bytes_per_value, std::map<std::string, std::int64_t> parameters,
          tensor_shape input, std::vector<layer_info> layers);

    const std::string& name() const { return m_name; }
    // The architecture's citation as written in the file.
    const std::string& source() const { return m_source; }
    const std::string& file() const { return m_file; }
    std::int64_t batch() const { return m_batch; }
    std::int64_t bytes_per_value() const { return m_bytes_per_value; }
    // Every declared parameter with the value used (default or override).
    const std::map<std::string, std::int64_t>& parameters() const { return m_parameters; }
    const tensor_shape& input() const { return m_input; }
    // In file order, which is a valid execution order (inputs always precede their users).
    const std::vector<layer_info>& layers() const { return m_layers; }
    const model_totals& totals() const { return m_totals; }

    // The layer called NAME; throws std::out_of_range if there is none.
    const layer_info& layer(const std::string& name) const;

private:
    std::string m_name;
    std::string m_source;
    std::string m_file;
    std::int64_t m_batch;
    std::int64_t m_bytes_per_value;
    std::map<std::string, std::int64_t> m_parameters;
    tensor_shape m_input;
    std::vector<layer_info> m_layers;
    model_totals m_totals;
};

}  // namespace trainvp::models
