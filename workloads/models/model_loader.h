// Reading model files (workloads/models/zoo/*.yaml, format in README.md) into `model` objects.
// Every mistake in a file is an input_error naming file:line:column and the full key path.
#pragma once

#include <string>
#include <vector>

#include "workloads/models/model.h"

namespace trainvp::models {

// Loads the model file at PATH for OPTS.batch samples, with OPTS.parameters overriding the
// file's parameter defaults.
model load_model(const std::string& path, const model_options& opts);

// The same from YAML text; FILE_LABEL stands for the file name in error messages.
model parse_model(const std::string& yaml_text, const std::string& file_label,
                  const model_options& opts);

// The zoo folder: DIR_OVERRIDE if not empty, else an installed trainvp's share/trainvp/zoo,
// else TRAINVP_SOURCE_DIR/workloads/models/zoo.
std::string zoo_dir(const std::string& dir_override = "");

// Path of zoo model NAME ("alexnet" -> .../zoo/alexnet.yaml); input_error with a did-you-mean
// if there is no such file.
std::string find_zoo_model(const std::string& name, const std::string& dir_override = "");

// Names of all zoo models, sorted.
std::vector<std::string> zoo_model_names(const std::string& dir_override = "");

}  // namespace trainvp::models
