// Fuzz target: arbitrary bytes as a Chakra execution trace (workloads/chakra/trace_reader.h),
// read as every rank of a 4-rank job, then, when all four read, mapped onto each rank's op list
// (trace_ops.h).  The reader and the mapping must accept or throw input_error, never crash,
// hang or read outside the input.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/error.h"
#include "workloads/chakra/trace_ops.h"
#include "workloads/chakra/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    constexpr int world = 4;
    try {
        std::vector<trainvp::chakra::et_trace> traces;
        for (int r = 0; r < world; ++r) {
            traces.push_back(trainvp::chakra::trace_reader::parse(data, size, "fuzz.et", r, world));
        }
        // Keep a mapped job small: a collective of a fuzzed size must not ask for gigabytes of
        // ops (the schedules are sized by ranks, not bytes, so this bounds the node count).
        if (traces[0].nodes.size() > 4096) return 0;
        const trainvp::chakra::trace_ops job(std::move(traces), {0, 1, 2, 3});
        for (int r = 0; r < world; ++r) (void)job.rank_ops(r);
    } catch (const trainvp::input_error&) {
    }
    return 0;
}
