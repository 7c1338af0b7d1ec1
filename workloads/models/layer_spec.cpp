#include "workloads/models/layer_spec.h"

namespace trainvp::models {

const char* to_string(layer_kind k) {
    switch (k) {
        case layer_kind::CONV:
            return "conv";
        case layer_kind::DECONV:
            return "deconv";
        case layer_kind::FC:
            return "fc";
        case layer_kind::POOL:
            return "pool";
        case layer_kind::ACTIVATION:
            return "activation";
        case layer_kind::BATCHNORM:
            return "batchnorm";
        case layer_kind::LAYERNORM:
            return "layernorm";
        case layer_kind::LRN:
            return "lrn";
        case layer_kind::SOFTMAX:
            return "softmax";
        case layer_kind::DROPOUT:
            return "dropout";
        case layer_kind::EMBEDDING:
            return "embedding";
        case layer_kind::ATTENTION:
            return "attention";
        case layer_kind::ADD:
            return "add";
        case layer_kind::CONCAT:
            return "concat";
        case layer_kind::INTERACTION:
            return "interaction";
        case layer_kind::FLATTEN:
            return "flatten";
        case layer_kind::RESHAPE:
            return "reshape";
        case layer_kind::GENERIC:
            return "generic";
    }
    return "?";
}

const char* to_string(pool_op p) { return p == pool_op::MAX ? "max" : "avg"; }

const char* to_string(activation_fn f) {
    switch (f) {
        case activation_fn::RELU:
            return "relu";
        case activation_fn::SIGMOID:
            return "sigmoid";
        case activation_fn::TANH:
            return "tanh";
    }
    return "?";
}

const char* to_string(embedding_pooling p) { return p == embedding_pooling::SUM ? "sum" : "none"; }

const std::vector<std::string>& layer_kind_names() {
    static const std::vector<std::string> names = {
        "conv",        "fc",      "pool",    "relu",      "activation", "batchnorm", "layernorm",
        "lrn",         "softmax", "dropout", "embedding", "attention",  "add",       "concat",
        "interaction", "flatten", "deconv",  "reshape",   "generic"};
    return names;
}

bool parse_layer_kind(const std::string& name, layer_kind& out) {
    static const std::pair<const char*, layer_kind> table[] = {
        {"conv", layer_kind::CONV},
        {"fc", layer_kind::FC},
        {"pool", layer_kind::POOL},
        {"relu", layer_kind::ACTIVATION},
        {"activation", layer_kind::ACTIVATION},
        {"batchnorm", layer_kind::BATCHNORM},
        {"layernorm", layer_kind::LAYERNORM},
        {"lrn", layer_kind::LRN},
        {"softmax", layer_kind::SOFTMAX},
        {"dropout", layer_kind::DROPOUT},
        {"embedding", layer_kind::EMBEDDING},
        {"attention", layer_kind::ATTENTION},
        {"add", layer_kind::ADD},
        {"concat", layer_kind::CONCAT},
        {"interaction", layer_kind::INTERACTION},
        {"flatten", layer_kind::FLATTEN},
        {"deconv", layer_kind::DECONV},
        {"reshape", layer_kind::RESHAPE},
        {"generic", layer_kind::GENERIC},
    };
    for (const auto& [n, k] : table) {
        if (name == n) {
            out = k;
            return true;
        }
    }
    return false;
}

}  // namespace trainvp::models
