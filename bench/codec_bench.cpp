// Encode and decode throughput of the gradient codecs, in bytes of float32 input per second.
// Input: gradient-like values, normal with sigma 1e-3 (deterministic seed), 1 Mi floats.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ip/codecs/bfp_codec.h"
#include "ip/codecs/inceptionn_codec.h"
#include "ip/codecs/none_codec.h"

namespace {

using trainvp::codecs::bfp_codec;
using trainvp::codecs::codec;
using trainvp::codecs::inceptionn_codec;
using trainvp::codecs::none_codec;

constexpr std::size_t values = 1 << 20;

const std::vector<float>& gradients() {
    static const std::vector<float> data = [] {
        std::mt19937_64 rng(20180101);
        std::normal_distribution<float> normal(0.0f, 1e-3f);
        std::vector<float> v(values);
        for (float& f : v) f = normal(rng);
        return v;
    }();
    return data;
}

void run_encode(benchmark::State& state, const codec& c) {
    const std::vector<float>& in = gradients();
    std::vector<std::uint8_t> out;
    out.reserve(values * 5);
    for (auto _ : state) {
        out.clear();
        c.encode(in.data(), in.size(), out);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * values * 4);
    state.counters["ratio"] = 4.0 * values / static_cast<double>(out.size());
}

void run_decode(benchmark::State& state, const codec& c) {
    const std::vector<float>& in = gradients();
    std::vector<std::uint8_t> stream;
    c.encode(in.data(), in.size(), stream);
    std::vector<float> out(values);
    for (auto _ : state) {
        benchmark::DoNotOptimize(c.decode(stream.data(), stream.size(), out.data(), values));
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * values * 4);
}

void inceptionn_encode(benchmark::State& state) { run_encode(state, inceptionn_codec(-10)); }
void inceptionn_decode(benchmark::State& state) { run_decode(state, inceptionn_codec(-10)); }
void bfp16_encode(benchmark::State& state) { run_encode(state, bfp_codec::bfp16()); }
void bfp16_decode(benchmark::State& state) { run_decode(state, bfp_codec::bfp16()); }
void none_encode(benchmark::State& state) { run_encode(state, none_codec()); }
void none_decode(benchmark::State& state) { run_decode(state, none_codec()); }

BENCHMARK(inceptionn_encode)->Unit(benchmark::kMillisecond);
BENCHMARK(inceptionn_decode)->Unit(benchmark::kMillisecond);
BENCHMARK(bfp16_encode)->Unit(benchmark::kMillisecond);
BENCHMARK(bfp16_decode)->Unit(benchmark::kMillisecond);
BENCHMARK(none_encode)->Unit(benchmark::kMillisecond);
BENCHMARK(none_decode)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
