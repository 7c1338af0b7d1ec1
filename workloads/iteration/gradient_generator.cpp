#include "workloads/iteration/gradient_generator.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace trainvp::workloads {

namespace {

// splitmix64 (Steele, Lea & Flood 2014): a full-period 64-bit stream, fixed across platforms.
class stream {
public:
    explicit stream(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // Uniform in (0, 1): 53 random bits, never 0.
    double open01() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }

private:
    std::uint64_t m_state;
};

std::vector<float> from_file(const gradient_spec& s, std::size_t rank, std::size_t ranks,
                             std::size_t elements) {
    std::ifstream in(s.file, std::ios::binary | std::ios::ate);
    if (!in) throw std::runtime_error("cannot open gradient file '" + s.file + "'");
    const auto size = static_cast<std::uint64_t>(in.tellg());
    const std::uint64_t one = static_cast<std::uint64_t>(elements) * 4;
    std::uint64_t offset = 0;
    if (size == one * ranks && ranks > 1) {
        offset = one * rank;
    } else if (size != one) {
        throw std::runtime_error("gradient file '" + s.file + "' has " + std::to_string(size) +
                                 " B; expected " + std::to_string(one) + " (" +
                                 std::to_string(elements) + " float32 for every rank) or " +
                                 std::to_string(one * ranks) + " (one gradient per rank)");
    }
    std::vector<float> out(elements);
    in.seekg(static_cast<std::streamoff>(offset));
    std::vector<unsigned char> raw(one);
    in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(one));
    if (!in) throw std::runtime_error("cannot read gradient file '" + s.file + "'");
    for (std::size_t i = 0; i < elements; ++i) {
        const std::uint32_t u = static_cast<std::uint32_t>(raw[4 * i]) |
                                static_cast<std::uint32_t>(raw[4 * i + 1]) << 8 |
                                static_cast<std::uint32_t>(raw[4 * i + 2]) << 16 |
                                static_cast<std::uint32_t>(raw[4 * i + 3]) << 24;
        std::memcpy(&out[i], &u, 4);
    }
    return out;
}

}  // namespace

std::vector<float> generate_gradient(const gradient_spec& s, std::size_t rank, std::size_t ranks,
                                     std::size_t elements) {
    if (s.distribution == gradient_distribution::FILE) return from_file(s, rank, ranks, elements);
    if (s.distribution == gradient_distribution::UNIFORM ? !(s.b > s.a) : !(s.b > 0)) {
        throw std::invalid_argument(
            s.distribution == gradient_distribution::UNIFORM
                ? "a uniform gradient needs high > low"
                : "a normal or laplace gradient needs a positive standard deviation or scale");
    }
    // Independent streams per rank: the rank goes through one splitmix step of its own.
    stream st(stream(s.seed ^ (0xd1b54a32d192ed03ull * (rank + 1))).next());
    std::vector<float> out(elements);
    for (std::size_t i = 0; i < elements; ++i) {
        double x = 0.0;
        switch (s.distribution) {
            case gradient_distribution::NORMAL: {
                // Box-Muller, one value per pair of uniforms (simple, and fast enough here).
                const double u1 = st.open01(), u2 = st.open01();
                x = s.a + s.b * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
                break;
            }
            case gradient_distribution::UNIFORM:
                x = s.a + (s.b - s.a) * st.open01();
                break;
            case gradient_distribution::LAPLACE: {
                const double u = st.open01() - 0.5;
                x = s.a - s.b * (u < 0 ? -1.0 : 1.0) * std::log(1.0 - 2.0 * std::fabs(u));
                break;
            }
            case gradient_distribution::FILE:
                break;
        }
        out[i] = static_cast<float>(x);
    }
    return out;
}

}  // namespace trainvp::workloads
