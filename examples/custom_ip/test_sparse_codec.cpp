// The sparse frame format alone (no SystemC, no trainvp): sizes and a round trip.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sparse_codec.h"

namespace {
int g_failures = 0;
void check(bool ok, const char* what) {
    if (!ok) {
        std::printf("FAILED: %s\n", what);
        ++g_failures;
    }
}
}  // namespace

int main() {
    // A 1460 B TCP payload carries 365 FP32 values; 1% keeps ceil(3.65) = 4 of them:
    // 4 B count + 4 x (4 B value + 4 B index) = 36 B.
    check(sparse::kept_elements(365, 0.01) == 4, "ceil(0.01 * 365) = 4");
    check(sparse::encoded_bytes(4, sparse::format{}) == 36, "4 + 4 * 8 = 36 B");
    check(sparse::kept_elements(10, 0.0001) == 1, "at least one element is kept");
    check(sparse::kept_elements(10, 1.0) == 10, "density 1 keeps everything");
    check(sparse::kept_elements(0, 0.5) == 0, "an empty frame keeps nothing");

    const std::vector<float> g{0.1f, -3.0f, 0.2f, 2.0f, -0.5f, 0.0f};
    const sparse::encoded e = sparse::top_k(g, 2);
    check(e.index == std::vector<std::uint32_t>{1, 3}, "top-2 by magnitude, in index order");
    check(e.value == std::vector<float>{-3.0f, 2.0f}, "their values, exactly");
    const std::vector<float> d = sparse::densify(e, g.size());
    check(d == std::vector<float>{0.0f, -3.0f, 0.0f, 2.0f, 0.0f, 0.0f}, "densify round trip");
    check(sparse::top_k(g, 99).index.size() == g.size(), "k above n keeps all");
    if (g_failures == 0) std::printf("sparse codec: all checks passed\n");
    return g_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
