// inceptionn.md Table III as data: the bit-width histograms of the compressed gradients of the
// four models the paper measured, at error bounds 2^-10, 2^-8 and 2^-6.  nic.inceptionn's timing
// mode draws compressed sizes from the row of its model (`table3_model`) and its `error_bound`,
// and rejects a histogram that is another bound's row (a silent wrong answer otherwise).
#pragma once

#include <string>
#include <vector>

#include "ip/codecs/inceptionn_codec.h"

namespace trainvp::codecs {

class inceptionn_table3 {
public:
    struct row {
        std::string model;  // a zoo name: alexnet, hdc, resnet50, vgg16
        int exponent;       // error bound 2^exponent
        inceptionn_codec::bit_width_histogram histogram;
    };

    // Every row, in the paper's order.
    static const std::vector<row>& rows();
    // The models with rows, in the paper's order.
    static std::vector<std::string> models();
    // The exponents Table III gives (-10, -8, -6).
    static std::vector<int> exponents();
    // The row of `model` at 2^exponent, or null when the paper gives none.
    static const row* find(const std::string& model, int exponent);
    // The rows equal to `h` (each fraction within 1e-9), e.g. to name a histogram's origin.
    static std::vector<const row*> matching(const inceptionn_codec::bit_width_histogram& h);
};

}  // namespace trainvp::codecs
