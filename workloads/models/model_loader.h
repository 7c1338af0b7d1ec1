// Reading model files (workloads/models/zoo/*.yaml, format in README.md) into `model` objects.
// Files are read by the config reader every config goes through (core/config_node, values by
// core/param_decl's rules), so every mistake in a file is an input_error naming
// file:line:column and the full key path, worded as in platform configs.
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

// The one entry point for a model named in a config: NAME_OR_PATH is a zoo model's name
// ("resnet50") or the path of a model file (it contains a '/' or ends in .yaml; a relative path
// is relative to the file WHERE is in, as `include:` is, else to the working directory).  An
// unknown name is an input_error at WHERE naming KEY, "no model 'resnet5' in the zoo (did you
// mean 'resnet50'?); the zoo has alexnet, ...", and so is a path that cannot be opened; mistakes
// inside the file name the file.
model load_zoo_model(const std::string& name_or_path, const model_options& opts,
                     const source_loc& where = {}, const std::string& key = "model");

// The zoo folder: DIR_OVERRIDE if not empty, else an installed trainvp's share/trainvp/zoo,
// else TRAINVP_SOURCE_DIR/workloads/models/zoo.
std::string zoo_dir(const std::string& dir_override = "");

// Path of zoo model NAME ("alexnet" -> .../zoo/alexnet.yaml); the input_error of
// load_zoo_model, at no position, if there is no such file.
std::string find_zoo_model(const std::string& name, const std::string& dir_override = "");

// Names of all zoo models, sorted.
std::vector<std::string> zoo_model_names(const std::string& dir_override = "");

}  // namespace trainvp::models
