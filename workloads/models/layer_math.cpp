#include "workloads/models/layer_math.h"

#include <cstdint>
#include <initializer_list>

namespace trainvp::models {

namespace {

// Products of sizes overflow 64 bits only for absurd inputs (e.g. batch 10^9 on VGG-16); saying
// so beats wrapping round to a negative FLOP count.
std::int64_t mul(std::initializer_list<std::int64_t> factors) {
    std::int64_t r = 1;
    for (auto f : factors) {
        if (__builtin_mul_overflow(r, f, &r)) {
            throw layer_error("", "a count overflows 64 bits; reduce the batch or the sizes");
        }
    }
    return r;
}

std::int64_t add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) {
        throw layer_error("", "a count overflows 64 bits; reduce the batch or the sizes");
    }
    return r;
}

std::string kind_name(const layer_info& l) { return to_string(l.kind); }

// "a conv layer", "an fc layer": the article follows how the kind name is read aloud.
std::string a_kind(const layer_info& l) {
    const std::string k = kind_name(l);
    const bool vowel_sound = k == "fc" || k == "lrn" || k.find_first_of("aeiou") == 0;
    return (vowel_sound ? "an " : "a ") + k;
}

std::string input_desc(const layer_info& l, std::size_t i) {
    return "'" + l.inputs[i] + "' (" + l.input_shapes[i].str() + ")";
}

void expect_inputs(const layer_info& l, std::size_t min, std::size_t max) {
    const std::size_t n = l.input_shapes.size();
    if (n >= min && n <= max) return;
    std::string want = min == max ? std::to_string(min) : "at least " + std::to_string(min);
    throw layer_error("inputs", a_kind(l) + " layer takes " + want + " input" +
                                    (min == 1 && max == 1 ? "" : "s") + ", got " +
                                    std::to_string(n));
}

void reject_indices(const layer_info& l) {
    for (std::size_t i = 0; i < l.input_shapes.size(); ++i) {
        if (l.input_shapes[i].layout == tensor_layout::INDICES) {
            throw layer_error("inputs", a_kind(l) + " layer cannot read the index tensor " +
                                            input_desc(l, i) +
                                            "; only embedding layers consume indices");
        }
    }
}

void expect_chw(const layer_info& l) {
    if (l.input_shapes[0].layout != tensor_layout::CHW) {
        throw layer_error("inputs", a_kind(l) + " layer needs a CxHxW feature map, its input " +
                                        input_desc(l, 0) + " is not one");
    }
}

void expect_vectors(const layer_info& l) {
    const auto layout = l.input_shapes[0].layout;
    if (layout == tensor_layout::CHW) {
        throw layer_error("inputs", a_kind(l) + " layer acts on feature vectors, its input " +
                                        input_desc(l, 0) +
                                        " is a feature map; insert a flatten layer");
    }
}

// Output size of a sliding window along one axis (floor mode, as Caffe/PyTorch convolutions).
std::int64_t window_out(const layer_info& l, std::int64_t in, std::int64_t kernel,
                        std::int64_t stride, std::int64_t pad) {
    if (in + 2 * pad < kernel) {
        throw layer_error("kernel", "kernel " + std::to_string(l.spec.kernel_h) + "x" +
                                        std::to_string(l.spec.kernel_w) +
                                        " is larger than the padded input " + input_desc(l, 0));
    }
    return (in + 2 * pad - kernel) / stride + 1;
}

void conv(layer_info& l, std::int64_t n) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    expect_chw(l);
    const auto& s = l.spec;
    const auto& in = l.input_shapes[0];
    const std::int64_t c = in.dims[0];
    if (s.in_channels_check && *s.in_channels_check != c) {
        throw layer_error("in_channels", "says " + std::to_string(*s.in_channels_check) +
                                             " input channels, but its input " + input_desc(l, 0) +
                                             " has " + std::to_string(c));
    }
    if (c % s.groups != 0 || s.out_channels % s.groups != 0) {
        throw layer_error("groups", std::to_string(s.groups) + " groups do not divide " +
                                        std::to_string(c) + " input and " +
                                        std::to_string(s.out_channels) + " output channels");
    }
    const std::int64_t p = window_out(l, in.dims[1], s.kernel_h, s.stride_h, s.pad_h);
    const std::int64_t q = window_out(l, in.dims[2], s.kernel_w, s.stride_w, s.pad_w);
    l.output_shape = tensor_shape::chw(s.out_channels, p, q);
    // Each of the K filters sees C/groups input channels (AlexNet's two-GPU towers).
    const std::int64_t weights = mul({s.out_channels, c / s.groups, s.kernel_h, s.kernel_w});
    l.params = add(weights, s.bias ? s.out_channels : 0);
    // paleo.md §3.1.3: 2*K*C*R*S*N*P*Q with C per group; bias adds (N*K*P*Q) are not counted.
    l.forward_flops = mul({2, weights, p, q, n});
    // Gradient w.r.t. input is a transposed convolution and w.r.t. filters a correlation of
    // input with output gradient: each the same multiply-adds as the forward pass.
    l.backward_input_flops = l.forward_flops;
    l.backward_weight_flops = l.forward_flops;
}

// A transposed convolution (paleo.md §4.3.2's GAN generator): each of the C x H x W input
// values scatters R x S x K products into the output, which is the gradient w.r.t. the data of
// the convolution that maps the output back onto the input (same filters, stride, padding).
void deconv(layer_info& l, std::int64_t n) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    expect_chw(l);
    const auto& s = l.spec;
    const auto& in = l.input_shapes[0];
    const std::int64_t c = in.dims[0], h = in.dims[1], w = in.dims[2];
    if (s.in_channels_check && *s.in_channels_check != c) {
        throw layer_error("in_channels", "says " + std::to_string(*s.in_channels_check) +
                                             " input channels, but its input " + input_desc(l, 0) +
                                             " has " + std::to_string(c));
    }
    if (s.output_pad_h >= s.stride_h || s.output_pad_w >= s.stride_w) {
        throw layer_error("output_padding", "must be smaller than the stride (" +
                                                std::to_string(s.stride_h) + "x" +
                                                std::to_string(s.stride_w) +
                                                "): larger outputs do not map back onto the input");
    }
    const std::int64_t p = (h - 1) * s.stride_h - 2 * s.pad_h + s.kernel_h + s.output_pad_h;
    const std::int64_t q = (w - 1) * s.stride_w - 2 * s.pad_w + s.kernel_w + s.output_pad_w;
    if (p < 1 || q < 1) {
        throw layer_error("padding", "padding " + std::to_string(s.pad_h) + "x" +
                                         std::to_string(s.pad_w) + " leaves no output of input " +
                                         input_desc(l, 0));
    }
    l.output_shape = tensor_shape::chw(s.out_channels, p, q);
    const std::int64_t weights = mul({c, s.out_channels, s.kernel_h, s.kernel_w});
    l.params = add(weights, s.bias ? s.out_channels : 0);
    // 2 x C x K x R x S per input position (the scatter); the data gradient (a convolution of
    // the output gradient) and the filter gradient have the same multiply-adds.
    l.forward_flops = mul({2, weights, h, w, n});
    l.backward_input_flops = l.forward_flops;
    l.backward_weight_flops = l.forward_flops;
}

void reshape(layer_info& l) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    const auto& s = l.spec;
    const std::int64_t target = mul({s.reshape_c, s.reshape_h, s.reshape_w});
    if (target != l.input_shapes[0].elements()) {
        throw layer_error("channels",
                          "a " + std::to_string(s.reshape_c) + "x" + std::to_string(s.reshape_h) +
                              "x" + std::to_string(s.reshape_w) + " map has " +
                              std::to_string(target) + " values, its input " + input_desc(l, 0) +
                              " has " + std::to_string(l.input_shapes[0].elements()));
    }
    l.output_shape = tensor_shape::chw(s.reshape_c, s.reshape_h, s.reshape_w);
}

void fc(layer_info& l, std::int64_t n) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    expect_vectors(l);
    const auto& s = l.spec;
    const auto& in = l.input_shapes[0];
    const std::int64_t f = in.channels();
    if (s.in_features_check && *s.in_features_check != f) {
        throw layer_error("in", "says " + std::to_string(*s.in_features_check) +
                                    " input features, but its input " + input_desc(l, 0) + " has " +
                                    std::to_string(f));
    }
    l.output_shape = in;
    l.output_shape.dims.back() = s.out_features;
    const std::int64_t weights = mul({f, s.out_features});
    l.params = add(weights, s.bias ? s.out_features : 0);
    // A GEMM of (N*tokens x in) by (in x out): 2 FLOPs per multiply-add.
    l.forward_flops = mul({2, weights, in.positions(), n});
    l.backward_input_flops = l.forward_flops;
    l.backward_weight_flops = l.forward_flops;
}

void pool(layer_info& l, std::int64_t n) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    expect_chw(l);
    const auto& s = l.spec;
    const auto& in = l.input_shapes[0];
    const std::int64_t p = window_out(l, in.dims[1], s.kernel_h, s.stride_h, s.pad_h);
    const std::int64_t q = window_out(l, in.dims[2], s.kernel_w, s.stride_w, s.pad_w);
    l.output_shape = tensor_shape::chw(in.dims[0], p, q);
    // One compare (max) or add (avg) per window element; the backward pass routes or spreads
    // each output gradient back over its window at the same cost.
    l.forward_flops = mul({n, in.dims[0], p, q, s.kernel_h, s.kernel_w});
    l.backward_input_flops = l.forward_flops;
}

void elementwise(layer_info& l, std::int64_t n, std::int64_t fwd_per, std::int64_t bwd_per) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    l.output_shape = l.input_shapes[0];
    const std::int64_t e = mul({n, l.output_shape.elements()});
    l.forward_flops = mul({fwd_per, e});
    l.backward_input_flops = mul({bwd_per, e});
}

void activation(layer_info& l, std::int64_t n) {
    switch (l.spec.function) {
        case activation_fn::RELU:  // max(0,x); gradient: select
            return elementwise(l, n, 1, 1);
        case activation_fn::SIGMOID:  // negate, exp, add 1, divide; gradient dy*y*(1-y)
            return elementwise(l, n, 4, 3);
        case activation_fn::TANH:  // exp(2x), -1, +1, divide, scale; gradient dy*(1-y^2)
            return elementwise(l, n, 5, 3);
    }
}

// Batch and layer normalisation: statistics (mean 1, variance 3), normalise (2) and affine (2)
// = 8 forward; backward 3 for d(gamma), d(beta) and 5 for the input gradient.
void normalisation(layer_info& l, std::int64_t n, std::int64_t channels) {
    l.params = mul({2, channels});
    const std::int64_t e = mul({n, l.output_shape.elements()});
    l.forward_flops = mul({8, e});
    l.backward_input_flops = mul({5, e});
    l.backward_weight_flops = mul({3, e});
}

void batchnorm(layer_info& l, std::int64_t n) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    l.output_shape = l.input_shapes[0];
    const std::int64_t c = l.output_shape.channels();
    if (l.spec.channels_check && *l.spec.channels_check != c) {
        throw layer_error("channels", "says " + std::to_string(*l.spec.channels_check) +
                                          " channels, but its input " + input_desc(l, 0) + " has " +
                                          std::to_string(c));
    }
    normalisation(l, n, c);
}

void layernorm(layer_info& l, std::int64_t n) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    expect_vectors(l);
    l.output_shape = l.input_shapes[0];
    normalisation(l, n, l.output_shape.channels());
}

void lrn(layer_info& l, std::int64_t n) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    expect_chw(l);
    // Per value: square and accumulate over `size` neighbouring channels (2*size), scale and
    // offset (2), power (1), divide (1).  The gradient needs the same window sum plus a second
    // cross-channel sum, counted as twice the forward cost.
    const std::int64_t per = 2 * l.spec.lrn_size + 4;
    elementwise(l, n, per, 2 * per);
}

void softmax(layer_info& l, std::int64_t n) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    expect_vectors(l);
    // Max, subtract, exp, sum, divide; gradient y*(dy - sum(dy*y)): multiply, sum, subtract,
    // multiply.
    elementwise(l, n, 5, 4);
}

void embedding(layer_info& l, std::int64_t n) {
    if (!l.input_shapes.empty()) {
        throw layer_error("inputs",
                          "an embedding layer reads its indices from the data loader "
                          "and takes no input tensor");
    }
    const auto& s = l.spec;
    if (s.pooling == embedding_pooling::SUM) {
        l.output_shape =
            s.tables == 1 ? tensor_shape::features(s.dim) : tensor_shape::tokens(s.tables, s.dim);
    } else {
        l.output_shape = tensor_shape::tokens(mul({s.tables, s.lookups}), s.dim);
    }
    l.params = mul({s.tables, s.rows, s.dim});
    const std::int64_t gathered = mul({n, s.tables, s.lookups, s.dim});
    // Sum pooling accumulates every gathered value once; a plain lookup is a copy.  The weight
    // gradient scatter-adds every gathered value's gradient into its row; indices have none.
    l.forward_flops = s.pooling == embedding_pooling::SUM ? gathered : 0;
    l.backward_weight_flops = gathered;
}

void attention(layer_info& l, std::int64_t n) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    const auto& s = l.spec;
    const auto& in = l.input_shapes[0];
    if (in.layout != tensor_layout::TOKENS) {
        throw layer_error("inputs", "an attention layer needs a sequence of tokens, its input " +
                                        input_desc(l, 0) + " is not one");
    }
    const std::int64_t t = in.dims[0], d = in.dims[1], h = s.heads;
    if (s.d_model_check && *s.d_model_check != d) {
        throw layer_error("d_model", "says d_model " + std::to_string(*s.d_model_check) +
                                         ", but its input " + input_desc(l, 0) + " has " +
                                         std::to_string(d) + " features");
    }
    if (s.seq_len_check && *s.seq_len_check != t) {
        throw layer_error("seq_len", "says seq_len " + std::to_string(*s.seq_len_check) +
                                         ", but its input " + input_desc(l, 0) + " has " +
                                         std::to_string(t) + " tokens");
    }
    if (d % h != 0) {
        throw layer_error("heads",
                          std::to_string(h) + " heads do not divide d_model " + std::to_string(d));
    }
    l.output_shape = in;
    const std::int64_t proj = mul({4, d, d});  // W_Q, W_K, W_V, W_O
    l.params = add(proj, s.bias ? 4 * d : 0);
    // Projections 4 GEMMs of T x d x d: 8*T*d^2.  Scores Q*K^T and context P*V, over all heads:
    // 2 * 2*T*T*d.  Scaling by 1/sqrt(d/h) (1) and softmax (5) per score: 6*h*T^2.
    const std::int64_t proj_flops = mul({2, proj, t});
    const std::int64_t mix_flops = mul({4, t, t, d});
    const std::int64_t score_elems = mul({h, t, t});
    l.forward_flops = mul({n, add(add(proj_flops, mix_flops), mul({6, score_elems}))});
    // Backward: projections as fc layers (input and weight gradients each = forward); both
    // operands of both batched matmuls need gradients (2x), softmax 4 and scale 1 per score.
    l.backward_weight_flops = mul({n, proj_flops});
    l.backward_input_flops =
        mul({n, add(add(proj_flops, mul({2, mix_flops})), mul({5, score_elems}))});
}

void add_layer(layer_info& l, std::int64_t n) {
    expect_inputs(l, 2, SIZE_MAX);
    reject_indices(l);
    for (std::size_t i = 1; i < l.input_shapes.size(); ++i) {
        if (l.input_shapes[i] != l.input_shapes[0]) {
            throw layer_error("inputs", "cannot add " + input_desc(l, 0) + " and " +
                                            input_desc(l, i) + ": shapes differ");
        }
    }
    l.output_shape = l.input_shapes[0];
    const std::int64_t k = static_cast<std::int64_t>(l.input_shapes.size());
    // The gradient of a sum is passed unchanged to every addend: no arithmetic.
    l.forward_flops = mul({k - 1, n, l.output_shape.elements()});
}

void concat(layer_info& l) {
    expect_inputs(l, 2, SIZE_MAX);
    reject_indices(l);
    tensor_shape out = l.input_shapes[0];
    for (std::size_t i = 1; i < l.input_shapes.size(); ++i) {
        const auto& s = l.input_shapes[i];
        bool ok = s.layout == out.layout;
        if (ok && out.layout == tensor_layout::CHW)
            ok = s.dims[1] == out.dims[1] && s.dims[2] == out.dims[2];
        if (ok && out.layout == tensor_layout::TOKENS) ok = s.dims[0] == out.dims[0];
        if (!ok) {
            throw layer_error("inputs", "cannot concatenate " + input_desc(l, 0) + " and " +
                                            input_desc(l, i) +
                                            ": only the channel/feature counts may differ");
        }
        if (out.layout == tensor_layout::CHW) {
            out.dims[0] = add(out.dims[0], s.dims[0]);
        } else {
            out.dims.back() = add(out.dims.back(), s.dims.back());
        }
    }
    l.output_shape = out;
}

void interaction(layer_info& l, std::int64_t n) {
    expect_inputs(l, 2, SIZE_MAX);
    reject_indices(l);
    const auto& dense = l.input_shapes[0];
    if (dense.layout != tensor_layout::FEATURES) {
        throw layer_error("inputs",
                          "the first input of an interaction layer is the dense "
                          "feature vector, but " +
                              input_desc(l, 0) + " is not one");
    }
    const std::int64_t d = dense.dims[0];
    std::int64_t vectors = 1;
    for (std::size_t i = 1; i < l.input_shapes.size(); ++i) {
        const auto& s = l.input_shapes[i];
        const bool ok =
            (s.layout == tensor_layout::FEATURES || s.layout == tensor_layout::TOKENS) &&
            s.dims.back() == d;
        if (!ok) {
            throw layer_error("inputs", "interaction input " + input_desc(l, i) +
                                            " is not a vector or bag of vectors of width " +
                                            std::to_string(d) + " like " + input_desc(l, 0));
        }
        vectors = add(vectors, s.positions());
    }
    // DLRM: the dense vector concatenated with the dot products of all distinct pairs.
    l.output_shape = tensor_shape::features(add(d, vectors * (vectors - 1) / 2));
    // Computed as one batched matmul X*X^T per sample (F x d by d x F); its gradient needs both
    // operands' gradients, which are the same X: twice the forward.
    l.forward_flops = mul({2, vectors, vectors, d, n});
    l.backward_input_flops = mul({2, l.forward_flops});
}

void flatten(layer_info& l) {
    expect_inputs(l, 1, 1);
    reject_indices(l);
    l.output_shape = tensor_shape::features(l.input_shapes[0].elements());
}

// An operation the format has no kind for: the file states its output shape and its costs per
// sample (an importer counted them); only the batch is multiplied in.
void generic(layer_info& l, std::int64_t n) {
    expect_inputs(l, 1, SIZE_MAX);
    const auto& s = l.spec;
    l.output_shape = s.output;
    l.params = s.params;
    l.forward_flops = mul({n, s.forward_flops});
    l.backward_input_flops = mul({n, s.backward_input_flops});
    l.backward_weight_flops = mul({n, s.backward_weight_flops});
}

}  // namespace

void layer_math::derive(layer_info& l, std::int64_t batch, std::int64_t bytes_per_value) {
    l.params = l.forward_flops = l.backward_input_flops = l.backward_weight_flops = 0;
    switch (l.kind) {
        case layer_kind::CONV:
            conv(l, batch);
            break;
        case layer_kind::DECONV:
            deconv(l, batch);
            break;
        case layer_kind::RESHAPE:
            reshape(l);
            break;
        case layer_kind::FC:
            fc(l, batch);
            break;
        case layer_kind::POOL:
            pool(l, batch);
            break;
        case layer_kind::ACTIVATION:
            activation(l, batch);
            break;
        case layer_kind::BATCHNORM:
            batchnorm(l, batch);
            break;
        case layer_kind::LAYERNORM:
            layernorm(l, batch);
            break;
        case layer_kind::LRN:
            lrn(l, batch);
            break;
        case layer_kind::SOFTMAX:
            softmax(l, batch);
            break;
        case layer_kind::DROPOUT:
            elementwise(l, batch, 1, 1);
            break;  // mask multiply
        case layer_kind::EMBEDDING:
            embedding(l, batch);
            break;
        case layer_kind::ATTENTION:
            attention(l, batch);
            break;
        case layer_kind::ADD:
            add_layer(l, batch);
            break;
        case layer_kind::CONCAT:
            concat(l);
            break;
        case layer_kind::INTERACTION:
            interaction(l, batch);
            break;
        case layer_kind::FLATTEN:
            flatten(l);
            break;
        case layer_kind::GENERIC:
            generic(l, batch);
            break;
    }
    l.activation_bytes = mul({batch, l.output_shape.elements(), bytes_per_value});
    l.weight_bytes = mul({l.params, bytes_per_value});
    l.weight_grad_bytes = l.weight_bytes;
}

}  // namespace trainvp::models
