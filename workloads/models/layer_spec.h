// What a model file says about one layer: its kind and the hyper-parameters of that kind.
// Shapes that follow from the input (a conv's input channels, an fc's input width) are derived,
// not stored; the optional *_check fields hold values the file states so they can be verified.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/models/tensor_shape.h"

namespace trainvp::models {

enum class layer_kind {
    CONV,         // 2-D convolution, optionally grouped
    DECONV,       // 2-D transposed convolution ("deconvolution"; DCGAN's generator)
    FC,           // fully connected (on a feature vector, or per token)
    POOL,         // max or average pooling
    ACTIVATION,   // element-wise nonlinearity (relu is ACTIVATION with function RELU)
    BATCHNORM,    // batch normalisation, trainable gamma and beta per channel
    LAYERNORM,    // layer normalisation over the last dimension, trainable gamma and beta
    LRN,          // AlexNet's cross-channel local response normalisation
    SOFTMAX,      // softmax over the last dimension
    DROPOUT,      // training-time dropout
    EMBEDDING,    // embedding-table lookups (optionally sum-pooled per table)
    ATTENTION,    // multi-head self-attention including the Q, K, V and output projections
    ADD,          // element-wise sum of two or more tensors (residual shortcut)
    CONCAT,       // concatenation along channels / features
    INTERACTION,  // DLRM dot-product feature interaction
    FLATTEN,      // CHW feature map to one feature vector
    RESHAPE,      // feature vector to a CHW feature map (DCGAN's projection of z)
    GENERIC,      // any other operation, with its output shape, parameters and FLOPs as stated
                  // (tools/import_torch_model.py writes one for each operation it has no kind for)
};

enum class pool_op { MAX, AVG };
enum class activation_fn { RELU, SIGMOID, TANH };
enum class embedding_pooling { SUM, NONE };

struct layer_spec {
    // conv and pool geometry
    std::int64_t out_channels = 0;
    std::int64_t kernel_h = 0, kernel_w = 0;
    std::int64_t stride_h = 1, stride_w = 1;
    std::int64_t pad_h = 0, pad_w = 0;
    std::int64_t groups = 1;
    // deconv: extra rows / columns on one side of the output ((in-1) stride - 2 pad + kernel +
    // output_padding), to reach the size a stride-s convolution maps back onto the input.
    std::int64_t output_pad_h = 0, output_pad_w = 0;
    std::optional<std::int64_t> in_channels_check;
    // reshape: the C x H x W map a feature vector becomes
    std::int64_t reshape_c = 0, reshape_h = 0, reshape_w = 0;
    // conv, fc, attention: whether the layer has a bias vector
    bool bias = false;
    // fc
    std::int64_t out_features = 0;
    std::optional<std::int64_t> in_features_check;
    // pool, activation
    pool_op pool = pool_op::MAX;
    activation_fn function = activation_fn::RELU;
    // batchnorm
    std::optional<std::int64_t> channels_check;
    // lrn: channels summed over
    std::int64_t lrn_size = 0;
    // dropout: recorded for functional runs; the cost does not depend on it
    double dropout_rate = 0.0;
    // embedding
    std::int64_t rows = 0, dim = 0, lookups = 0, tables = 1;
    embedding_pooling pooling = embedding_pooling::SUM;
    // attention
    std::int64_t heads = 0;
    std::optional<std::int64_t> d_model_check, seq_len_check;
    // generic: what it computes (documentation), its output and its costs per sample, as the
    // file states them
    std::string op;
    std::string note;
    tensor_shape output;
    std::int64_t params = 0;
    std::int64_t forward_flops = 0, backward_input_flops = 0, backward_weight_flops = 0;
};

// Names as written in model files ("conv", "max", "relu", "sum").
const char* to_string(layer_kind k);
const char* to_string(pool_op p);
const char* to_string(activation_fn f);
const char* to_string(embedding_pooling p);

// Every layer kind's file name, in declaration order, for did-you-mean and listings.
const std::vector<std::string>& layer_kind_names();
// The kind called NAME in a file; false if there is none.  "relu" maps to ACTIVATION.
bool parse_layer_kind(const std::string& name, layer_kind& out);

}  // namespace trainvp::models
