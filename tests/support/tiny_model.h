// A model small enough to check generated op lists by hand: an MLP 16-32-32-8 at batch 4.
// fc1 544 params (2176 B), fc2 1056 (4224 B), fc3 264 (1056 B): 7456 B of gradients.
#pragma once

#include "workloads/models/model_loader.h"

namespace trainvp::test {

inline models::model tiny_model() {
    static const char* k_tiny = R"(
name: tiny
source: test
input: {features: 16}
layers:
  - {name: fc1, kind: fc, in: 16, out: 32, bias: true}
  - {name: relu1, kind: relu}
  - {name: fc2, kind: fc, in: 32, out: 32, bias: true}
  - {name: relu2, kind: relu}
  - {name: fc3, kind: fc, in: 32, out: 8, bias: true}
)";
    models::model_options o;
    o.batch = 4;
    return models::parse_model(k_tiny, "tiny.yaml", o);
}

}  // namespace trainvp::test
