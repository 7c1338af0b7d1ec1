#include "ip/codecs/inceptionn_table3.h"

#include <cmath>

namespace trainvp::codecs {

const std::vector<inceptionn_table3::row>& inceptionn_table3::rows() {
    // inceptionn.md Table III, percentages as fractions (2-, 10-, 18-, 34-bit values).
    static const std::vector<row> k_rows = {
        {"alexnet", -10, {0.749, 0.039, 0.211, 0.001}},
        {"alexnet", -8, {0.825, 0.148, 0.026, 0.001}},
        {"alexnet", -6, {0.93, 0.07, 0, 0.001}},
        {"hdc", -10, {0.92, 0.065, 0.015, 0}},
        {"hdc", -8, {0.957, 0.034, 0.009, 0}},
        {"hdc", -6, {0.981, 0.016, 0.004, 0}},
        {"resnet50", -10, {0.816, 0.179, 0.005, 0}},
        {"resnet50", -8, {0.923, 0.077, 0.001, 0}},
        {"resnet50", -6, {0.976, 0.024, 0, 0}},
        {"vgg16", -10, {0.942, 0.009, 0.049, 0}},
        {"vgg16", -8, {0.962, 0.038, 0, 0}},
        {"vgg16", -6, {0.973, 0.027, 0, 0}},
    };
    return k_rows;
}

std::vector<std::string> inceptionn_table3::models() {
    std::vector<std::string> out;
    for (const auto& r : rows()) {
        if (out.empty() || out.back() != r.model) out.push_back(r.model);
    }
    return out;
}

std::vector<int> inceptionn_table3::exponents() { return {-10, -8, -6}; }

const inceptionn_table3::row* inceptionn_table3::find(const std::string& model, int exponent) {
    for (const auto& r : rows()) {
        if (r.model == model && r.exponent == exponent) return &r;
    }
    return nullptr;
}

std::vector<const inceptionn_table3::row*> inceptionn_table3::matching(
    const inceptionn_codec::bit_width_histogram& h) {
    auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9; };
    std::vector<const row*> out;
    for (const auto& r : rows()) {
        const auto& x = r.histogram;
        if (near(x.bits2, h.bits2) && near(x.bits10, h.bits10) && near(x.bits18, h.bits18) &&
            near(x.bits34, h.bits34)) {
            out.push_back(&r);
        }
    }
    return out;
}

}  // namespace trainvp::codecs
