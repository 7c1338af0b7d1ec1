// How a model's gradients are grouped into buckets for a bucketed exchange (PyTorch DDP,
// Li et al., VLDB 2020): walking the layers from the last to the first, each layer with
// gradients joins the open bucket, which closes once it holds at least `bucket_bytes`.  The
// training builder's overlapped policy and the chiplet package's training (noc/chiplet) both
// use it.  Pure C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "workloads/models/layer_info.h"

namespace trainvp::workloads {

// One exchange unit: the gradients of a run of consecutive layers, contiguous in the gradient
// buffer.
struct gradient_bucket {
    std::string name;          // the layer whose backward op closes it, or "all"
    std::size_t close_layer;   // the exchange starts after this layer's backward op
    std::uint64_t offset = 0;  // bytes into the gradient (and weight) buffer
    std::uint64_t bytes = 0;
    std::vector<std::size_t> layers;  // layers with parameters in it, highest first
};

// The buckets, in the order the backward pass closes them.  `bucket_bytes` 0 gives one bucket
// per layer with parameters.  `exchanged(layer index)`, when given, leaves out the layers it
// rejects (their gradients stay local).  Offsets count every layer's gradients, in layer order.
std::vector<gradient_bucket> bucket_gradients(
    const std::vector<models::layer_info>& layers, std::uint64_t bucket_bytes,
    const std::function<bool(std::size_t)>& exchanged = nullptr);

}  // namespace trainvp::workloads
